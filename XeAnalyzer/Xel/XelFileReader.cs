using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.ExceptionServices;
using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>
/// Reads the buffers of one <c>.xel</c> file: merges its metadata and turns its event records into <see cref="XEvent"/>s.
/// </summary>
/// <remarks>
/// <para>Event buffers are independent once the metadata before them is read, so they are decoded ahead, in parallel
/// (<see cref="XelBufferPipeline"/>: a window of buffers read and walked by decode threads and by the reading thread itself),
/// and delivered in file order. Everything the reader decides beyond one buffer (buffer headers, damaged headers, metadata, the end of
/// the file, warnings and counts) stays on the reading thread, in file order, as in a sequential read: a metadata buffer, a damaged
/// header or the end of the data is handled only once every buffer before it has been delivered.</para>
/// <para>Per-record results (undecodable events, a damaged record, the record counts of <see cref="XelReadOptions.Tally"/>) are kept
/// with the buffer by the worker and reported by the reading thread when it delivers that buffer, so warnings and counts come out
/// exactly as a sequential read gives them; in strict mode the exception is thrown when the damaged buffer's turn comes.</para>
/// </remarks>
internal sealed class XelFileReader
{
    private const int RecordHeaderSize = 24;
    private const uint HasActionsFlag = 0x8000_0000;
    private const long MaxFileTime = 2650467743999999999L;
    private const int MaxSharedActionSets = 64;

    private readonly IRandomAccessSource _source;
    private readonly string _file;
    private readonly XelReadOptions _options;
    private readonly XeReaderLimits _limits;
    private readonly XelDiagnostics? _diag;
    private readonly bool _strict;
    private readonly XelBufferPipeline _pipeline;
    private readonly bool _ownsPipeline;
    private readonly Dictionary<int, XelPackageClock> _clocks = [];
    private readonly Dictionary<uint, string> _broken = [];
    private readonly HashSet<uint> _warnedBroken = [];
    private Dictionary<uint, EventState> _states = [];
    private EventState[] _stateList = [];
    private bool _warnedOtherBuffers;

    public XelFileReader(IRandomAccessSource source, XelReadOptions options, XelBufferPipeline? pipeline = null)
    {
        _source = source;
        _file = source.Name;
        _options = options;
        _limits = options.Limits;
        _diag = options.Diagnostics;
        _strict = options.Integrity == XelIntegrityHandling.Strict;
        _ownsPipeline = pipeline is null;
        _pipeline = pipeline ?? new XelBufferPipeline(options.DecodeThreads, pooled: false);
    }

    /// <summary>The file (as named in messages and event locations).</summary>
    public string FilePath => _file;

    /// <summary>The file's metadata, as merged so far.</summary>
    public XeSchema Schema { get; } = new();

    /// <summary>Buffers read (metadata and events).</summary>
    public int BufferCount { get; private set; }

    /// <summary>Metadata buffers read.</summary>
    public int MetadataBufferCount { get; private set; }

    /// <summary>The earliest package start time of the metadata read so far (no event of the file is earlier), or <see langword="null"/>.</summary>
    public DateTime? EarliestPackageStart
    {
        get
        {
            long min = long.MaxValue;
            foreach (XelPackageClock c in _clocks.Values)
            {
                if (c.StartFileTime >= 0 && c.StartFileTime < min)
                {
                    min = c.StartFileTime;
                }
            }

            return min == long.MaxValue || min > MaxFileTime ? null : DateTime.FromFileTimeUtc(min);
        }
    }

    /// <summary>What the reader knows about one event type of the current metadata. Immutable apart from the locked action-set list.</summary>
    internal sealed class EventState(XeEventType type, bool included, XelPackageClock clock, int[] varFields, int index)
    {
        public readonly XeEventType Type = type;
        public readonly uint Rid = type.Rid;
        public readonly bool Included = included;
        public readonly XelPackageClock Clock = clock;
        public readonly int[] VarFields = varFields;
        public readonly int MinPayload = type.MinPayloadLength;
        public readonly int Index = index;
        public readonly List<XeActionSet> ActionSets = [];
        public long Records;
    }

