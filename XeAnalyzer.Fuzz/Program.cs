using System.Globalization;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Fuzz;

/// <summary>
/// A seeded, time-boxed mutation fuzzer over every input format XeAnalyzer reads: <c>.xel</c> captures, PDBs, PE
/// images, CAB (<c>.pd_</c>) files, target XML and callstack text. Each input goes through the library's reader and the
/// <c>xeanalyze</c> commands that read it, in-process. A finding is an <c>internal error</c> (or an exception outside
/// <see cref="XeFormatException"/>), a hang or unbounded allocation; clear errors for bad input are the expected
/// outcome.
/// </summary>
/// <remarks>
/// <code>
/// dotnet run -c Release --project XeAnalyzer.Fuzz -- [--seconds 120] [--seed N] [--targets xel,pdb,pe,cab,xml,text]
///     [--iterations N] [--findings DIR] [--work DIR] [--hang-seconds 30] [--memory-mb 512]
/// dotnet run -c Release --project XeAnalyzer.Fuzz -- --replay FILE|DIR...
///     (files under a folder named after the target)
/// dotnet run -c Release --project XeAnalyzer.Fuzz -- --target pdb --seed N --iteration I [--save DIR]
/// dotnet run -c Release --project XeAnalyzer.Fuzz -- --target pdb --write-seeds DIR
///     (the target's seed inputs, for afl-fuzz -i)
/// afl-fuzz ... -- dotnet XeAnalyzer.Fuzz.dll --afl pdb [--seed-input NAME]
///     (coverage-guided, see tools/fuzz/afl.sh)
/// </code>
/// Exit codes: 0 no finding, 1 findings (saved under --findings, default <c>fuzz-findings</c>), 2 usage.
/// </remarks>
internal static class Program
{
    private const int MaxSavedPerSignature = 3;

    public static int Main(string[] args)
    {
        Dictionary<string, List<string>> options;
        try
        {
            options = Parse(args);
        }
        catch (ArgumentException ex)
        {
            Console.Error.WriteLine("fuzz: " + ex.Message);
            return 2;
        }

        string repo = FuzzRunner.FindRepoRoot(AppContext.BaseDirectory);
        string work =
            One(options, "work")
            ?? Path.Combine(
                Path.GetTempPath(),
                "xeanalyzer-fuzz-" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture)
            );
        var runner = new FuzzRunner(
            work,
            TimeSpan.FromSeconds(double.Parse(One(options, "hang-seconds") ?? "30", CultureInfo.InvariantCulture)),
            long.Parse(One(options, "memory-mb") ?? "512", CultureInfo.InvariantCulture) << 20
        );
        try
        {
            if (One(options, "afl") is string aflTarget)
            {
                return Afl(repo, runner, aflTarget, One(options, "seed-input"));
            }

            if (One(options, "write-seeds") is string seedsDir)
            {
                FuzzTarget t = FuzzTarget.Create(
                    One(options, "target") ?? throw new ArgumentException("--write-seeds needs --target"),
                    repo
                );
                Directory.CreateDirectory(seedsDir);
                foreach (FuzzSeed s in t.Seeds)
                {
                    File.WriteAllBytes(Path.Combine(seedsDir, s.Name), s.Bytes);
                }

                Console.WriteLine(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"fuzz: {t.Seeds.Count} seed input(s) of {t.Name} written to {seedsDir}"
                    )
                );
                return 0;
            }

            if (options.TryGetValue("replay", out List<string>? replay))
            {
                return Replay(repo, runner, replay);
            }

            if (One(options, "iteration") is string iteration)
            {
                return ReproduceOne(
                    repo,
                    runner,
                    One(options, "target") ?? throw new ArgumentException("--iteration needs --target"),
                    Seed(options),
                    long.Parse(iteration, CultureInfo.InvariantCulture),
                    One(options, "save")
                );
            }

