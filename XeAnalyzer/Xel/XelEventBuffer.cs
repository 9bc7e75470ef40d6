using XeAnalyzer.Events;

namespace XeAnalyzer.Xel;

/// <summary>
/// One event buffer of a <c>.xel</c> file, read and walked by a decode worker: its bytes, its records, and what the
/// walk found (undecodable records, damage, record counts per event type) for the reading thread to report in file
/// order.
/// </summary>
/// <remarks>
/// A pooled buffer (<see cref="XelBufferPipeline"/> with <c>pooled: true</c>) keeps its arrays from one use to the
/// next, so a read allocates nothing per buffer once the window is full; an unpooled one gives every use new data and
/// action-start arrays, which the events made from it own.
/// </remarks>
internal sealed class XelEventBuffer(bool pooled)
{
    private XelBufferDecoder? _decoder;

    public long Position { get; private set; }

    /// <summary>The file the buffer belongs to (while it is being delivered).</summary>
    public string FilePath => _decoder!.FilePath;

    public int DataOffset { get; private set; }

    public int DataEnd { get; private set; }

    public int PaddedLength { get; private set; }

    /// <summary>
    /// The bytes the file holds of the buffer (less than <see cref="DataEnd"/> when it is cut short).
    /// </summary>
    public int Readable { get; set; }

    /// <summary>
    /// The buffer's bytes from its start (<see cref="Position"/>); valid up to <see cref="Readable"/>.
    /// </summary>
    public byte[] Data { get; private set; } = [];

    /// <summary>The records, in buffer order.</summary>
    public XelBufferDecoder.Record[] Records { get; private set; } = new XelBufferDecoder.Record[256];

    /// <summary>Number of records.</summary>
    public int Count { get; private set; }

    /// <summary>
    /// Where each action of each record starts (indexed by <see cref="XelBufferDecoder.Record.ActionStarts"/>).
    /// </summary>
    public int[] ActionStarts { get; private set; } = new int[1024];

    /// <summary>The RIDs of the actions (same index as <see cref="ActionStarts"/>; used while walking).</summary>
    public uint[] ActionRids { get; private set; } = new uint[1024];

    /// <summary>The lengths of the actions (same index as <see cref="ActionStarts"/>; used while walking).</summary>
    public int[] ActionLengths { get; private set; } = new int[1024];

    /// <summary>Action starts used so far.</summary>
    public int ActionStartCount { get; set; }

    /// <summary>
    /// Records met per event type of the reader's metadata (its state index), including records skipped by name.
    /// </summary>
    public long[] Counts { get; private set; } = [];

    /// <summary>The action set last used per event type (a lookup shortcut).</summary>
    public XeActionSet?[] LastActions { get; private set; } = [];

    /// <summary>Records of event types whose metadata could not be decoded.</summary>
    public int Undecodable { get; set; }

    /// <summary>
    /// The warning for a damaged record (the rest of the buffer was skipped), or <see langword="null"/>.
    /// </summary>
    public string? Damage { get; set; }

    /// <summary>The file offset of the damaged record.</summary>
    public long DamageOffset { get; set; }

    /// <summary>
    /// Whether the read ends with this buffer (its data is cut short, or the file shrank while it was read).
    /// </summary>
    public bool CutShort { get; set; }

    /// <summary>
    /// What the walk threw (strict-mode damage, an I/O error), thrown again when the buffer is delivered.
    /// </summary>
    public Exception? Error { get; private set; }

    /// <summary>
    /// Prepares the buffer for a new use: the buffer of a file at <paramref name="position"/>, walked by
    /// <paramref name="decoder"/>.
    /// </summary>
    public void Reset(
        XelBufferDecoder decoder,
        long position,
        int dataOffset,
        int dataEnd,
        int readable,
        int paddedLength
    )
    {
        _decoder = decoder;
        Position = position;
        DataOffset = dataOffset;
        DataEnd = dataEnd;
        Readable = readable;
        PaddedLength = paddedLength;
        Count = 0;
        ActionStartCount = 0;
        Undecodable = 0;
        Damage = null;
        DamageOffset = 0;
        CutShort = false;
        Error = null;
    }

    /// <summary>
    /// Sizes the arrays for a buffer of <paramref name="bytes"/> bytes and a metadata of <paramref name="states"/>
    /// event types.
    /// </summary>
    public void EnsureCapacity(int bytes, int states)
    {
        if (!pooled)
        {
            Data = GC.AllocateUninitializedArray<byte>(bytes);
            ActionStarts = new int[ActionStarts.Length];
        }
        else if (Data.Length < bytes)
        {
            Data = GC.AllocateUninitializedArray<byte>(Math.Max(bytes, 64 * 1024));
        }

        if (Counts.Length < states)
        {
            Counts = new long[states];
            LastActions = new XeActionSet?[states];
        }
        else
        {
            Array.Clear(Counts);
            Array.Clear(LastActions);
        }
    }

    public void AddRecord(in XelBufferDecoder.Record record)
    {
        if (Count == Records.Length)
        {
            XelBufferDecoder.Record[] bigger = new XelBufferDecoder.Record[Count * 2];
            Array.Copy(Records, bigger, Count);
            Records = bigger;
        }

        Records[Count++] = record;
    }

    public void AddAction(int index, uint rid, int length, int start)
    {
        if (index >= ActionStarts.Length)
        {
            int size = Math.Max(index + 1, ActionStarts.Length * 2);
            int[] starts = new int[size];
            Array.Copy(ActionStarts, starts, ActionStarts.Length);
            ActionStarts = starts;
            uint[] rids = new uint[size];
            Array.Copy(ActionRids, rids, ActionRids.Length);
            ActionRids = rids;
            int[] lengths = new int[size];
            Array.Copy(ActionLengths, lengths, ActionLengths.Length);
            ActionLengths = lengths;
        }

        ActionStarts[index] = start;
        ActionRids[index] = rid;
        ActionLengths[index] = length;
    }

    /// <summary>
    /// Reads and walks the buffer (on a decode thread, or on the reading thread); what the walk throws (strict-mode
    /// damage, an I/O error) is kept in <see cref="Error"/> and thrown on the reading thread when the buffer's turn
    /// comes, after its counts.
    /// </summary>
    public void Decode()
    {
        try
        {
            _decoder!.Decode(this);
        }
#pragma warning disable CA1031 // Kept with the buffer and thrown again when it is delivered.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            Error = ex;
        }
    }

    /// <summary>
    /// Lets go of what a delivered buffer refers to (the file reader; the data too when it is not pooled).
    /// </summary>
    public void Clear()
    {
        _decoder = null;
        if (!pooled)
        {
            Data = [];
        }

        Array.Clear(Records, 0, Count);
        Count = 0;
    }
}