    /// <summary>One event record of a buffer, as the worker found it.</summary>
    internal readonly record struct Record(int Offset, int PayloadOffset, int PayloadLength, int ActionsOffset, int End, int ActionStarts, EventState State, XeActionSet Actions, DateTime Time);

    /// <summary>Reads the file's events; each owns its buffer (see <see cref="XEvent.IsTransient"/>).</summary>
    public IEnumerable<XEvent> Read(bool metadataOnly, CancellationToken cancellationToken)
    {
        foreach (XelEventBuffer b in ReadBuffers(metadataOnly, cancellationToken))
        {
            Record[] records = b.Records;
            for (int i = 0; i < b.Count; i++)
            {
                Record rec = records[i];
                var e = new XEvent(rec.State.Type, rec.Time, b.Data, rec.PayloadOffset, rec.PayloadLength, rec.ActionsOffset, rec.Actions, new XeSourceLocation(_file, b.Position + rec.Offset));
                if (rec.ActionStarts >= 0)
                {
                    e.SetActionStarts(b.ActionStarts, rec.ActionStarts);
                }

                yield return e;
            }
        }
    }

    /// <summary>
    /// Reads the file buffer by buffer: each event buffer is yielded decoded (its records), in file order. The caller must be done with
    /// a buffer's records before asking for the next one: a pooled pipeline reuses the buffer then.
    /// </summary>
    /// <param name="metadataOnly">Skip event buffers unread.</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The event buffers.</returns>
    public IEnumerable<XelEventBuffer> ReadBuffers(bool metadataOnly, CancellationToken cancellationToken)
    {
        try
        {
            foreach (XelEventBuffer b in ReadCore(metadataOnly, cancellationToken))
            {
                yield return b;
            }
        }
        finally
        {
            if (_ownsPipeline)
            {
                _pipeline.Close();
            }
            else
            {
                _pipeline.Abandon();
            }

            FoldTally();
        }
    }

