using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Undecoration;

namespace XeAnalyzer.Benchmarks;

/// <summary>
/// Time of the text paths whose speed the unit tests used to assert (tests no longer time anything): frame text with
/// pathological 2-million-character lines (each grammar's scanner must stay linear), and the MSVC undecorator over the
/// committed corpus and over refused hostile names. Usage: <c>dotnet run -c Release --project XeAnalyzer.Benchmarks --
/// text [--runs 5]</c>. Every run is printed, then min/median/max per case.
/// </summary>
internal static class TextBenchmark
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static int Run(string[] args)
    {
        int runs = 5;
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            if (args[i] == "--runs")
            {
                runs = int.Parse(args[i + 1], Ic);
            }
        }

        string corpus = Path.Combine(RepoRoot(), "XeAnalyzer.Tests", "TestData", "undname", "clang-corpus.tsv");
        string[] names =
        [
            .. File.ReadLines(corpus).Where(l => l.Length > 0 && l[0] != '#').Select(l => l.Split('\t')[1]),
        ];
        var cases = new List<(string Name, Func<long> Body)>();
        foreach (char c in new[] { ' ', '<', '!', '+', '`', '(' })
        {
            string line = "sqlmin!Foo::operator" + new string(c, 2_000_000) + "+0x1";
            string text = line + "\n" + line.Replace(' ', '<');
            cases.Add(
                (
                    $"frame text, two 2,000,000-char lines of '{c}'",
                    () => StackTextReader.Parse(text).Sum(s => (long)s.Lines.Length)
                )
            );
        }

        // The parse that bounds `resolve` of plain text: 2,000,000 module+offset lines drawn (seeded) from 1,620
        // distinct ones, a blank line after every 25, as the resolve benchmark generates them (the result is the line
        // count, so ns per line = ms * 1e6 / result).
        var random = new Random(12);
        string[] modules = ["sqlmin.dll", "sqllang.dll", "sqldk.dll", "sqlTsEs.dll"];
        string[] pool =
        [
            .. Enumerable
                .Range(0, 1620)
                .Select(i => string.Create(Ic, $"{modules[i % 4]}+0x{0x1000 + (i * 0x1F):X16}")),
        ];
        var plain = new System.Text.StringBuilder();
        for (int i = 1; i <= 2_000_000; i++)
        {
            plain.Append(pool[random.Next(pool.Length)]).Append('\n');
            if (i % 25 == 0)
            {
                plain.Append('\n');
            }
        }

        string plainText = plain.ToString();
        cases.Add(
            (
                "plain text, 2,000,000 module+offset lines of 1,620 distinct (StackTextReader, lines interned, "
                    + "streamed)",
                () =>
                {
                    using var reader = new StackTextReader(new StringReader(plainText));
                    return reader.ReadStacks().Sum(s => (long)s.Lines.Length);
                }
            )
        );

        cases.Add(
            (
                $"UndecorateNameOnly, 50,000 corpus names ({names.Length} distinct)",
                () =>
                {
                    long n = 0;
                    while (n < 50_000)
                    {
                        foreach (string name in names)
                        {
                            _ = MsvcNameUndecorator.UndecorateNameOnly(name);
                            n++;
                        }
                    }

                    return n;
                }
            )
        );
        string[] hostile =
        [
            "?f@@YAX" + string.Concat(Enumerable.Repeat("PA", 100_000)) + "H@Z",
            "?f@" + string.Concat(Enumerable.Repeat("?$A@V", 20_000)) + "@@YAXXZ",
            string.Concat(Enumerable.Repeat("?x@?1?", 20_000)) + "?f@@YAXXZ@4HA",
        ];
        cases.Add(
            (
                "TryUndecorate, 3 refused hostile names (deep pointers, templates, scopes)",
                () => hostile.Count(h => !MsvcNameUndecorator.TryUndecorate(h, out _))
            )
        );

        Console.WriteLine(
            string.Create(
                Ic,
                $"text benchmark: {runs} run(s) per case, {Environment.ProcessorCount} core(s), .NET "
                    + $"{Environment.Version}"
            )
        );
        foreach ((string name, Func<long> body) in cases)
        {
            _ = body(); // warm-up
            var ms = new List<double>();
            for (int r = 0; r < runs; r++)
            {
                long start = Stopwatch.GetTimestamp();
                long result = body();
                double elapsed = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                ms.Add(elapsed);
                Console.WriteLine(string.Create(Ic, $"  {name}: run {r + 1}: {elapsed:F1} ms (result {result})"));
            }

            ms.Sort();
            Console.WriteLine(
                string.Create(Ic, $"{name}: min {ms[0]:F1} ms, median {ms[ms.Count / 2]:F1} ms, max {ms[^1]:F1} ms")
            );
        }

        return 0;
    }

    private static string RepoRoot()
    {
        string? dir = AppContext.BaseDirectory;
        while (dir is not null && !File.Exists(Path.Combine(dir, "XeAnalyzer.sln")))
        {
            dir = Path.GetDirectoryName(dir);
        }

        return dir ?? throw new InvalidOperationException("XeAnalyzer.sln not found above " + AppContext.BaseDirectory);
    }
}
