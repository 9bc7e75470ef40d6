using System.Buffers.Binary;
using System.Globalization;
using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>
/// Walks the event records of a file's buffers against one state of its metadata: the event types and action sets it
/// defines, which records of them are wanted, and their clocks. The file reader makes a new one at each metadata
/// buffer, once every buffer before it is delivered, so the buffers in flight never see the metadata change under them.
/// </summary>
/// <remarks>
/// Used by every decode thread at once: apart from the action sets it shares between them (under a lock), it only
/// reads.
/// </remarks>
internal sealed class XelBufferDecoder
{
    private const int RecordHeaderSize = 24;
    private const uint HasActionsFlag = 0x8000_0000;
    private const long MaxFileTime = 2650467743999999999L;
    private const int MaxSharedActionSets = 64;

    private readonly IRandomAccessSource _source;
    private readonly string _file;
    private readonly XeReaderLimits _limits;
    private readonly bool _strict;
    private readonly XeSchema _schema;
    private readonly IReadOnlyDictionary<uint, string> _broken;
    private readonly Dictionary<uint, EventState> _states;

    /// <summary>Creates a decoder.</summary>
    /// <param name="source">The file.</param>
    /// <param name="limits">The reader's caps.</param>
    /// <param name="strict">Whether damage throws (else the rest of the buffer is skipped and the damage
    /// reported).</param>
    /// <param name="schema">The file's metadata as merged so far (for action sets).</param>
    /// <param name="broken">RIDs whose metadata could not be decoded, with why.</param>
    /// <param name="states">Every event type of the metadata, indexed by <see cref="EventState.Index"/>.</param>
    public XelBufferDecoder(
        IRandomAccessSource source,
        XeReaderLimits limits,
        bool strict,
        XeSchema schema,
        IReadOnlyDictionary<uint, string> broken,
        EventState[] states
    )
    {
        _source = source;
        _file = source.Name;
        _limits = limits;
        _strict = strict;
        _schema = schema;
        _broken = broken;
        States = states;
        _states = states.ToDictionary(s => s.Rid);
    }

    /// <summary>The file (as named in messages and event locations).</summary>
    public string FilePath => _file;

    /// <summary>Every event type of the metadata, indexed by <see cref="EventState.Index"/>.</summary>
    public EventState[] States { get; }

    /// <summary>
    /// What the reader knows about one event type of the current metadata. Immutable apart from the locked action-set
    /// list and <see cref="Records"/>, which the reading thread counts.
    /// </summary>
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

    /// <summary>One event record of a buffer, as the walk found it.</summary>
    internal readonly record struct Record(
        int Offset,
        int PayloadOffset,
        int PayloadLength,
        int ActionsOffset,
        int End,
        int ActionStarts,
        EventState State,
        XeActionSet Actions,
        DateTime Time
    );

    /// <summary>
    /// Reads and walks one event buffer (on a worker, or on the reading thread): reads its bytes at
    /// <see cref="XelEventBuffer.Position"/>, then its records into the buffer. Damage throws in strict mode (kept with
    /// the buffer and thrown when it is delivered); otherwise the rest of the buffer is skipped and the damage kept for
    /// the report.
    /// </summary>
    public void Decode(XelEventBuffer b)
    {
        int readable = b.Readable;
        b.EnsureCapacity(readable, States.Length);
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

    /// <summary>
    /// Walks the records of one event buffer. Returns whether the data was cut short by the end of the file.
    /// </summary>
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

                b.Damage = string.Create(
                    CultureInfo.InvariantCulture,
                    $"damaged event record (expected {problem}); the rest of the buffer at offset {b.Position} is "
                        + $"skipped"
                );
                b.DamageOffset = b.Position + p;
                return false;
            }