    private IEnumerable<XelEventBuffer> ReadCore(bool metadataOnly, CancellationToken cancellationToken)
    {
        XelFileHeader header = XelFile.ReadHeader(_source);
        _diag?.FileRead();
        long fileLength = _source.Length;
        long pos = header.HeaderSize;
        byte[] hb = new byte[XelBufferHeader.Size];
        bool resyncing = false;
        while (true)
        {
            // Dispatch: event buffers whose data the file holds entirely are decoded ahead; anything else waits until every buffer
            // before it has been delivered, then is handled here as a sequential read would.
            while (pos < fileLength && _pipeline.CanDispatch && !metadataOnly)
            {
                if (fileLength - pos < XelBufferHeader.Size || _source.Read(pos, hb) < XelBufferHeader.Size)
                {
                    break;
                }

                XelBufferHeader ahead = XelBufferHeader.Parse(hb);
                if (ahead.Type != XelBufferType.Event || ahead.Validate(_limits) is not null || fileLength - pos < ahead.PaddedLength)
                {
                    break;
                }

                BufferCount++;
                int aheadEnd = ahead.DataOffset + (int)ahead.DataLength;
                _pipeline.Dispatch(this, pos, ahead.DataOffset, aheadEnd, aheadEnd, (int)ahead.PaddedLength);
                pos += ahead.PaddedLength;
            }

            if (_pipeline.InFlight > 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
                XelEventBuffer done = _pipeline.TakeNext();
                if (Deliver(done, out bool stop))
                {
                    yield return done;
                }

                _pipeline.Release(done);
                if (stop)
                {
                    Incomplete(done.Position, string.Create(CultureInfo.InvariantCulture, $"the final buffer is incomplete ({done.PaddedLength} of {done.PaddedLength} bytes); every complete event before the cut was read"));
                    yield break;
                }

                continue;
            }

            if (pos >= fileLength)
            {
                yield break;
            }

            cancellationToken.ThrowIfCancellationRequested();
            if (fileLength - pos < XelBufferHeader.Size)
            {
                Incomplete(pos, string.Create(CultureInfo.InvariantCulture, $"the file ends {fileLength - pos} bytes into a buffer header; the rest of the file is ignored"));
                yield break;
            }

            _source.Read(pos, hb);
            if (Array.TrueForAll(hb, b => b == 0))
            {
                _diag?.Warn(_file, pos, string.Create(CultureInfo.InvariantCulture, $"the last {fileLength - pos} bytes are zero-filled (no further buffers)"));
                yield break;
            }

            XelBufferHeader bh = XelBufferHeader.Parse(hb);
            string? problem = bh.Validate(_limits);
            if (problem is not null)
            {
                if (_strict)
                {
                    throw new InvalidXelDataException(_file, pos, "expected " + problem);
                }

                if (!resyncing)
                {
                    _diag?.SkippedBuffer();
                    _diag?.Warn(_file, pos, "damaged buffer header skipped (expected " + problem + "); looking for the next buffer");
                    resyncing = true;
                }

                pos = ((pos / XelBufferHeader.Alignment) + 1) * XelBufferHeader.Alignment;
                continue;
            }

            resyncing = false;
            BufferCount++;
            long available = Math.Min(bh.PaddedLength, fileLength - pos);
            bool cutShort = available < bh.PaddedLength;
            int dataEnd = bh.DataOffset + (int)bh.DataLength;
            switch (bh.Type)
            {
                case XelBufferType.Metadata:
                    MetadataBufferCount++;
                    if (dataEnd > available)
                    {
                        Incomplete(pos, "the file ends inside a metadata buffer; the rest of the file is ignored");
                        yield break;
                    }

                    byte[] meta = GC.AllocateUninitializedArray<byte>(dataEnd);
                    _source.Read(pos, meta);
                    ParseMetadata(meta, pos, bh);
                    break;
                case XelBufferType.Event when !metadataOnly:
                    // Decoded here, in turn (it may be the last, cut-short buffer of a file still being written).
                    _pipeline.Dispatch(this, pos, bh.DataOffset, dataEnd, (int)Math.Min(dataEnd, available), (int)bh.PaddedLength, inline: true);
                    XelEventBuffer one = _pipeline.TakeNext();
                    if (Deliver(one, out bool stop))
                    {
                        yield return one;
                    }

                    _pipeline.Release(one);
                    cutShort |= stop;
                    break;
                case XelBufferType.Event:
                    break;
                default:
                    if (!_warnedOtherBuffers)
                    {
                        _warnedOtherBuffers = true;
                        _diag?.Warn(_file, pos, string.Create(CultureInfo.InvariantCulture, $"buffer of type {(ushort)bh.Type} (header/index) skipped: its layout is undocumented"));
                    }

                    break;
            }

            if (cutShort)
            {
                Incomplete(pos, string.Create(CultureInfo.InvariantCulture, $"the final buffer is incomplete ({available} of {bh.PaddedLength} bytes); every complete event before the cut was read"));
                yield break;
            }

            pos += bh.PaddedLength;
        }
    }

    /// <summary>
    /// Reports what the worker found in a buffer (in the order a sequential read reports it) and says whether its events are delivered and
    /// whether the read stops after it (the file shrank while being read, or its data is cut short).
    /// </summary>
    private bool Deliver(XelEventBuffer b, out bool stop)
    {
        for (int i = 0; i < b.Undecodable; i++)
        {
            _diag?.UndecodableEvent();
        }

        if (b.Error is Exception error)
        {
            ExceptionDispatchInfo.Capture(error).Throw();
        }

        if (b.Damage is string damage)
        {
            _diag?.SkippedBuffer();
            _diag?.Warn(_file, b.DamageOffset, damage);
        }

        for (int i = 0; i < _stateList.Length && i < b.Counts.Length; i++)
        {
            if (b.Counts[i] > 0)
            {
                _stateList[i].Records += b.Counts[i];
            }
        }

        if (b.Count > 0)
        {
            _diag?.AddEvents(b.Count);
        }

        stop = b.CutShort;
        return b.Count > 0;
    }

    private void Incomplete(long offset, string message)
    {
        _diag?.IncompleteBuffer();
        _diag?.Warn(_file, offset, message);
    }

