using System.Text;

namespace XeAnalyzer.IO;

/// <summary>How XeAnalyzer opens every text input file (target data, callstack text, module lists, map values, build
/// catalogs).</summary>
internal static class TextInput
{
    /// <summary>
    /// The reader's byte buffer: 32 KB, so its char buffer (64 KB) stays below the large-object heap (85,000 bytes) and
    /// opening a small text file (a capture's module list, in a batch of hundreds) costs no full collection.
    /// </summary>
    private const int ReaderBufferBytes = 32 * 1024;

    /// <summary>
    /// Opens a text file shared for reading and writing (SQL Server may still be writing it), read sequentially: UTF-8
    /// unless a byte order mark says otherwise (UTF-16 and UTF-32 inputs carry one).
    /// </summary>
    /// <param name="path">The file.</param>
    /// <returns>A reader that owns the file.</returns>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be read.</exception>
    public static StreamReader OpenText(string path) => OpenText(path, null);

    /// <summary>As <see cref="OpenText(string)"/>, reading the file through <paramref name="wrap"/> (for example a
    /// stream that counts bytes for progress).</summary>
    /// <param name="path">The file.</param>
    /// <param name="wrap">Given the file stream, returns the stream to read (which owns it); <see langword="null"/> for
    /// the file stream itself.</param>
    /// <returns>A reader that owns the stream.</returns>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be read.</exception>
    public static StreamReader OpenText(string path, Func<Stream, Stream>? wrap)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        Stream stream = new FileStream(
            path,
            FileMode.Open,
            FileAccess.Read,
            FileShare.ReadWrite,
            1,
            FileOptions.SequentialScan
        );
        return new StreamReader(
            wrap is null ? stream : wrap(stream),
            new UTF8Encoding(false),
            detectEncodingFromByteOrderMarks: true,
            bufferSize: ReaderBufferBytes
        );
    }
}
