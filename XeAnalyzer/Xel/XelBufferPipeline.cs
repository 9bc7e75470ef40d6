using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>
/// Decodes the event buffers of a read ahead of the reading thread and hands them back in file order
/// (<see cref="OrderedPipeline{T}"/>: decode threads and the reading thread itself), from a window of at most eight
/// times <see cref="XelReadOptions.DecodeThreads"/> buffers, 64 at most, so memory does not grow with the file. The
/// reading thread never waits for a buffer no one has started: it decodes it itself, so the read progresses even when
/// the decode threads get no processor (batch mode, a busy machine).
/// </summary>
/// <remarks>Used from one reading thread. A pooled pipeline reuses each buffer once its events are delivered.</remarks>
internal sealed class XelBufferPipeline
{
    private readonly OrderedPipeline<XelEventBuffer> _decoding;
    private readonly Stack<XelEventBuffer> _free = new();
    private readonly bool _pooled;
    private readonly int _window;

    /// <summary>Creates a pipeline.</summary>
    /// <param name="threads">Threads that decode (the reading thread included); 1 decodes on the reading thread
    /// only.</param>
    /// <param name="pooled">Whether buffers are reused once delivered (events are then transient views).</param>
    public XelBufferPipeline(int threads, bool pooled)
    {
        _pooled = pooled;
        _window = threads > 1 ? Math.Min(threads * 8, 64) : 1;
        _decoding = new OrderedPipeline<XelEventBuffer>(b => b.Decode(), threads, _window, "xel decode");
    }

    /// <summary>Whether another buffer may be dispatched now.</summary>
    public bool CanDispatch => _decoding.HasRoom;

    /// <summary>Buffers dispatched and not yet taken.</summary>
    public int InFlight => _decoding.Count;

    /// <summary>Queues one event buffer for decoding.</summary>
    public void Dispatch(
        XelBufferDecoder decoder,
        long position,
        int dataOffset,
        int dataEnd,
        int readable,
        int paddedLength
    ) => _decoding.Add(Rent(decoder, position, dataOffset, dataEnd, readable, paddedLength));

    /// <summary>Decodes one event buffer on the reading thread, now (nothing else is in flight).</summary>
    public XelEventBuffer DecodeHere(
        XelBufferDecoder decoder,
        long position,
        int dataOffset,
        int dataEnd,
        int readable,
        int paddedLength
    )
    {
        XelEventBuffer b = Rent(decoder, position, dataOffset, dataEnd, readable, paddedLength);
        b.Decode();
        return b;
    }

    /// <summary>The next buffer in file order, decoded.</summary>
    public XelEventBuffer TakeNext() =>
        _decoding.TryTake(out XelEventBuffer? b) ? b : throw new InvalidOperationException("No buffer is in flight.");

    /// <summary>Gives back a delivered buffer.</summary>
    public void Release(XelEventBuffer b)
    {
        b.Clear();
        if (_free.Count <= _window)
        {
            _free.Push(b);
        }
    }

    /// <summary>
    /// Drops every buffer still in the window (the read ended early or failed), waiting for the ones being decoded.
    /// </summary>
    public void Abandon() => _decoding.Discard(Release);

    /// <summary>Ends the read: abandons what is left and ends the decode threads.</summary>
    public void Close()
    {
        Abandon();
        _decoding.Close();
    }

    private XelEventBuffer Rent(
        XelBufferDecoder decoder,
        long position,
        int dataOffset,
        int dataEnd,
        int readable,
        int paddedLength
    )
    {
        XelEventBuffer b = _free.Count > 0 ? _free.Pop() : new XelEventBuffer(_pooled);
        b.Reset(decoder, position, dataOffset, dataEnd, readable, paddedLength);
        return b;
    }
}
