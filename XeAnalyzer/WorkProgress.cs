namespace XeAnalyzer;

/// <summary>What long work a <see cref="WorkProgress"/> report is about, and what its counts count.</summary>
public enum WorkKind
{
    /// <summary>Reading captures: <see cref="WorkProgress.Done"/> and <see cref="WorkProgress.Total"/> are bytes of the
    /// input files.</summary>
    Reading,

    /// <summary>Symbolizing the distinct callstacks of an input: the counts are distinct addresses and distinct text
    /// stacks.</summary>
    Resolving,

    /// <summary>Downloading a PDB from a symbol server: the counts are bytes received; the total is the declared
    /// length, or -1 when unknown.</summary>
    Downloading,
}

/// <summary>
/// A progress report of long work (reading captures, symbolizing stacks, downloading PDBs), for progress displays: the
/// library calls an <see cref="IProgress{T}"/> given in the work's options (<c>CaptureReadOptions.Progress</c>, also
/// for the export's two reads, <c>CallstackResolverOptions.Progress</c>, <c>SymbolStoreOptions.DownloadProgress</c>)
/// with these, at most about once per mebibyte or per thousand items, and once with <see cref="Finished"/> set when the
/// work ends. Reports are never part of any output. The callback may be called from several threads at once (parallel
/// downloads, batch captures) and must be quick.
/// </summary>
/// <param name="Kind">What the work is, and so what the counts count.</param>
/// <param name="Item">What is worked on, for display (a capture as named, an input, a PDB name); with
/// <paramref name="Kind"/> it tells one piece of work from another running at the same time.</param>
/// <param name="Done">How much is done (bytes or items; see <see cref="WorkKind"/>).</param>
/// <param name="Total">How much there is in all, or -1 when unknown. A file that grows while it is read can make
/// <paramref name="Done"/> pass it.</param>
/// <param name="Finished">Whether this is the last report of this piece of work (it ended, successfully or
/// not).</param>
public readonly record struct WorkProgress(WorkKind Kind, string Item, long Done, long Total, bool Finished);

/// <summary>
/// Turns positions in a list of files into <see cref="WorkKind.Reading"/> reports: a position is a file and a byte
/// offset in it; reports go out when the position has moved by at least <see cref="Step"/> bytes since the last one.
/// </summary>
internal sealed class FileReadProgress
{
    /// <summary>The least movement, in bytes, between two reports.</summary>
    public const long Step = 1L << 20;

    private readonly IProgress<WorkProgress> _sink;
    private readonly string _item;
    private readonly Dictionary<string, long> _starts = new(StringComparer.Ordinal);
    private string? _lastPath;
    private long _lastStart;
    private long _reported = -1;

    /// <summary>Sizes the files (a file that cannot be sized counts 0 bytes).</summary>
    /// <param name="sink">Where reports go.</param>
    /// <param name="item">What is read, as shown.</param>
    /// <param name="files">The files, in reading order.</param>
    public FileReadProgress(IProgress<WorkProgress> sink, string item, IEnumerable<string> files)
    {
        _sink = sink;
        _item = item;
        long total = 0;
        foreach (string f in files)
        {
            if (_starts.TryAdd(f, total))
            {
                total += SizeOf(f);
            }
        }

        Total = total;
    }

    /// <summary>The bytes of the files.</summary>
    public long Total { get; }

    /// <summary>A name for several inputs: the first, and how many more.</summary>
    public static string Describe(IReadOnlyList<string> names) =>
        names.Count == 1
            ? names[0]
            : names[0]
                + " and "
                + (names.Count - 1).ToString(System.Globalization.CultureInfo.InvariantCulture)
                + " more";

    /// <summary>The reader is at <paramref name="offset"/> in <paramref name="path"/> (one of the files).</summary>
    public void At(string? path, long offset)
    {
        if (path is null)
        {
            return;
        }

        if (!ReferenceEquals(path, _lastPath))
        {
            _lastPath = path;
            _lastStart = _starts.GetValueOrDefault(path);
        }

        Report(_lastStart + Math.Max(0, offset));
    }

    /// <summary>Every byte before <paramref name="path"/> and of it is read (reported whatever the step since the last
    /// report).</summary>
    public void Past(string path)
    {
        long position = _starts.GetValueOrDefault(path) + SizeOf(path);
        if (position > _reported)
        {
            _reported = position;
            _sink.Report(new WorkProgress(WorkKind.Reading, _item, position, Total, false));
        }
    }

    /// <summary>The reading ended (also when it failed).</summary>
    public void Finish() =>
        _sink.Report(new WorkProgress(WorkKind.Reading, _item, Math.Max(_reported, 0), Total, true));

    private void Report(long position)
    {
        if (position - _reported >= Step || (position >= Total && position > _reported))
        {
            _reported = position;
            _sink.Report(new WorkProgress(WorkKind.Reading, _item, position, Total, false));
        }
    }

    private static long SizeOf(string path)
    {
        try
        {
            return new FileInfo(path).Length;
        }
        catch (Exception ex)
            when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return 0;
        }
    }
}
