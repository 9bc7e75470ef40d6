using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>Reads the buffers of one <c>.xel</c> file: merges its metadata and turns its event records into <see cref="XEvent"/>s.</summary>
internal sealed class XelFileReader
{
    private const int RecordHeaderSize = 24;
    private const uint HasActionsFlag = 0x8000_0000;
    private const long MaxFileTime = 2650467743999999999L;

    private readonly IRandomAccessSource _source;
    private readonly string _file;
    private readonly XelReadOptions _options;
    private readonly XeReaderLimits _limits;
    private readonly XelDiagnostics? _diag;
    private readonly bool _strict;
    private readonly Dictionary<int, XelPackageClock> _clocks = [];
    private readonly Dictionary<uint, string> _broken = [];
    private readonly HashSet<uint> _warnedBroken = [];
    private readonly Dictionary<uint, EventState> _states = [];
    private readonly List<Record> _records = [];
    private uint[] _ridScratch = new uint[16];
    private int[] _lenScratch = new int[16];
    private EventState? _last;
    private bool _warnedOtherBuffers;

    public XelFileReader(IRandomAccessSource source, XelReadOptions options)
    {
        _source = source;
        _file = source.Name;
        _options = options;
        _limits = options.Limits;
        _diag = options.Diagnostics;
        _strict = options.Integrity == XelIntegrityHandling.Strict;
    }

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

    private sealed class EventState(XeEventType type, bool included, XelPackageClock clock, int[] varFields)
    {
        public readonly XeEventType Type = type;
        public readonly bool Included = included;
        public readonly XelPackageClock Clock = clock;
        public readonly int[] VarFields = varFields;
        public readonly int MinPayload = type.MinPayloadLength;
        public readonly uint Rid = type.Rid;
        public XeActionSet? LastActions;
        public long Records;
    }

    private readonly record struct Record(int Offset, int PayloadOffset, int PayloadLength, int ActionsOffset, EventState State, XeActionSet Actions, DateTime Time);

    /// <summary>Reads the file; with <paramref name="metadataOnly"/>, event buffers are skipped unread.</summary>
    public IEnumerable<XEvent> Read(bool metadataOnly, CancellationToken cancellationToken)
    {
        try
        {
            foreach (XEvent e in ReadCore(metadataOnly, cancellationToken))
            {
                yield return e;
            }
        }
        finally
        {
            FoldTally();
        }
    }

