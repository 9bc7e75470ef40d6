using Microsoft.Win32.SafeHandles;

namespace XeAnalyzer.IO;

/// <summary>
/// A file opened for positional, thread-safe reads (<see cref="RandomAccess"/>). The file is shared for read, write and
/// delete, so captures that SQL Server is still writing can be opened.
/// </summary>
internal sealed class FileRandomAccessSource : IRandomAccessSource
{
    private readonly SafeFileHandle _handle;

    /// <summary>Opens <paramref name="path"/> for reading.</summary>
    /// <param name="path">The file to open.</param>
    /// <param name="sequential">Hint that the file will be read front to back.</param>
    public FileRandomAccessSource(string path, bool sequential = false)
    {
        ArgumentNullException.ThrowIfNull(path);
        _handle = File.OpenHandle(
            path,
            FileMode.Open,
            FileAccess.Read,
            FileShare.ReadWrite | FileShare.Delete,
            sequential ? FileOptions.SequentialScan : FileOptions.RandomAccess
        );
        Name = path;
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public long Length => RandomAccess.GetLength(_handle);

    /// <inheritdoc/>
    public int Read(long offset, Span<byte> destination)
    {
        int total = 0;
        while (total < destination.Length)
        {
            int n = RandomAccess.Read(_handle, destination[total..], offset + total);
            if (n == 0)
            {
                break;
            }

            total += n;
        }

        return total;
    }

    /// <inheritdoc/>
    public void Dispose() => _handle.Dispose();
}
