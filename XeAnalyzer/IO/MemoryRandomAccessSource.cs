namespace XeAnalyzer.IO;

/// <summary>An in-memory byte buffer exposed as an <see cref="IRandomAccessSource"/>.</summary>
internal sealed class MemoryRandomAccessSource : IRandomAccessSource
{
    private readonly ReadOnlyMemory<byte> _data;

    /// <summary>Wraps <paramref name="data"/>.</summary>
    /// <param name="data">The bytes.</param>
    /// <param name="name">A name for messages.</param>
    public MemoryRandomAccessSource(ReadOnlyMemory<byte> data, string name = "<memory>")
    {
        _data = data;
        Name = name;
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public long Length => _data.Length;

    /// <inheritdoc/>
    public int Read(long offset, Span<byte> destination)
    {
        if (offset < 0 || offset >= _data.Length)
        {
            return 0;
        }

        int n = (int)Math.Min(destination.Length, _data.Length - offset);
        _data.Span.Slice((int)offset, n).CopyTo(destination);
        return n;
    }

    /// <inheritdoc/>
    public void Dispose() { }
}