            return Fuzz(repo, runner, options);
        }
        finally
        {
            if (Directory.Exists(work))
            {
                Directory.Delete(work, recursive: true);
            }
        }
    }

    private static int Seed(Dictionary<string, List<string>> options) =>
        One(options, "seed") is string s
            ? s.StartsWith("0x", StringComparison.OrdinalIgnoreCase)
                ? unchecked((int)uint.Parse(s.AsSpan(2), NumberStyles.HexNumber, CultureInfo.InvariantCulture))
                : int.Parse(s, CultureInfo.InvariantCulture)
            : 1;

    private static int Fuzz(string repo, FuzzRunner runner, Dictionary<string, List<string>> options)
    {
        int seed = Seed(options);
        double seconds = double.Parse(One(options, "seconds") ?? "60", CultureInfo.InvariantCulture);
        long maxIterations = long.Parse(
            One(options, "iterations") ?? long.MaxValue.ToString(CultureInfo.InvariantCulture),
            CultureInfo.InvariantCulture
        );
        string findingsDir = Path.GetFullPath(One(options, "findings") ?? "fuzz-findings");
        string[] names = (One(options, "targets") ?? string.Join(',', FuzzTarget.Names)).Split(
            ',',
            StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries
        );
        var targets = names.Select(n => FuzzTarget.Create(n, repo)).ToList();
        TimeSpan budget = TimeSpan.FromSeconds(seconds / targets.Count);
        var counts = new List<string>();
        var signatures = new Dictionary<string, int>(StringComparer.Ordinal);
        long total = 0;
        int findings = 0;
        var started = System.Diagnostics.Stopwatch.StartNew();
        Directory.CreateDirectory(findingsDir);
        string inFlight = Path.Combine(findingsDir, "in-flight.txt");
        foreach (FuzzTarget target in targets)
        {
            var watch = System.Diagnostics.Stopwatch.StartNew();
            long i = 0;
            TimeSpan slowest = TimeSpan.Zero;
            for (; i < maxIterations && watch.Elapsed < budget; i++)
            {
                // If the process dies (a stack overflow cannot be caught), this file says which input did it.
                File.WriteAllText(
                    inFlight,
                    $"{target.Name} seed {seed} iteration {i}: dotnet run -c Release --project XeAnalyzer.Fuzz -- "
                        + $"--target {target.Name} --seed {seed} --iteration {i} --save DIR\n"
                );
                byte[] input = FuzzRunner.Input(target, seed, i, out FuzzSeed from);
                FuzzVerdict verdict = runner.RunOne(target, from, input);
                slowest = verdict.Elapsed > slowest ? verdict.Elapsed : slowest;
                if (!verdict.IsFinding)
                {
                    continue;
                }

                findings++;
                string signature =
                    target.Name
                    + "|"
                    + verdict.Kind
                    + "|"
                    + Regex.Replace(verdict.Detail.Split('\n')[0], "[0-9]+", "#");
                int seen = signatures.GetValueOrDefault(signature);
                signatures[signature] = seen + 1;
                if (seen < MaxSavedPerSignature)
                {
                    string path = Save(
                        findingsDir,
                        target,
                        from,
                        input,
                        verdict,
                        $"--target {target.Name} --seed {seed} --iteration {i}"
                    );
                    Console.WriteLine(
                        $"fuzz: FINDING {verdict.Kind} in {target.Name} (seed {seed}, iteration {i}): "
                            + $"{verdict.Detail.Split('\n')[0]} -> {path}"
                    );
                }

                if (verdict.Kind == FindingKind.Hang)
                {
                    // The hung thread cannot be stopped: report and end the run here.
                    i++;
                    break;
                }
            }

            total += i;
            string exits = string.Join(
                ", ",
                FuzzExecution
                    .ExitCounts.OrderBy(kv => kv.Key, StringComparer.Ordinal)
                    .Select(kv => kv.Key + ":" + kv.Value.ToString(CultureInfo.InvariantCulture))
            );
            FuzzExecution.ExitCounts.Clear();
            counts.Add(string.Create(CultureInfo.InvariantCulture, $"{target.Name} {i}"));
            Console.WriteLine(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"fuzz: {target.Name}: {i} executions in {watch.Elapsed.TotalSeconds:0.0} s, "
                        + $"{target.Seeds.Count} seeds, slowest input {slowest.TotalMilliseconds:0} ms; exit codes "
                        + $"(command code:count) {exits}"
                )
            );
            if (signatures.Keys.Any(k => k.Contains("|Hang|", StringComparison.Ordinal)))
            {
                break;
            }
        }

        File.Delete(inFlight);
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"fuzz: seed {seed}: {total} executions in {started.Elapsed.TotalSeconds:0} s over {counts.Count} "
                    + $"targets ({string.Join(", ", counts)}); {findings} finding(s) in {signatures.Count} distinct "
                    + $"signature(s)"
            )
        );
        foreach ((string signature, int count) in signatures.OrderBy(kv => kv.Key, StringComparer.Ordinal))
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"fuzz:   {count} x {signature}"));
        }

        return findings == 0 ? 0 : 1;
    }

    private static string Save(
        string dir,
        FuzzTarget target,
        FuzzSeed seed,
        byte[] input,
        FuzzVerdict verdict,
        string reproduce
    )
    {
        string folder = Path.Combine(dir, target.Name);
        Directory.CreateDirectory(folder);
        string path = Path.Combine(folder, FuzzRunner.FindingFileName(seed, input));
        File.WriteAllBytes(path, input);
        File.WriteAllText(
            Path.ChangeExtension(path, ".txt"),
            $"{verdict.Kind}: {verdict.Detail}\nseed input: {seed.Name}\nreproduce: dotnet run -c Release --project "
                + $"XeAnalyzer.Fuzz -- {reproduce}\n   or: dotnet run -c Release --project XeAnalyzer.Fuzz -- --replay "
                + $"{path}\n"
        );
        return path;
    }

    /// <summary>
    /// Runs under afl-fuzz (SharpFuzz's fork-server emulation): each input AFL sends goes through the same harness, and
    /// a finding is thrown so that AFL records the input as a crash (a hang is AFL's own timeout, <c>-t</c>).
    /// </summary>
    private static int Afl(string repo, FuzzRunner runner, string targetName, string? seedInput)
    {
        // Instrumented code may run only inside Run (which maps AFL's coverage memory): the target, whose seeds are
        // read by the library, is built on the first input.
        FuzzTarget? target = null;
        FuzzSeed? seed = null;
        SharpFuzz.Fuzzer.OutOfProcess.Run(stream =>
        {
            target ??= FuzzTarget.Create(targetName, repo);
            seed ??= target.SeedNamed(seedInput ?? target.Seeds[0].Name);
            using var buffer = new MemoryStream();
            stream.CopyTo(buffer);
            FuzzVerdict verdict = runner.RunOne(target, seed, buffer.ToArray());
            if (verdict.IsFinding)
            {
                throw new InvalidOperationException("fuzz finding (" + verdict.Kind + "): " + verdict.Detail);
            }
        });
        return 0;
    }

    private static int Replay(string repo, FuzzRunner runner, List<string> paths)
    {
        var files = new List<string>();
        foreach (string p in paths)
        {
            files.AddRange(
                Directory.Exists(p)
                    ? Directory.GetFiles(p, "*.bin", SearchOption.AllDirectories).Order(StringComparer.Ordinal)
                    : [p]
            );
        }

        int findings = 0;
        foreach (string file in files)
        {
            string targetName = Path.GetFileName(Path.GetDirectoryName(Path.GetFullPath(file)))!;
            FuzzTarget target = FuzzTarget.Create(targetName, repo);
            FuzzVerdict verdict = runner.RunOne(target, FuzzRunner.SeedOfFile(target, file), File.ReadAllBytes(file));
            Console.WriteLine(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"fuzz: replay {file}: {(verdict.IsFinding ? verdict.Kind + ": " + verdict.Detail : "ok")} "
                        + $"({verdict.Elapsed.TotalMilliseconds:0} ms, {verdict.AllocatedBytes:N0} bytes allocated)"
                )
            );
            findings += verdict.IsFinding ? 1 : 0;
        }

        Console.WriteLine(
            string.Create(CultureInfo.InvariantCulture, $"fuzz: replayed {files.Count} input(s); {findings} finding(s)")
        );
        return findings == 0 ? 0 : 1;
    }

    private static int ReproduceOne(
        string repo,
        FuzzRunner runner,
        string targetName,
        int seed,
        long iteration,
        string? saveDir
    )
    {
        FuzzTarget target = FuzzTarget.Create(targetName, repo);
        byte[] input = FuzzRunner.Input(target, seed, iteration, out FuzzSeed from);
        FuzzVerdict verdict = runner.RunOne(target, from, input);
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"fuzz: {targetName} seed {seed} iteration {iteration} (from seed input {from.Name}, {input.Length} "
                    + $"bytes): {(verdict.IsFinding ? verdict.Kind + ": " + verdict.Detail : "ok")}"
            )
        );
        if (saveDir is not null)
        {
            Console.WriteLine(
                "fuzz: saved "
                    + Save(
                        saveDir,
                        target,
                        from,
                        input,
                        verdict,
                        $"--target {targetName} --seed {seed} --iteration {iteration}"
                    )
            );
        }

        return verdict.IsFinding ? 1 : 0;
    }

    private static string? One(Dictionary<string, List<string>> options, string name) =>
        options.TryGetValue(name, out List<string>? values) && values.Count > 0 ? values[^1] : null;

    private static Dictionary<string, List<string>> Parse(string[] args)
    {
        string[] known =
        [
            "seconds",
            "seed",
            "targets",
            "iterations",
            "findings",
            "work",
            "hang-seconds",
            "memory-mb",
            "replay",
            "target",
            "iteration",
            "save",
            "afl",
            "seed-input",
            "write-seeds",
        ];
        var options = new Dictionary<string, List<string>>(StringComparer.Ordinal);
        string? current = null;
        foreach (string a in args)
        {
            if (a.StartsWith("--", StringComparison.Ordinal))
            {
                current = a[2..];
                if (!known.Contains(current))
                {
                    throw new ArgumentException("unknown option " + a + " (see XeAnalyzer.Fuzz/Program.cs for usage)");
                }

                options.TryAdd(current, []);
            }
            else if (current is null)
            {
                throw new ArgumentException("unexpected argument " + a);
            }
            else
            {
                options[current].Add(a);
            }
        }

        return options;
    }
}
