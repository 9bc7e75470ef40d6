namespace XeAnalyzer.Xel;

/// <summary>
/// Caps on every size and count the <c>.xel</c> reader takes from a file, so a damaged or hostile file cannot cause an
/// unbounded allocation. A value past a limit is reported as malformed input (<see cref="InvalidXelDataException"/>).
/// </summary>
/// <remarks>Immutable; each property validates its value.</remarks>
internal sealed class XeReaderLimits
{
    private readonly int _maxBufferSize = 64 * 1024 * 1024;
    private readonly int _maxEventSize = 16 * 1024 * 1024;
    private readonly int _maxFieldsPerEvent = 4096;
    private readonly int _maxCallstackFrames = 4096;
    private readonly int _maxMetadataObjects = 1_000_000;

    /// <summary>The default limits.</summary>
    public static XeReaderLimits Default { get; } = new();

    /// <summary>Largest buffer (padded length) accepted, in bytes. Default 64 MiB.</summary>
    public int MaxBufferSize
    {
        get => _maxBufferSize;
        init => _maxBufferSize = Check(value, 1024, nameof(MaxBufferSize));
    }

    /// <summary>Largest event record (header, payload and actions) accepted, in bytes. Default 16 MiB.</summary>
    public int MaxEventSize
    {
        get => _maxEventSize;
        init => _maxEventSize = Check(value, 64, nameof(MaxEventSize));
    }

    /// <summary>Most fields per event type and most actions per event. Default 4096.</summary>
    public int MaxFieldsPerEvent
    {
        get => _maxFieldsPerEvent;
        init => _maxFieldsPerEvent = Check(value, 1, nameof(MaxFieldsPerEvent));
    }

    /// <summary>Most frames in one callstack value. Default 4096 (SQL Server captures at most 255).</summary>
    public int MaxCallstackFrames
    {
        get => _maxCallstackFrames;
        init => _maxCallstackFrames = Check(value, 1, nameof(MaxCallstackFrames));
    }

    /// <summary>Most metadata objects (events, actions, maps, types, map entries, attributes) per package. Default
    /// 1,000,000.</summary>
    public int MaxMetadataObjects
    {
        get => _maxMetadataObjects;
        init => _maxMetadataObjects = Check(value, 1, nameof(MaxMetadataObjects));
    }

    private static int Check(int value, int min, string name)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(value, min, name);
        return value;
    }
}
