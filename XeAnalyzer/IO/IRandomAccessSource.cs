namespace XeAnalyzer.IO;

/// <summary>
/// A flat, randomly accessible array of bytes: the only way format readers reach their input.
/// Parsers never see a <see cref="FileStream"/>; a file, a memory buffer or (later) a mapped view all implement this.
/// Implementations are safe for concurrent <see cref="Read"/> calls.
/// </summary>
internal interface IRandomAccessSource : IDisposable
{
    /// <summary>A name for messages: the file path, or a description of the buffer.</summary>
    string Name { get; }

    /// <summary>Current length in bytes. For a file that is still being written this can grow between calls.</summary>
    long Length { get; }

    /// <summary>Reads up to <paramref name="destination"/>.Length bytes at <paramref name="offset"/>; returns the
    /// number read (0 at or past the end).</summary>
    /// <param name="offset">Absolute position in the source.</param>
    /// <param name="destination">Where the bytes go.</param>
    int Read(long offset, Span<byte> destination);
}
