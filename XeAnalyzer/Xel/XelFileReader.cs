using System.Globalization;
using System.Runtime.ExceptionServices;
using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>
/// Reads the buffers of one <c>.xel</c> file: merges its metadata and turns its event records into
/// <see cref="XEvent"/>s.
/// </summary>
/// <remarks>
/// <para>Event buffers are independent once the metadata before them is read, so they are decoded ahead, in parallel
/// (<see cref="XelBufferPipeline"/>: a window of buffers read and walked by decode threads and by the reading thread
/// itself, each with the <see cref="XelBufferDecoder"/> of the metadata before it), and delivered in file order.
/// Everything the reader decides beyond one buffer (buffer headers, damaged headers, metadata, the end of the file,
/// warnings and counts) stays on the reading thread, in file order, as in a sequential read: a metadata buffer, a
/// damaged header or the end of the data is handled only once every buffer before it has been delivered.</para>
/// <para>Per-record results (undecodable events, a damaged record, the record counts of
/// <see cref="XelReadOptions.Tally"/>) are kept with the buffer by the worker and reported by the reading thread when
/// it delivers that buffer, so warnings and counts come out exactly as a sequential read gives them; in strict mode the
/// exception is thrown when the damaged buffer's turn comes.</para>
/// </remarks>
internal sealed class XelFileReader
{
    private const long MaxFileTime = 2650467743999999999L;

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
    private XelBufferDecoder _decoder;
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
        _decoder = new XelBufferDecoder(source, _limits, _strict, Schema, _broken, []);
    }

    /// <summary>The file (as named in messages and event locations).</summary>
    public string FilePath => _file;

    /// <summary>The file's metadata, as merged so far.</summary>
    public XeSchema Schema { get; } = new();

    /// <summary>Buffers read (metadata and events).</summary>
    public int BufferCount { get; private set; }

    /// <summary>Metadata buffers read.</summary>
    public int MetadataBufferCount { get; private set; }

    /// <summary>The earliest package start time of the metadata read so far (no event of the file is earlier), or
    /// <see langword="null"/>.</summary>
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

    /// <summary>Reads the file's events; each owns its buffer (see <see cref="XEvent.IsTransient"/>).</summary>
    public IEnumerable<XEvent> Read(bool metadataOnly, CancellationToken cancellationToken)
    {
        foreach (XelEventBuffer b in ReadBuffers(metadataOnly, cancellationToken))
        {
            XelBufferDecoder.Record[] records = b.Records;
            for (int i = 0; i < b.Count; i++)
            {
                XelBufferDecoder.Record rec = records[i];
                var e = new XEvent(
                    rec.State.Type,
                    rec.Time,
                    b.Data,
                    rec.PayloadOffset,
                    rec.PayloadLength,
                    rec.ActionsOffset,
                    rec.Actions,
                    new XeSourceLocation(_file, b.Position + rec.Offset)
                );
                if (rec.ActionStarts >= 0)
                {
                    e.SetActionStarts(b.ActionStarts, rec.ActionStarts);
                }

                yield return e;
            }
        }
    }

    /// <summary>
    /// Reads the file buffer by buffer: each event buffer is yielded decoded (its records), in file order. The caller
    /// must be done with a buffer's records before asking for the next one: a pooled pipeline reuses the buffer then.
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
            _options.Tally?.FileRead(new XelFileFacts(_file, _source.Length, Schema, BufferCount, MetadataBufferCount));
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
            // Dispatch: event buffers whose data the file holds entirely are decoded ahead; anything else waits until
            // every buffer before it has been delivered, then is handled here as a sequential read would.
            while (pos < fileLength && _pipeline.CanDispatch && !metadataOnly)
            {
                if (fileLength - pos < XelBufferHeader.Size || _source.Read(pos, hb) < XelBufferHeader.Size)
                {
                    break;
                }

                XelBufferHeader ahead = XelBufferHeader.Parse(hb);
                if (
                    ahead.Type != XelBufferType.Event
                    || ahead.Validate(_limits) is not null
                    || fileLength - pos < ahead.PaddedLength
                )
                {
                    break;
                }

                BufferCount++;
                int aheadEnd = ahead.DataOffset + (int)ahead.DataLength;
                _pipeline.Dispatch(_decoder, pos, ahead.DataOffset, aheadEnd, aheadEnd, (int)ahead.PaddedLength);
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
                    Incomplete(
                        done.Position,
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"the final buffer is incomplete ({done.PaddedLength} of {done.PaddedLength} bytes); "
                                + $"every complete event before the cut was read"
                        )
                    );
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
                Incomplete(
                    pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"the file ends {fileLength - pos} bytes into a buffer header; the rest of the file is ignored"
                    )
                );
                yield break;
            }

            _source.Read(pos, hb);
            if (Array.TrueForAll(hb, b => b == 0))
            {
                _diag?.Warn(
                    _file,
                    pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"the last {fileLength - pos} bytes are zero-filled (no further buffers)"
                    )
                );
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
                    _diag?.Warn(
                        _file,
                        pos,
                        "damaged buffer header skipped (expected " + problem + "); looking for the next buffer"
                    );
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
                    int readable = (int)Math.Min(dataEnd, available);
                    XelEventBuffer one = _pipeline.DecodeHere(
                        _decoder,
                        pos,
                        bh.DataOffset,
                        dataEnd,
                        readable,
                        (int)bh.PaddedLength
                    );
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
                        _diag?.Warn(
                            _file,
                            pos,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"buffer of type {(ushort)bh.Type} (header/index) skipped: its layout is undocumented"
                            )
                        );
                    }

                    break;
            }

            if (cutShort)
            {
                Incomplete(
                    pos,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"the final buffer is incomplete ({available} of {bh.PaddedLength} bytes); every complete "
                            + $"event before the cut was read"
                    )
                );
                yield break;
            }

            pos += bh.PaddedLength;
        }
    }

    /// <summary>
    /// Reports what the worker found in a buffer (in the order a sequential read reports it) and says whether its
    /// events are delivered and whether the read stops after it (the file shrank while being read, or its data is cut
    /// short).
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

        XelBufferDecoder.EventState[] states = _decoder.States;
        for (int i = 0; i < states.Length && i < b.Counts.Length; i++)
        {
            if (b.Counts[i] > 0)
            {
                states[i].Records += b.Counts[i];
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
            XelMetadataReader.Parse(
                meta.AsSpan(bh.DataOffset),
                pos + bh.DataOffset,
                _file,
                Schema,
                _clocks,
                _limits,
                _strict,
                _broken
            );
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

            _diag?.Warn(
                _file,
                pos,
                "objects of RID 0x"
                    + b.Key.ToString("X8", CultureInfo.InvariantCulture)
                    + " cannot be decoded: "
                    + b.Value
            );
        }

        FoldTally();
        BuildStates();
    }

    /// <summary>
    /// The decoder of the metadata read so far: its view of every event type (read-only while buffers are decoded).
    /// </summary>
    private void BuildStates()
    {
        var seen = new HashSet<uint>();
        var list = new List<XelBufferDecoder.EventState>();
        IReadOnlyCollection<string>? names = _options.EventNames;
        foreach (XeEventType listed in Schema.EventTypes)
        {
            if (Schema.GetEventType(listed.Rid) is not XeEventType type || !seen.Add(type.Rid))
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
            list.Add(new XelBufferDecoder.EventState(type, included, clock, [.. vars], list.Count));
        }

        _decoder = new XelBufferDecoder(_source, _limits, _strict, Schema, _broken, [.. list]);
    }

    /// <summary>Adds the records counted per event type to <see cref="XelReadOptions.Tally"/> and resets the
    /// counts.</summary>
    private void FoldTally()
    {
        if (_options.Tally is not XelEventTally tally)
        {
            return;
        }

        foreach (XelBufferDecoder.EventState st in _decoder.States)
        {
            if (st.Records > 0)
            {
                tally.Add(st.Type.FullName, st.Records);
                st.Records = 0;
            }
        }
    }
}
