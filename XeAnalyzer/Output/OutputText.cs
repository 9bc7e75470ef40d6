using System.Text;

namespace XeAnalyzer.Output;

/// <summary>Encoding helpers shared by the writers: UTF-8 without a byte order mark, <c>\n</c> line endings.</summary>
internal static class OutputText
{
    /// <summary>UTF-8 without a byte order mark; invalid UTF-16 would throw, but writers sanitise text first.</summary>
    public static readonly UTF8Encoding Utf8NoBom = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Writes text as UTF-8 and flushes the stream.</summary>
    public static void WriteUtf8(string text, Stream output)
    {
        ArgumentNullException.ThrowIfNull(output);
        output.Write(Utf8NoBom.GetBytes(text));
        output.Flush();
    }

    /// <summary>A UTF-8 (no BOM) writer over a stream that leaves the stream open and writes <c>\n</c> line endings.</summary>
    public static StreamWriter CreateWriter(Stream output) =>
        new(output, Utf8NoBom, bufferSize: 65536, leaveOpen: true) { NewLine = "\n", AutoFlush = false };
}