    private void ParseMetadata(byte[] meta, long pos, XelBufferHeader bh)
    {
        try
        {
            XelMetadataReader.Parse(meta.AsSpan(bh.DataOffset), pos + bh.DataOffset, _file, Schema, _clocks, _limits, _strict, _broken);
        }
        catch (InvalidXelDataException ex) when (!_strict)
        {
            _diag?.SkippedBuffer();
            _diag?.Warn(_file, ex.Offset ?? pos, "damaged metadata buffer skipped: " + ex.Detail);
        }

        foreach (KeyValuePair<uint, string> b in _broken)
        {
            if (!_warnedBroken.Add(b.Key))
            {
                continue;
            }

            _diag?.Warn(_file, pos, "objects of RID 0x" + b.Key.ToString("X8", CultureInfo.InvariantCulture) + " cannot be decoded: " + b.Value);
        }

        FoldTally();
        BuildStates();
    }

    /// <summary>The reader's view of every event type of the metadata read so far (read-only while buffers are decoded).</summary>
    private void BuildStates()
    {
        var states = new Dictionary<uint, EventState>();
        var list = new List<EventState>();
        IReadOnlyCollection<string>? names = _options.EventNames;
        foreach (XeEventType listed in Schema.EventTypes)
        {
            if (Schema.GetEventType(listed.Rid) is not XeEventType type || states.ContainsKey(type.Rid))
            {
                continue;
            }

            bool included = names is null || names.Count == 0;
            if (!included)
            {
                foreach (string n in names!)
                {
                    if (type.Matches(n))
                    {
                        included = true;
                        break;
                    }
                }
            }

            var vars = new List<int>();
            for (int i = 0; i < type.FieldArray.Length; i++)
            {
                if (type.FieldArray[i].IsVariableLength)
                {
                    vars.Add(i);
                }
            }

            XelPackageClock clock = _clocks.TryGetValue(type.Package.Index, out XelPackageClock c) ? c : default;
            var st = new EventState(type, included, clock, [.. vars], list.Count);
            states.Add(type.Rid, st);
            list.Add(st);
        }

        _states = states;
        _stateList = [.. list];
    }

    /// <summary>Adds the records counted per event type to <see cref="XelReadOptions.Tally"/> and resets the counts.</summary>
    private void FoldTally()
    {
        if (_options.Tally is not XelEventTally tally)
        {
            return;
        }

        foreach (EventState st in _stateList)
        {
            if (st.Records > 0)
            {
                tally.Add(st.Type.FullName, st.Records);
                st.Records = 0;
            }
        }
    }

    /// <summary>
    /// Reads and walks one event buffer (on a worker, or on the reading thread): reads its bytes at <see cref="XelEventBuffer.Position"/>,
    /// then its records into the buffer. Damage throws in strict mode (kept with the buffer and thrown when it is delivered); otherwise the
    /// rest of the buffer is skipped and the damage kept for the report.
    /// </summary>
    internal void Decode(XelEventBuffer b)
    {
        int readable = b.Readable;
        b.EnsureCapacity(readable, _stateList.Length);
        int got = _source.Read(b.Position, b.Data.AsSpan(0, readable));
        if (got < readable)
        {
            // The file shrank while being read.
            readable = got;
            b.Readable = got;
            b.CutShort = true;
        }

        bool truncated = ParseEvents(b, b.DataOffset, Math.Min(b.DataEnd, readable), b.DataEnd > readable);
        if (truncated)
        {
            b.CutShort = true;
        }
    }

    /// <summary>Walks the records of one event buffer. Returns whether the data was cut short by the end of the file.</summary>
    private bool ParseEvents(XelEventBuffer b, int start, int end, bool dataCutShort)
    {
        int p = start;
        EventState? last = null;
        while (p < end)
        {
            string? problem = ParseRecord(b, p, end, dataCutShort, ref last, out int next, out bool truncated);
            if (truncated)
            {
                return true;
            }

            if (problem is not null)
            {
                if (_strict)
                {
                    throw new InvalidXelDataException(_file, b.Position + p, "expected " + problem);
                }

                b.Damage = string.Create(CultureInfo.InvariantCulture, $"damaged event record (expected {problem}); the rest of the buffer at offset {b.Position} is skipped");
                b.DamageOffset = b.Position + p;
                return false;
            }

            p = next;
        }

        return false;
    }

