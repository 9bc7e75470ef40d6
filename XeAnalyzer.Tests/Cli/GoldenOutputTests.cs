using System.Globalization;
using System.Text;
using XeAnalyzer.Cli;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// The outputs of the README's commands and of every sample, compared byte for byte with outputs recorded before a
/// refactoring (<c>TestData/golden/</c>): stdout, stderr, the exit code and every file written. The commands run in the
/// repository root with relative paths, as the README gives them, and write into <c>.golden-out/&lt;case&gt;</c> there,
/// so the outputs do not depend on where the checkout lies. To record them again after an intended change (and list
/// that change in CHANGELOG.md), run the tests with <c>XEANALYZER_RECORD_GOLDEN=1</c>; never record them to make a
/// failing run pass. With <c>XEANALYZE_BINARY</c> set (<see cref="CliRunner.PublishedBinary"/>) the commands run that
/// published executable as a child process instead of in-process, so the same records check it: <c>.ci/run</c> does so
/// with the NativeAOT binary.
/// </summary>
public sealed class GoldenOutputTests
{
    private const string Sym = "--symbols symbols-cache --binaries symbols-cache --offline";
    private const string L = "sample-xel/latch_nesting_full";
    private const string M = "sample-xel/cci_insert_memory";
    private const string W = "sample-xel/blob_storage_waits";
    private const string RXel = "sample-xel/ring_buffer_waits/ring_buffer_waits_0_133601625036040000.xel";
    private const string RXml = "sample-xel/ring_buffer_waits/ring_buffer_waits.ring_buffer.xml";
    private const string S = "sample-xel/system_health_stacks";
    private const string H1 = "sample-xel/latch_nesting_full_histogram/latch_nesting_full.histogram.xml";
    private const string H2 = "sample-xel/latch_nesting_full_histogram/latch_nesting_full.tf3656.histogram.xml";
    private const string C = "sample-xel/latch_nesting_full_counter/latch_nesting_full.event_counter.xml";
    private const string Clerks =
        "sample-xel/cci_insert_memory_histogram/cci_insert_memory.page_freed.memory_clerk_name.histogram.xml";
    private const string WaitKeys =
        "sample-xel/blob_storage_waits_histogram/blob_storage_waits.wait_type.histogram.xml";
    private const string Maps = "sample-xel/blob_storage_waits_histogram/blob_storage_waits.map_values.tsv";
    private const string Text = "XeAnalyzer.Tests/TestData/text";

    private static readonly (string Name, string Command)[] Cases =
    [
        ("readme-stacks", "stacks " + L + " " + Sym + " --top 3"),
        ("info-latch", "info " + L),
        ("info-ring-xml", "info " + RXml),
        ("info-counter", "info " + C),
        ("info-clerks", "info " + Clerks),
        ("events-latch-text", "events " + L + " --limit 40"),
        ("events-latch-csv", "events " + L + " --format csv --limit 40"),
        ("events-latch-json", "events " + L + " --format json --limit 40"),
        ("events-ring-xml-csv", "events " + RXml + " --format csv"),
        ("events-ring-xel-json", "events " + RXel + " --format json --limit 30"),
        ("stacks-latch-text", "stacks " + L + " " + Sym),
        ("stacks-latch-csv", "stacks " + L + " " + Sym + " --format csv --top 5"),
        ("stacks-latch-json", "stacks " + L + " " + Sym + " --format json --top 5"),
        ("stacks-latch-folded", "stacks " + L + " " + Sym + " --format folded"),
        ("stacks-latch-speedscope", "stacks " + L + " " + Sym + " --format speedscope"),
        ("stacks-latch-svg", "stacks " + L + " " + Sym + " --format svg"),
        ("stacks-latch-html", "stacks " + L + " " + Sym + " --format html --top 5"),
        ("stacks-latch-resolver-nooffsets", "stacks " + L + " " + Sym + " --frame-style resolver --no-offsets --top 3"),
        ("stacks-histogram", "stacks " + H1 + " " + Sym),
        ("stacks-tf3656", "stacks " + H2 + " " + Sym + " --format csv"),
        ("stacks-system-health", "stacks " + S + " " + Sym),
        ("stacks-waits-end", "stacks " + W + " " + Sym + " --where opcode=End --top 4"),
        ("stacks-clerks-missing", "stacks " + Clerks + " " + Sym),
        ("latches-text", "latches " + L),
        ("latches-csv", "latches " + L + " --format csv"),
        ("latches-json", "latches " + L + " --format json"),
        ("latches-html", "latches " + L + " --format html"),
        ("latches-svg", "latches " + L + " --format svg"),
        ("latches-ring-xel", "latches " + RXel),
        ("latches-on-waits-missing", "latches " + W + " --event wait_info"),
        ("memory-text", "memory " + M + " --by-clerk"),
        ("memory-csv", "memory " + M + " --format csv"),
        ("memory-json", "memory " + M + " --format json"),
        ("memory-series", "memory " + M + " --series {out}/series.csv --chart {out}/memory.svg"),
        ("waits-text", "waits " + W),
        ("waits-csv", "waits " + W + " --format csv"),
        ("waits-json", "waits " + W + " --format json"),
        ("waits-ring-xml", "waits " + RXml),
        ("histogram-clerks-text", "histogram " + Clerks),
        ("histogram-clerks-csv", "histogram " + Clerks + " --format csv"),
        ("histogram-clerks-json", "histogram " + Clerks + " --format json"),
        ("histogram-clerks-svg", "histogram " + Clerks + " --format svg"),
        ("histogram-waits-map", "histogram " + WaitKeys + " --map-values " + Maps + " --map wait_types"),
        ("report-latch", "report " + L + " -o {out} " + Sym),
        ("report-waits", "report " + W + " -o {out} " + Sym),
        ("report-memory", "report " + M + " -o {out} " + Sym),
        ("report-targets", "report " + C + " " + H1 + " -o {out} " + Sym),
        ("diff-latch-tf3656", "diff " + L + " " + H2 + " " + Sym),
        ("diff-latch-json", "diff " + L + " " + H1 + " " + Sym + " --format json"),
        ("resolve-histogram", "resolve " + Text + "/histogram_module_offset_crlf.xml " + Sym),
        ("resolve-ring-buffer", "resolve " + Text + "/ring_buffer_callstack.xml " + Sym + " --frame-style resolver"),
        ("resolve-sqldumper", "resolve " + Text + "/sqldumper_stack.txt " + Sym),
        (
            "slice-latch",
            "slice "
                + L
                + " --event latch_acquired --from 2024-05-14T09:31:13 --to 2024-05-14T09:31:14 -o {out}/slice.xel"
        ),
        ("slice-ring-xml", "slice " + RXml + " --event wait_info -o {out}/slice.xel"),
        ("export-latch", "export " + L + " --format parquet -o {out}"),
        ("catalog-show", "symbols catalog show 13.0.4001.0"),
        ("sql-list", "sql list"),
        ("sql-show", "sql show wait_summary"),
    ];