    private IEnumerable<XEvent> ReadCore(bool metadataOnly, CancellationToken cancellationToken)
    {
        XelFileHeader header = XelFile.ReadHeader(_source);
        _diag?.FileRead();
        long fileLength = _source.Length;
        long pos = header.HeaderSize;
        byte[] hb = new byte[XelBufferHeader.Size];
        bool resyncing = false;
        while (pos < fileLength)
        {
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
                    int readable = (int)Math.Min(dataEnd, available);
                    byte[] buffer = GC.AllocateUninitializedArray<byte>(readable);
                    int got = _source.Read(pos, buffer);
                    if (got < readable)
                    {
                        // The file shrank while being read.
                        readable = got;
                        cutShort = true;
                    }

                    _records.Clear();
                    bool truncated = ParseEvents(buffer, pos, bh.DataOffset, Math.Min(dataEnd, readable), dataEnd > readable);
                    if (_records.Count > 0)
                    {
                        _diag?.AddEvents(_records.Count);
                    }

                    for (int i = 0; i < _records.Count; i++)
                    {
                        Record rec = _records[i];
                        yield return new XEvent(rec.State.Type, rec.Time, buffer, rec.PayloadOffset, rec.PayloadLength, rec.ActionsOffset, rec.Actions, new XeSourceLocation(_file, pos + rec.Offset));
                    }

                    if (truncated && !cutShort)
                    {
                        cutShort = true;
                    }

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
        _states.Clear();
        _last = null;
    }

    /// <summary>Adds the records counted per event type to <see cref="XelReadOptions.Tally"/> and resets the counts.</summary>
    private void FoldTally()
    {
        if (_options.Tally is not XelEventTally tally)
        {
            return;
        }

        foreach (EventState st in _states.Values)
        {
            if (st.Records > 0)
            {
                tally.Add(st.Type.FullName, st.Records);
                st.Records = 0;
            }
        }
    }

    private EventState? GetState(uint rid)
    {
        if (_last is not null && _last.Rid == rid)
        {
            return _last;
        }

        if (!_states.TryGetValue(rid, out EventState? st))
        {
            XeEventType? type = Schema.GetEventType(rid);
            if (type is null)
            {
                return null;
            }

            IReadOnlyCollection<string>? names = _options.EventNames;
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
            st = new EventState(type, included, clock, [.. vars]);
            _states.Add(rid, st);
        }

        _last = st;
        return st;
    }

    /// <summary>
    /// Walks the records of one event buffer into <see cref="_records"/>. Returns whether the data was cut short by the end of the
    /// file. Damage throws in strict mode; otherwise the rest of the buffer is skipped and reported.
    /// </summary>
    private bool ParseEvents(byte[] buf, long bufPos, int start, int end, bool dataCutShort)
    {
        int p = start;
        ReadOnlySpan<byte> span = buf;
        while (p < end)
        {
            string? problem = ParseRecord(buf, span, p, end, dataCutShort, out int next, out bool truncated);
            if (truncated)
            {
                return true;
            }

            if (problem is not null)
            {
                if (_strict)
                {
                    throw new InvalidXelDataException(_file, bufPos + p, "expected " + problem);
                }

                _diag?.SkippedBuffer();
                _diag?.Warn(_file, bufPos + p, string.Create(CultureInfo.InvariantCulture, $"damaged event record (expected {problem}); the rest of the buffer at offset {bufPos} is skipped"));
                return false;
            }

            p = next;
        }

        return false;
    }

    private string? ParseRecord(byte[] buf, ReadOnlySpan<byte> span, int p, int end, bool dataCutShort, out int next, out bool truncated)
    {
        next = p;
        truncated = false;
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

                q += 8 + (int)alen;
                if (XeRid.ObjectType(arid) != XeRid.TypeAction)
                {
                    break;
                }

                if (actionCount >= _limits.MaxFieldsPerEvent)
                {
                    return string.Create(CultureInfo.InvariantCulture, $"at most {_limits.MaxFieldsPerEvent} actions per event (XeReaderLimits.MaxFieldsPerEvent)");
                }

                if (actionCount == _ridScratch.Length)
                {
                    Array.Resize(ref _ridScratch, actionCount * 2);
                    Array.Resize(ref _lenScratch, actionCount * 2);
                }

                _ridScratch[actionCount] = arid;
                _lenScratch[actionCount] = (int)alen;
                actionCount++;
            }
        }

        if (q - p > _limits.MaxEventSize)
        {
            return string.Create(CultureInfo.InvariantCulture, $"an event record of at most {_limits.MaxEventSize} bytes (XeReaderLimits.MaxEventSize), found {q - p}");
        }

        next = q;
        EventState? st = GetState(rid);
        if (st is null)
        {
            if (_broken.ContainsKey(rid))
            {
                _diag?.UndecodableEvent();
                return null;
            }

            return string.Create(CultureInfo.InvariantCulture, $"an event RID defined in the file's metadata, found 0x{rid:X8} (package {XeRid.PackageIndex(rid)}, object {XeRid.ObjectIndex(rid)}, type {XeRid.ObjectType(rid)})");
        }

        st.Records++;
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
            ReadOnlySpan<uint> rids = _ridScratch.AsSpan(0, actionCount);
            if (st.LastActions is XeActionSet last && last.SameRids(rids))
            {
                set = last;
            }
            else
            {
                XeActionSet? built = BuildActionSet(rids, out string? unknown);
                if (built is null)
                {
                    return unknown;
                }

                set = built;
                st.LastActions = set;
            }

            XeColumn[] cols = set.Array;
            for (int i = 0; i < actionCount; i++)
            {
                XeColumn c = cols[i];
                int len = _lenScratch[i];
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
        _records.Add(new Record(p, payload, (int)payloadLength, payload + (int)payloadLength, st, set, time));
        return null;
    }

    private XeActionSet? BuildActionSet(ReadOnlySpan<uint> rids, out string? unknown)
    {
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

        unknown = null;
        return new XeActionSet(cols);
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