    private string? ParseRecord(XelEventBuffer b, int p, int end, bool dataCutShort, ref EventState? last, out int next, out bool truncated)
    {
        next = p;
        truncated = false;
        ReadOnlySpan<byte> span = b.Data;
        int left = end - p;
        if (left < RecordHeaderSize)
        {
            truncated = dataCutShort;
            return string.Create(CultureInfo.InvariantCulture, $"a {RecordHeaderSize}-byte event record header, but only {left} bytes of buffer data remain");
        }

        ReadOnlySpan<byte> h = span.Slice(p, RecordHeaderSize);
        uint rid = BinaryPrimitives.ReadUInt32LittleEndian(h);
        uint flags = BinaryPrimitives.ReadUInt32LittleEndian(h[4..]);
        ulong ticks = BinaryPrimitives.ReadUInt64LittleEndian(h[12..]);
        uint payloadLength = BinaryPrimitives.ReadUInt32LittleEndian(h[20..]);
        if (payloadLength > (uint)(left - RecordHeaderSize))
        {
            truncated = dataCutShort;
            return string.Create(CultureInfo.InvariantCulture, $"a payload within the buffer data, but the payload length {payloadLength} exceeds the {left - RecordHeaderSize} bytes left");
        }

        int payload = p + RecordHeaderSize;
        int q = payload + (int)payloadLength;
        int actionCount = 0;
        int startsAt = b.ActionStartCount;
        if ((flags & HasActionsFlag) != 0)
        {
            while (true)
            {
                if (end - q < 8)
                {
                    truncated = dataCutShort;
                    return "an 8-byte action header (RID, length) or the action terminator, but the buffer data ends";
                }

                uint arid = BinaryPrimitives.ReadUInt32LittleEndian(span.Slice(q, 4));
                uint alen = BinaryPrimitives.ReadUInt32LittleEndian(span.Slice(q + 4, 4));
                if (alen > (uint)(end - q - 8))
                {
                    truncated = dataCutShort;
                    return string.Create(CultureInfo.InvariantCulture, $"an action value within the buffer data, but its length {alen} exceeds the {end - q - 8} bytes left");
                }

                int at = q;
                q += 8 + (int)alen;
                if (XeRid.ObjectType(arid) != XeRid.TypeAction)
                {
                    break;
                }

                if (actionCount >= _limits.MaxFieldsPerEvent)
                {
                    return string.Create(CultureInfo.InvariantCulture, $"at most {_limits.MaxFieldsPerEvent} actions per event (XeReaderLimits.MaxFieldsPerEvent)");
                }

                b.AddAction(startsAt + actionCount, arid, (int)alen, at);
                actionCount++;
            }
        }

        if (q - p > _limits.MaxEventSize)
        {
            return string.Create(CultureInfo.InvariantCulture, $"an event record of at most {_limits.MaxEventSize} bytes (XeReaderLimits.MaxEventSize), found {q - p}");
        }

        next = q;
        EventState? st = last is not null && last.Rid == rid ? last : _states.GetValueOrDefault(rid);
        if (st is null)
        {
            if (_broken.ContainsKey(rid))
            {
                b.Undecodable++;
                return null;
            }

            return string.Create(CultureInfo.InvariantCulture, $"an event RID defined in the file's metadata, found 0x{rid:X8} (package {XeRid.PackageIndex(rid)}, object {XeRid.ObjectIndex(rid)}, type {XeRid.ObjectType(rid)})");
        }

        last = st;
        b.Counts[st.Index]++;
        if (!st.Included)
        {
            return null;
        }

        // Fields.
        if (payloadLength < (uint)st.MinPayload)
        {
            return string.Create(CultureInfo.InvariantCulture, $"a payload of at least {st.MinPayload} bytes for {st.Type.FullName}, found {payloadLength}");
        }

        XeColumn[] fields = st.Type.FieldArray;
        foreach (int fi in st.VarFields)
        {
            XeColumn f = fields[fi];
            ReadOnlySpan<byte> slot = span.Slice(payload + f.PayloadOffset, 8);
            uint off = BinaryPrimitives.ReadUInt32LittleEndian(slot);
            uint len = BinaryPrimitives.ReadUInt32LittleEndian(slot[4..]);
            if ((ulong)off + len > payloadLength)
            {
                return string.Create(CultureInfo.InvariantCulture, $"field '{f.Name}' of {st.Type.FullName} (offset {off}, length {len}) within the {payloadLength}-byte payload");
            }

            string? bad = CheckCallstack(f, (int)len);
            if (bad is not null)
            {
                return bad;
            }
        }

        // Actions.
        XeActionSet set = XeActionSet.Empty;
        if (actionCount > 0)
        {
            ReadOnlySpan<uint> rids = b.ActionRids.AsSpan(startsAt, actionCount);
            if (b.LastActions[st.Index] is XeActionSet lastSet && lastSet.SameRids(rids))
            {
                set = lastSet;
            }
            else
            {
                XeActionSet? found = SharedActionSet(st, rids, out string? unknown);
                if (found is null)
                {
                    return unknown;
                }

                set = found;
                b.LastActions[st.Index] = set;
            }

            XeColumn[] cols = set.Array;
            for (int i = 0; i < actionCount; i++)
            {
                XeColumn c = cols[i];
                int len = b.ActionLengths[startsAt + i];
                if (!c.IsVariableLength && len != c.Size)
                {
                    return string.Create(CultureInfo.InvariantCulture, $"action '{c.FullName}' of {c.Size} bytes, found {len}");
                }

                string? bad = CheckCallstack(c, len);
                if (bad is not null)
                {
                    return bad;
                }
            }
        }

        // Time.
        XelPackageClock clock = st.Clock;
        long delta;
        if (clock.Frequency is 0 or 10_000_000)
        {
            if (ticks > long.MaxValue)
            {
                return TimeProblem(ticks);
            }

            delta = (long)ticks;
        }
        else
        {
            UInt128 d = (UInt128)ticks * 10_000_000UL / clock.Frequency;
            if (d > (UInt128)long.MaxValue)
            {
                return TimeProblem(ticks);
            }

            delta = (long)d;
        }

        if (delta > MaxFileTime - clock.StartFileTime)
        {
            return TimeProblem(ticks);
        }

        DateTime time = DateTime.FromFileTimeUtc(clock.StartFileTime + delta);
        b.ActionStartCount = startsAt + actionCount;
        b.AddRecord(new Record(p, payload, (int)payloadLength, payload + (int)payloadLength, q, actionCount > 0 ? startsAt : -1, st, set, time));
        return null;
    }