    private static string GoldenDir => Path.Combine(TestPaths.TestData, "golden");

    private static bool Recording => Environment.GetEnvironmentVariable("XEANALYZER_RECORD_GOLDEN") == "1";

    public static IEnumerable<TestCaseData> AllCases() =>
        Cases.Select(c => new TestCaseData(c.Name, c.Command).SetName("Output_IsAsRecorded_" + c.Name));

    [TestCaseSource(nameof(AllCases))]
    public void Output_IsAsRecorded(string name, string command)
    {
        string repo = TestPaths.RepoRoot;
        string relativeOut = ".golden-out/" + name;
        string outDir = Path.Combine(repo, ".golden-out", name);
        if (Directory.Exists(outDir))
        {
            Directory.Delete(outDir, recursive: true);
        }

        Directory.CreateDirectory(outDir);
        string[] args =
        [
            .. command
                .Split(' ', StringSplitOptions.RemoveEmptyEntries)
                .Select(a => a.Replace("{out}", relativeOut, StringComparison.Ordinal)),
        ];
        (int exit, string stdout, string stderr) = CliRunner.RunUnderTestIn(repo, args);

        var actual = new StringBuilder();
        actual.Append("$ xeanalyze ").Append(command).Append('\n');
        actual.Append("exit ").Append(exit.ToString(CultureInfo.InvariantCulture)).Append('\n');
        actual.Append("--- stdout\n").Append(stdout);
        actual.Append("--- stderr\n").Append(stderr);
        foreach (
            string file in Directory
                .EnumerateFiles(outDir, "*", SearchOption.AllDirectories)
                .Order(StringComparer.Ordinal)
        )
        {
            string rel = Path.GetRelativePath(outDir, file).Replace('\\', '/');
            byte[] bytes = File.ReadAllBytes(file);
            string? text = null;
            if (IsText(rel))
            {
                // The size and hash of a text file are those of its normalized text (see below), so they do not depend
                // on the checkout's place.
                text = Encoding.UTF8.GetString(bytes).Replace(repo, "<repo>", StringComparison.Ordinal);
                bytes = Encoding.UTF8.GetBytes(text);
            }

            actual
                .Append("--- file ")
                .Append(rel)
                .Append(' ')
                .Append(bytes.Length.ToString(CultureInfo.InvariantCulture))
                .Append(" bytes, sha256 ")
                .Append(Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(bytes)))
                .Append('\n');
            if (text is not null)
            {
                actual.Append(text).Append('\n');
            }
        }

        Directory.Delete(outDir, recursive: true);

        // PDB paths are printed absolute (symbols-cache under the checkout): the one place the checkout's location
        // shows.
        string normalized = actual.ToString().Replace(repo, "<repo>", StringComparison.Ordinal);
        string path = Path.Combine(GoldenDir, name + ".txt");
        if (Recording)
        {
            Directory.CreateDirectory(GoldenDir);
            File.WriteAllText(path, normalized, new UTF8Encoding(false));
            Assert.Pass("recorded " + path);
        }

        Assert.That(
            File.Exists(path),
            Is.True,
            "no recorded output for " + name + " (record with XEANALYZER_RECORD_GOLDEN=1)"
        );
        string expected = File.ReadAllText(path, Encoding.UTF8);
        if (!string.Equals(expected, normalized, StringComparison.Ordinal))
        {
            string[] a = expected.Split('\n'),
                b = normalized.Split('\n');
            int i = 0;
            while (i < a.Length && i < b.Length && a[i] == b[i])
            {
                i++;
            }

            Assert.Fail(
                $"{name}: output differs from {path} at line {i + 1}:\n  recorded: "
                    + $"{(i < a.Length ? a[i] : "<end>")}\n  now:      {(i < b.Length ? b[i] : "<end>")}"
            );
        }
    }

    /// <summary>Binary outputs (Parquet, .xel) are compared by hash only; text files are kept whole so a difference is
    /// readable.</summary>
    private static bool IsText(string relativePath) =>
        !relativePath.EndsWith(".parquet", StringComparison.Ordinal)
        && !relativePath.EndsWith(".xel", StringComparison.Ordinal);
}
