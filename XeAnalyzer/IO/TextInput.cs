using System.Text;

namespace XeAnalyzer.IO;

/// <summary>How XeAnalyzer opens every text input file (target data, callstack text, module lists, map values, build catalogs).</summary>
public static class TextInput
{
    /// <summary>
    /// Opens a text file shared for reading and writing (SQL Server may still be writing it), read sequentially: UTF-8 unless a
    /// byte order mark says otherwise (UTF-16 and UTF-32 inputs carry one).
    /// </summary>
    /// <param name="path">The file.</param>
    /// <returns>A reader that owns the file.</returns>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be read.</exception>
    public static StreamReader OpenText(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        return new StreamReader(
            new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1, FileOptions.SequentialScan),
            new UTF8Encoding(false), detectEncodingFromByteOrderMarks: true, bufferSize: 64 * 1024);
    }
}