    /// <summary>The action set of these RIDs for an event type: one instance per distinct list (at most 64 kept per type), shared by every worker.</summary>
    private XeActionSet? SharedActionSet(EventState st, ReadOnlySpan<uint> rids, out string? unknown)
    {
        unknown = null;
        lock (st.ActionSets)
        {
            foreach (XeActionSet s in st.ActionSets)
            {
                if (s.SameRids(rids))
                {
                    return s;
                }
            }
        }

        var cols = new XeColumn[rids.Length];
        for (int i = 0; i < rids.Length; i++)
        {
            XeColumn? c = Schema.GetAction(rids[i]);
            if (c is null)
            {
                unknown = string.Create(CultureInfo.InvariantCulture, $"an action RID defined in the file's metadata, found 0x{rids[i]:X8}");
                return null;
            }

            cols[i] = c;
        }

        var built = new XeActionSet(cols);
        lock (st.ActionSets)
        {
            foreach (XeActionSet s in st.ActionSets)
            {
                if (s.SameRids(rids))
                {
                    return s;
                }
            }

            if (st.ActionSets.Count < MaxSharedActionSets)
            {
                st.ActionSets.Add(built);
            }
        }

        return built;
    }

    private string? CheckCallstack(XeColumn c, int len)
    {
        if (c.BaseType != XeBaseType.Callstack || c.IsMap)
        {
            return null;
        }

        if (len % c.PointerSize != 0)
        {
            return string.Create(CultureInfo.InvariantCulture, $"callstack '{c.Name}' whose length is a multiple of the pointer size {c.PointerSize}, found {len}");
        }

        if (len / c.PointerSize > _limits.MaxCallstackFrames)
        {
            return string.Create(CultureInfo.InvariantCulture, $"at most {_limits.MaxCallstackFrames} callstack frames (XeReaderLimits.MaxCallstackFrames), found {len / c.PointerSize}");
        }

        return null;
    }

    private static string TimeProblem(ulong ticks) =>
        string.Create(CultureInfo.InvariantCulture, $"an event time within the FILETIME range, found {ticks} ticks");
}
