using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// Writes every file of <c>sample-xel/</c>: the captures, their loaded-module sidecars, the histogram XML, the expected
/// figures and stacks, and README.md (tools/samples/README.template.md with the figures filled in).
/// Usage: <c>SampleGenerator &lt;repository root&gt; &lt;output folder&gt;</c> (tools/samples/build.sh runs it).
/// Same inputs, same bytes: fixed seeds, fixed timestamps, no clock, integer arithmetic.
/// </summary>
internal static partial class Program
{
    private static readonly string[] StackOrder = ["D", "E", "F", "G", "H", "X1", "X2"];

    private static int Main(string[] args)
    {
        if (args.Length != 2)
        {
            Console.Error.WriteLine("usage: SampleGenerator <repository root> <output folder>");
            return 2;
        }

        string repo = Path.GetFullPath(args[0]);
        string outDir = Path.GetFullPath(args[1]);
        string stacksPath = Path.Combine(repo, "tools", "fixtures", "expected", "stacks.tsv");
        string templatePath = Path.Combine(repo, "tools", "samples", "README.template.md");
        try
        {
            FixtureStacks fx = FixtureStacks.Load(stacksPath);
            Directory.CreateDirectory(outDir);
            Figures latch = LatchSample.Generate(fx, outDir);
            Figures memory = MemorySample.Generate(fx, outDir);
            (Figures waits, string waitsTsv) = WaitSample.Generate(fx, outDir);
            Figures ring = RingBufferSample.Generate(outDir);
            Figures health = SystemHealthSample.Generate(fx, outDir);
            string expected = Path.Combine(outDir, "expected");
            Output.WriteText(Path.Combine(expected, LatchSample.SetName + ".figures.tsv"), latch.ToTsv());
            Output.WriteText(Path.Combine(expected, MemorySample.SetName + ".figures.tsv"), memory.ToTsv());
            Output.WriteText(Path.Combine(expected, WaitSample.SetName + ".figures.tsv"), waits.ToTsv());
            Output.WriteText(Path.Combine(expected, WaitSample.SetName + ".waits.tsv"), waitsTsv);
            Output.WriteText(Path.Combine(expected, RingBufferSample.SetName + ".figures.tsv"), ring.ToTsv());
            Output.WriteText(Path.Combine(expected, SystemHealthSample.SetName + ".figures.tsv"), health.ToTsv());
            Dictionary<string, string> blocks = Blocks(fx, waitsTsv);
            blocks.Add("health.modules_table", ModulesTable(SystemHealthSample.Modules));
            string readme = FillTemplate(
                File.ReadAllText(templatePath, Output.Utf8).Replace("\r\n", "\n", StringComparison.Ordinal),
                [latch, memory, waits, ring, health],
                blocks
            );
            Output.WriteText(Path.Combine(outDir, "README.md"), MarkdownLines.Fit(readme));
            return 0;
        }
        catch (Exception ex)
            when (ex
                    is IOException
                        or InvalidDataException
                        or InvalidOperationException
                        or KeyNotFoundException
                        or ArgumentException
                        or UnauthorizedAccessException
            )
        {
            Console.Error.WriteLine("SampleGenerator: " + ex.Message);
            return 1;
        }
    }

    [GeneratedRegex(@"\{\{([A-Za-z0-9_.]+)\}\}")]
    private static partial Regex Placeholder();

    /// <summary>Replaces every <c>{{prefix.name}}</c>; an unknown name is an error.</summary>
    private static string FillTemplate(string template, IEnumerable<Figures> figures, Dictionary<string, string> blocks)
    {
        var values = new Dictionary<string, string>(blocks, StringComparer.Ordinal);
        foreach (Figures f in figures)
        {
            foreach ((string key, string value, string _) in f.Rows)
            {
                values.Add(f.Prefix + "." + key, value);
            }

            values.Add(f.Prefix + ".all", FiguresTable(f));
            foreach ((string name, string block) in f.Blocks)
            {
                values.Add(f.Prefix + "." + name, block);
            }
        }

        var missing = new List<string>();
        string result = Placeholder()
            .Replace(
                template,
                m =>
                {
                    if (values.TryGetValue(m.Groups[1].Value, out string? v))
                    {
                        return v;
                    }

                    missing.Add(m.Groups[1].Value);
                    return m.Value;
                }
            );
        if (missing.Count > 0)
        {
            throw new InvalidDataException("README.template.md uses unknown figures: " + string.Join(", ", missing));
        }

        return result;
    }

    private static string FiguresTable(Figures f)
    {
        var sb = new StringBuilder("| figure | value | meaning |\n|---|---|---|\n");
        foreach ((string key, string value, string meaning) in f.Rows)
        {
            sb.Append("| `")
                .Append(key)
                .Append("` | ")
                .Append(value)
                .Append(" | ")
                .Append(meaning.Replace("|", "\\|", StringComparison.Ordinal))
                .Append(" |\n");
        }

        return sb.ToString().TrimEnd('\n');
    }

