using System.Globalization;
using System.Security.Cryptography;

namespace XeAnalyzer.Fuzz;

/// <summary>
/// Runs inputs through a <see cref="FuzzTarget"/> one at a time, each on its own thread under a hang limit, measuring
/// what the process allocated meanwhile. Input <c>i</c> of a target under seed <c>s</c> is always the same bytes
/// (<see cref="Input"/>), so any finding is reproduced by its seed and iteration, or by the saved file.
/// </summary>
public sealed class FuzzRunner
{
    private readonly string _workRoot;

    /// <summary>Creates a runner whose scratch files go under <paramref name="workRoot"/>.</summary>
    /// <param name="workRoot">A folder for the inputs' files (one subfolder per target, reused).</param>
    /// <param name="hangLimit">How long one input may take before it counts as a hang.</param>
    /// <param name="memoryLimitBytes">How much one input may make the process allocate (plus 256 bytes per input
    /// byte).</param>
    public FuzzRunner(string workRoot, TimeSpan hangLimit, long memoryLimitBytes)
    {
        _workRoot = Path.GetFullPath(workRoot);
        HangLimit = hangLimit;
        MemoryLimitBytes = memoryLimitBytes;
    }

    /// <summary>How long one input may take.</summary>
    public TimeSpan HangLimit { get; }

    /// <summary>How much one input may make the process allocate, before the per-byte allowance.</summary>
    public long MemoryLimitBytes { get; }

    /// <summary>Input <paramref name="iteration"/> of <paramref name="target"/> under <paramref name="seed"/>, and the
    /// seed input it mutates.</summary>
    public static byte[] Input(FuzzTarget target, int seed, long iteration, out FuzzSeed seedInput)
    {
        ArgumentNullException.ThrowIfNull(target);
        int targetIndex = Math.Max(0, FuzzTarget.Names.ToList().IndexOf(target.Name));
        ulong mixed = unchecked(
            ((ulong)(uint)seed * 0x9E3779B97F4A7C15UL)
            ^ ((ulong)targetIndex << 56)
            ^ ((ulong)iteration * 0xBF58476D1CE4E5B9UL)
        );
        mixed ^= mixed >> 31;
        var random = new Random(unchecked((int)(mixed ^ (mixed >> 32))));
        seedInput = target.Seeds[random.Next(target.Seeds.Count)];
        FuzzSeed other = target.Seeds[random.Next(target.Seeds.Count)];
        return target.Mutate(seedInput.Bytes, other.Bytes, random);
    }

    /// <summary>Runs one input; never throws for what the input does (that is the verdict).</summary>
    public FuzzVerdict RunOne(FuzzTarget target, FuzzSeed seed, byte[] input)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(input);
        string work = Path.Combine(_workRoot, target.Name);
        if (Directory.Exists(work))
        {
            Directory.Delete(work, recursive: true);
        }

        Directory.CreateDirectory(work);
        var execution = new FuzzExecution(work);
        Exception? escaped = null;
        long before = GC.GetTotalAllocatedBytes(precise: false);
        var watch = System.Diagnostics.Stopwatch.StartNew();
        var thread = new Thread(
            () =>
            {
                try
                {
                    target.Execute(seed, input, execution);
                }
#pragma warning disable CA1031 // an exception escaping the harness is recorded as the finding
                catch (Exception ex)
#pragma warning restore CA1031
                {
                    escaped = ex;
                }
            },
            maxStackSize: 16 << 20
        )
        {
            IsBackground = true,
            Name = "fuzz " + target.Name,
        };
        thread.Start();
        if (!thread.Join(HangLimit))
        {
            return new FuzzVerdict(
                FindingKind.Hang,
                string.Create(CultureInfo.InvariantCulture, $"still running after {HangLimit.TotalSeconds:0} s"),
                watch.Elapsed,
                GC.GetTotalAllocatedBytes(precise: false) - before
            );
        }

        TimeSpan elapsed = watch.Elapsed;
        long allocated = GC.GetTotalAllocatedBytes(precise: false) - before;
        if (escaped is not null)
        {
            return new FuzzVerdict(
                FindingKind.InternalError,
                "the harness threw " + escaped.GetType().Name + ": " + escaped.Message,
                elapsed,
                allocated
            );
        }

        if (execution.Problems.Count > 0)
        {
            return new FuzzVerdict(
                FindingKind.InternalError,
                string.Join("\n", execution.Problems),
                elapsed,
                allocated
            );
        }

        long limit = MemoryLimitBytes + (256L * input.Length);
        if (allocated > limit)
        {
            return new FuzzVerdict(
                FindingKind.Memory,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"allocated {allocated:N0} bytes for a {input.Length:N0}-byte input (limit {limit:N0})"
                ),
                elapsed,
                allocated
            );
        }

        return new FuzzVerdict(FindingKind.None, string.Empty, elapsed, allocated);
    }

    /// <summary>A stable file name for a finding: the seed's name (so the finding replays against it) and a hash of the
    /// bytes.</summary>
    public static string FindingFileName(FuzzSeed seed, byte[] input)
    {
        ArgumentNullException.ThrowIfNull(seed);
        return seed.Name + "." + Convert.ToHexStringLower(SHA256.HashData(input))[..12] + ".bin";
    }

    /// <summary>The seed a saved finding replays against: the file name up to its first dot.</summary>
    public static FuzzSeed SeedOfFile(FuzzTarget target, string path)
    {
        ArgumentNullException.ThrowIfNull(target);
        string name = Path.GetFileName(path);
        int dot = name.IndexOf('.', StringComparison.Ordinal);
        return target.SeedNamed(dot > 0 ? name[..dot] : name);
    }

    /// <summary>The repository root: the nearest folder above <paramref name="start"/> holding
    /// <c>XeAnalyzer.sln</c>.</summary>
    public static string FindRepoRoot(string start)
    {
        for (string? dir = Path.GetFullPath(start); dir is not null; dir = Path.GetDirectoryName(dir))
        {
            if (File.Exists(Path.Combine(dir, "XeAnalyzer.sln")))
            {
                return dir;
            }
        }

        throw new DirectoryNotFoundException("XeAnalyzer.sln not found above " + start);
    }
}
