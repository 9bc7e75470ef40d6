using System.Text;

namespace XeAnalyzer.Output;

/// <summary>Encoding helpers shared by the writers: UTF-8 without a byte order mark, <c>\n</c> line endings.</summary>
internal static class OutputText
{
    /// <summary>UTF-8 without a byte order mark; invalid UTF-16 would throw, but writers sanitise text first.</summary>
    public static readonly UTF8Encoding Utf8NoBom = new(
        encoderShouldEmitUTF8Identifier: false,
        throwOnInvalidBytes: true
    );

    /// <summary>
    /// Characters a writer buffers: its char and byte buffers (32 KB and 48 KB) stay below the large-object heap
    /// (85,000 bytes), so writing a file allocates nothing that only a full collection frees (a batch writes some
    /// twenty files per capture).
    /// </summary>
    private const int WriterBufferChars = 16384;

    /// <summary>Writes text as UTF-8 (encoded piecewise, never as one array) and flushes the stream.</summary>
    public static void WriteUtf8(string text, Stream output)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(output);
        using (StreamWriter writer = CreateWriter(output))
        {
            writer.Write(text);
        }

        output.Flush();
    }

    /// <summary>Writes the text of a builder as UTF-8 chunk by chunk (never as one string or array) and flushes the
    /// stream.</summary>
    public static void WriteUtf8(StringBuilder text, Stream output)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(output);
        using (StreamWriter writer = CreateWriter(output))
        {
            foreach (ReadOnlyMemory<char> chunk in text.GetChunks())
            {
                writer.Write(chunk.Span);
            }
        }

        output.Flush();
    }

    /// <summary>A UTF-8 (no BOM) writer over a stream that leaves the stream open and writes <c>\n</c> line
    /// endings.</summary>
    public static StreamWriter CreateWriter(Stream output) =>
        new(output, Utf8NoBom, bufferSize: WriterBufferChars, leaveOpen: true) { NewLine = "\n", AutoFlush = false };
}