            p = next;
        }

        return false;
    }

    private string? ParseRecord(
        XelEventBuffer b,
        int p,
        int end,
        bool dataCutShort,
        ref EventState? last,
        out int next,
        out bool truncated
    )
    {
        next = p;
        truncated = false;
        ReadOnlySpan<byte> span = b.Data;
        int left = end - p;
        if (left < RecordHeaderSize)
        {
            truncated = dataCutShort;
            return string.Create(
                CultureInfo.InvariantCulture,
                $"a {RecordHeaderSize}-byte event record header, but only {left} bytes of buffer data remain"
            );
        }

        ReadOnlySpan<byte> h = span.Slice(p, RecordHeaderSize);
        uint rid = BinaryPrimitives.ReadUInt32LittleEndian(h);
        uint flags = BinaryPrimitives.ReadUInt32LittleEndian(h[4..]);
        ulong ticks = BinaryPrimitives.ReadUInt64LittleEndian(h[12..]);
        uint payloadLength = BinaryPrimitives.ReadUInt32LittleEndian(h[20..]);
        if (payloadLength > (uint)(left - RecordHeaderSize))
        {
            truncated = dataCutShort;
            return string.Create(
                CultureInfo.InvariantCulture,
                $"a payload within the buffer data, but the payload length {payloadLength} exceeds the "
                    + $"{left - RecordHeaderSize} bytes left"
            );
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
                    return string.Create(
                        CultureInfo.InvariantCulture,
                        $"an action value within the buffer data, but its length {alen} exceeds the {end - q - 8} "
                            + $"bytes left"
                    );
                }

                int at = q;
                q += 8 + (int)alen;
                if (XeRid.ObjectType(arid) != XeRid.TypeAction)
                {
                    break;
                }

                if (actionCount >= _limits.MaxFieldsPerEvent)
                {
                    return string.Create(
                        CultureInfo.InvariantCulture,
                        $"at most {_limits.MaxFieldsPerEvent} actions per event (XeReaderLimits.MaxFieldsPerEvent)"
                    );
                }

                b.AddAction(startsAt + actionCount, arid, (int)alen, at);
                actionCount++;
            }
        }

        if (q - p > _limits.MaxEventSize)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"an event record of at most {_limits.MaxEventSize} bytes (XeReaderLimits.MaxEventSize), found "
                    + $"{q - p}"
            );
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

            return string.Create(
                CultureInfo.InvariantCulture,
                $"an event RID defined in the file's metadata, found 0x{rid:X8} (package "
                    + $"{XeRid.PackageIndex(rid)}, object {XeRid.ObjectIndex(rid)}, type {XeRid.ObjectType(rid)})"
            );
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
            return string.Create(
                CultureInfo.InvariantCulture,
                $"a payload of at least {st.MinPayload} bytes for {st.Type.FullName}, found {payloadLength}"
            );
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
                return string.Create(
                    CultureInfo.InvariantCulture,
                    $"field '{f.Name}' of {st.Type.FullName} (offset {off}, length {len}) within the "
                        + $"{payloadLength}-byte payload"
                );
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
                    return string.Create(
                        CultureInfo.InvariantCulture,
                        $"action '{c.FullName}' of {c.Size} bytes, found {len}"
                    );
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
        int actions = actionCount > 0 ? startsAt : -1;
        int payloadEnd = payload + (int)payloadLength;
        b.AddRecord(new Record(p, payload, (int)payloadLength, payloadEnd, q, actions, st, set, time));
        return null;
    }

    /// <summary>
    /// The action set of these RIDs for an event type: one instance per distinct list (at most 64 kept per type),
    /// shared by every worker.
    /// </summary>
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
            XeColumn? c = _schema.GetAction(rids[i]);
            if (c is null)
            {
                unknown = string.Create(
                    CultureInfo.InvariantCulture,
                    $"an action RID defined in the file's metadata, found 0x{rids[i]:X8}"
                );
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
            return string.Create(
                CultureInfo.InvariantCulture,
                $"callstack '{c.Name}' whose length is a multiple of the pointer size {c.PointerSize}, found {len}"
            );
        }

        if (len / c.PointerSize > _limits.MaxCallstackFrames)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"at most {_limits.MaxCallstackFrames} callstack frames (XeReaderLimits.MaxCallstackFrames), found "
                    + $"{len / c.PointerSize}"
            );
        }

        return null;
    }

    private static string TimeProblem(ulong ticks) =>
        string.Create(CultureInfo.InvariantCulture, $"an event time within the FILETIME range, found {ticks} ticks");
}
