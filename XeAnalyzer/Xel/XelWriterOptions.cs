namespace XeAnalyzer.Xel;

/// <summary>Options of <see cref="XelWriter"/>.</summary>
internal sealed class XelWriterOptions
{
    private readonly int _bufferSize = 64 * 1024;
    private readonly int _partitions = 1;
    private readonly DateTime _startTimeUtc = new(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private readonly ulong _frequency = 10_000_000;

    /// <summary>The packages' start time; every event must be at or after it. Default 2000-01-01 UTC.</summary>
    public DateTime StartTimeUtc
    {
        get => _startTimeUtc;
        init =>
            _startTimeUtc =
                value.Kind == DateTimeKind.Utc
                    ? value
                    : DateTime.SpecifyKind(value.ToUniversalTime(), DateTimeKind.Utc);
    }

    /// <summary>Tick frequency written into each package (ticks per second). Default 10,000,000 (100 ns ticks,
    /// exact).</summary>
    public ulong Frequency
    {
        get => _frequency;
        init =>
            _frequency =
                value > 0
                    ? value
                    : throw new ArgumentOutOfRangeException(
                        nameof(Frequency),
                        value,
                        "The frequency must be positive."
                    );
    }

    /// <summary>Size of an event buffer in bytes: a multiple of 512, at least 1024. Default 64 KiB. Larger events get a
    /// buffer of their own.</summary>
    public int BufferSize
    {
        get => _bufferSize;
        init =>
            _bufferSize =
                value >= 1024 && value % 512 == 0
                    ? value
                    : throw new ArgumentOutOfRangeException(
                        nameof(BufferSize),
                        value,
                        "The buffer size must be a multiple of 512 and at least 1024."
                    );
    }

    /// <summary>Number of per-CPU buffer slots (1–64): events go to slot <c>n % Partitions</c> unless a slot is given.
    /// Default 1.</summary>
    public int Partitions
    {
        get => _partitions;
        init =>
            _partitions = value is >= 1 and <= 64
                ? value
                : throw new ArgumentOutOfRangeException(nameof(Partitions), value, "Partitions must be 1..64.");
    }

    /// <summary>Write metadata as SQL Server does: a first buffer with <c>package0</c>'s types, then a second with
    /// every package. Default false (one metadata buffer).</summary>
    public bool SplitMetadata { get; init; }

    /// <summary>The session signature GUID written into packages and event buffers. Default a fixed GUID, so output is
    /// deterministic.</summary>
    public Guid Signature { get; init; } = new("5e7a1c0d-7e1a-4c3b-9a1f-0b5d2c8e4f60");
}