    /// <summary>Generated Markdown blocks: bucket table, module tables, wait table.</summary>
    private static Dictionary<string, string> Blocks(FixtureStacks fx, string waitsTsv)
    {
        var blocks = new Dictionary<string, string>(StringComparer.Ordinal);
        var sb = new StringBuilder("| slot | stack | events | what it is |\n|---|---|---|---|\n");
        int slot = 0;
        foreach (
            Bucket b in LatchSample
                .Buckets(fx)
                .Select((b, i) => (b, i))
                .OrderByDescending(x => x.b.Count)
                .ThenBy(x => x.i)
                .Select(x => x.b)
        )
        {
            sb.Append("| ")
                .Append(slot++.ToString(CultureInfo.InvariantCulture))
                .Append(" | ")
                .Append(b.Id)
                .Append(" | ")
                .Append(b.Count.ToString(CultureInfo.InvariantCulture))
                .Append(" | ")
                .Append(b.Description)
                .Append(" |\n");
        }

        blocks.Add("latch.buckets_table", sb.ToString().TrimEnd('\n'));

        // Every bucket's frames, as the TF 3656 histogram renders them.
        var bucketFrames = new StringBuilder();
        slot = 0;
        foreach (
            Bucket b in LatchSample
                .Buckets(fx)
                .Select((b, i) => (b, i))
                .OrderByDescending(x => x.b.Count)
                .ThenBy(x => x.i)
                .Select(x => x.b)
        )
        {
            bucketFrames
                .Append("<details><summary>slot ")
                .Append(slot++.ToString(CultureInfo.InvariantCulture))
                .Append(": stack ")
                .Append(b.Id)
                .Append(", ")
                .Append(b.Count.ToString(CultureInfo.InvariantCulture))
                .Append(" events</summary>\n\n```\n");
            foreach (Frame f in b.Frames)
            {
                bucketFrames.Append(f.SymbolizedText).Append('\n');
            }

            bucketFrames.Append("```\n\n</details>\n");
        }

        blocks.Add("latch.buckets_frames", bucketFrames.ToString().TrimEnd('\n'));
        blocks.Add("latch.modules_table", ModulesTable(LatchSample.Modules));
        blocks.Add("memory.modules_table", ModulesTable(MemorySample.Modules));
        blocks.Add("waits.modules_table", ModulesTable(WaitSample.Modules));

        var waits = new StringBuilder();
        string[] lines = waitsTsv.TrimEnd('\n').Split('\n');
        waits.Append("| ").Append(string.Join(" | ", lines[0].Split('\t'))).Append(" |\n");
        waits.Append('|').Append(string.Concat(Enumerable.Repeat("---|", lines[0].Split('\t').Length))).Append('\n');
        foreach (string line in lines.Skip(1))
        {
            waits.Append("| ").Append(string.Join(" | ", line.Split('\t'))).Append(" |\n");
        }

        blocks.Add("waits.waits_table", waits.ToString().TrimEnd('\n'));

        var stacks = new StringBuilder("| stack | frames | leaf | used by |\n|---|---|---|---|\n");
        string[] usedBy =
        [
            "D: PREEMPTIVE_HTTP_REQUEST before each PAGEIOLATCH_SH (scan workers)",
            "E: PREEMPTIVE_HTTP_REQUEST of the coordinator (LOB send)",
            "F: PREEMPTIVE_HTTP_REQUEST of the log writer",
            "G: PREEMPTIVE_HTTP_REQUEST of lease renewal",
            "H: PAGEIOLATCH_SH",
            "X1: LATCH_EX (composed: the first five frames of H)",
            "X2: CXPACKET (composed: H's first three frames, the producer frames of stack C, G's scheduler frames)",
        ];
        Dictionary<string, IReadOnlyList<Frame>> waitStacks = WaitSample.Stacks(fx);
        foreach (string id in StackOrder)
        {
            IReadOnlyList<Frame> frames = waitStacks[id];
            string use = usedBy.Single(u => u.StartsWith(id + ":", StringComparison.Ordinal));
            stacks
                .Append("| ")
                .Append(id)
                .Append(" | ")
                .Append(frames.Count.ToString(CultureInfo.InvariantCulture))
                .Append(" | `")
                .Append(frames[0].SymbolizedText)
                .Append("` | ")
                .Append(use[(id.Length + 2)..])
                .Append(" |\n");
        }

        blocks.Add("waits.stacks_table", stacks.ToString().TrimEnd('\n'));
        return blocks;
    }

    private static string ModulesTable(ModuleList modules)
    {
        var sb = new StringBuilder("| module | base | range end (next base - 1) |\n|---|---|---|\n");
        List<(string Name, ulong Base)> sorted = [.. modules.SortedByBase()];
        for (int i = 0; i < sorted.Count; i++)
        {
            string end = i + 1 < sorted.Count ? Output.Hex16(sorted[i + 1].Base - 1) : "0xFFFFFFFFFFFFFFFF";
            sb.Append("| ")
                .Append(sorted[i].Name)
                .Append(" | ")
                .Append(Output.Hex16(sorted[i].Base))
                .Append(" | ")
                .Append(end)
                .Append(" |\n");
        }

        return sb.ToString().TrimEnd('\n');
    }
}
