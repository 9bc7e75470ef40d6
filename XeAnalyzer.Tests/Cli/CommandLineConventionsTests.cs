using System.CommandLine;
using XeAnalyzer.Cli;
using XeAnalyzer.Tests.Analysis;

namespace XeAnalyzer.Tests.Cli;

/// <summary>
/// The command-line conventions every command shares: usage errors (exit code 2) name the option or command and what
/// was expected, an unknown option or command names the nearest valid one, <c>--</c> ends the options, and every
/// command's help shows real command lines.
/// </summary>
public sealed class CommandLineConventionsTests
{
    private const string Latch = "sample-xel/latch_nesting_full";

    [TestCase(
        new[] { "stacks", Latch, "--fromat", "json" },
        "unknown option '--fromat'; did you mean '--format'?",
        "xeanalyze stacks"
    )]
    [TestCase(
        new[] { "latches", Latch, "--outlier-treshold", "5" },
        "unknown option '--outlier-treshold'; did you " + "mean '--outlier-threshold'?",
        "xeanalyze latches"
    )]
    [TestCase(
        new[] { "info", "-skip-corrupt", Latch },
        "unknown option '-skip-corrupt'; did you mean " + "'--skip-corrupt'?",
        "xeanalyze info"
    )]
    [TestCase(
        new[] { "sql", "list", "--quite" },
        "unknown option '--quite'; did you mean '--quiet'?",
        "xeanalyze sql " + "list"
    )]
    [TestCase(new[] { "stcks", Latch }, "unknown command 'stcks'; did you mean 'stacks'?", "xeanalyze")]
    [TestCase(
        new[] { "symbols", "fetc", "--sql-build", "13.0.4001.0" },
        "unknown command 'fetc'; did you mean " + "'fetch'?",
        "xeanalyze symbols"
    )]
    [TestCase(
        new[] { "symbols", "catalog", "shwo", "13.0.4001.0" },
        "unknown command 'shwo'; did you mean 'show'?",
        "xeanalyze symbols catalog"
    )]
    public void UnknownOptionOrCommand_IsAUsageError_NamingItAndTheNearestValidOne(
        string[] args,
        string message,
        string command
    )
    {
        (int exit, string output, string err) = CliRunner.RunIn(TestPaths.RepoRoot, args);
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage), err);
        Assert.That(output, Is.Empty);
        Assert.That(err, Is.EqualTo("xeanalyze: " + message + "\nRun '" + command + " --help' for usage.\n"));
    }

    [Test]
    public void DoubleDash_EndsTheOptions_SoAnInputMayStartWithADash()
    {
        using var tmp = new TempFolder();
        File.Copy(
            Directory.GetFiles(Path.Combine(TestPaths.RepoRoot, Latch), "*.xel").Order(StringComparer.Ordinal).First(),
            tmp.File("--odd.xel")
        );

        (int exit, _, string err) = CliRunner.RunIn(tmp.Path, "info", "--odd.xel");
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(err, Does.StartWith("xeanalyze: unknown option '--odd.xel'; did you mean '"));

        (exit, string output, err) = CliRunner.RunIn(tmp.Path, "info", "--", "--odd.xel");
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(output, Does.Contain("--odd.xel"));
    }

    [Test]
    public void AnOptionWhereAValueWasDue_IsAUsageError_UnlessAttachedWithEquals()
    {
        (int exit, _, string err) = CliRunner.RunIn(
            TestPaths.RepoRoot,
            "latches",
            Latch,
            "--format",
            "--chart",
            "x.svg"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(
            err,
            Does.StartWith(
                "xeanalyze: --format: expected a value, found the option '--chart' (write "
                    + "--format=--chart to pass it as the value)\n"
            )
        );

        (exit, _, err) = CliRunner.RunIn(TestPaths.RepoRoot, "latches", Latch, "-o", "-q");
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage));
        Assert.That(err, Does.StartWith("xeanalyze: -o: expected a value, found the option '-q'"));

        // Attached, the value is what the user meant: a file named --x.txt.
        using var tmp = new TempFolder();
        (exit, _, err) = CliRunner.RunIn(
            tmp.Path,
            "latches",
            Path.Combine(TestPaths.RepoRoot, Latch),
            "--output=--x.txt",
            "--format",
            "csv"
        );
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        Assert.That(File.ReadAllText(tmp.File("--x.txt")), Does.Contain("scheduler"));
    }

    [Test]
    public void NegativeNumbers_AreValuesNotOptions()
    {
        (int exit, _, string err) = CliRunner.RunIn(TestPaths.RepoRoot, "stacks", Latch, "--top", "-1");
        Assert.That(
            (exit, err),
            Is.EqualTo((ExitCodes.Usage, "xeanalyze: --top and --min-count: expected 0 or more\n"))
        );
        Assert.That(CommandLineChecks.LooksLikeOption("-1"), Is.False);
        Assert.That(CommandLineChecks.LooksLikeOption("-"), Is.False, "standard input");
        Assert.That(CommandLineChecks.LooksLikeOption("-.5"), Is.False);
        Assert.That(CommandLineChecks.LooksLikeOption("-o"), Is.True);
    }

    [TestCase("--fromat", "--format")]
    [TestCase("--forma", "--format")]
    [TestCase("--form", "--from")]
    [TestCase("--FORMAT", "--format")]
    [TestCase("--outptu", "--output")]
    [TestCase("-O", "-o")]
    public void Nearest_CountsSwapsAsOneEdit_AndIgnoresCase(string word, string nearest)
    {
        Assert.That(
            CommandLineChecks.Nearest(word, ["--chart", "--output", "-o", "--format", "--from"]),
            Is.EqualTo(nearest)
        );
    }

    [TestCase(new[] { "info", "" }, "<input>: expected a capture file, folder or glob, found an empty value")]
    [TestCase(new[] { "latches", Latch, "-o", "" }, "-o: expected a file, found an empty value")]
    [TestCase(new[] { "latches", Latch, "--output", " " }, "--output: expected a file, found an empty value")]
    [TestCase(
        new[] { "memory", "sample-xel/cci_insert_memory", "--series", "" },
        "--series: expected a file, found " + "an empty value"
    )]
    [TestCase(new[] { "latches", Latch, "--chart", "" }, "--chart: expected a file, found an empty value")]
    [TestCase(new[] { "histogram", Latch, "--map-values", "" }, "--map-values: expected a file, found an empty value")]
    [TestCase(
        new[] { "stacks", Latch, "--modules", "" },
        "--modules: expected a module list file, found an empty " + "value"
    )]
    [TestCase(
        new[] { "stacks", Latch, "--binaries", "" },
        "--binaries: expected a folder of DLLs and EXEs, found an " + "empty value"
    )]
    [TestCase(
        new[] { "slice", Latch, "--event", "latch_acquired", "-o", "" },
        "-o: expected a file, found an empty " + "value"
    )]
    [TestCase(new[] { "resolve", "" }, "<input>: expected a file, or - for standard input, found an empty value")]
    [TestCase(new[] { "diff", Latch, "" }, "<new>: expected a capture file, folder or glob, found an empty value")]
    [TestCase(new[] { "report", Latch, "-o", "" }, "-o: expected a folder, found an empty value")]
    [TestCase(
        new[] { "symbols", "catalog", "show", "13.0.4001.0", "--catalog", "" },
        "--catalog: expected a catalog " + "file, found an empty value"
    )]
    public void AnEmptyPath_IsAUsageError_NamingTheOption(string[] args, string message)
    {
        (int exit, string output, string err) = CliRunner.RunIn(TestPaths.RepoRoot, args);
        Assert.That(exit, Is.EqualTo(ExitCodes.Usage), err);
        Assert.That(output, Is.Empty);
        Assert.That(err, Does.StartWith("xeanalyze: " + message + "\n"));
        Assert.That(err, Does.Not.Contain("internal error"));
    }

    [TestCase("0")]
    [TestCase("13")]
    [TestCase("13.0.x")]
    public void ABuildNumberThatIsNone_IsAUsageError(string build)
    {
        (int exit, _, string err) = CliRunner.RunIn(
            TestPaths.RepoRoot,
            "stacks",
            Latch,
            "--sql-build",
            build,
            "--offline"
        );
        Assert.That(
            (exit, err),
            Is.EqualTo(
                (
                    ExitCodes.Usage,
                    "xeanalyze: --sql-build: expected a build number such " + "as 13.0.4001.0, found '" + build + "'\n"
                )
            )
        );
        (exit, _, err) = CliRunner.Run("symbols", "catalog", "show", build);
        Assert.That(
            (exit, err),
            Is.EqualTo(
                (
                    ExitCodes.Usage,
                    "xeanalyze: catalog show: expected a build number such " + "as 13.0.4001.0, found '" + build + "'\n"
                )
            )
        );
    }

    public static IEnumerable<TestCaseData> AllCommands() =>
        HelpExamples
            .Commands(CommandTree.Build())
            .Select(c =>
                new TestCaseData(Program.CommandPath(c)).SetName("Help_HasARealExample(" + Program.CommandPath(c) + ")")
            );

    [TestCaseSource(nameof(AllCommands))]
    public void Help_HasARealExample(string path)
    {
        string[] words = path.Split(' ')[1..];
        (int exit, string output, string err) = CliRunner.Run([.. words, "--help"]);
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok), err);
        int section = output.IndexOf("\nExamples:\n", StringComparison.Ordinal);
        Assert.That(section, Is.GreaterThan(0), "an Examples section in:\n" + output);
        string[] examples =
        [
            .. output[(section + "\nExamples:\n".Length)..]
                .Split('\n')
                .TakeWhile(l => l.Length > 0)
                .Select(l => l.Trim()),
        ];
        Assert.That(examples, Is.Not.Empty);

        foreach (string example in examples)
        {
            // A real command line: this command's (or one below it, for a command that only groups others), and it
            // parses without a usage error.
            Assert.That(example == path || example.StartsWith(path + " ", StringComparison.Ordinal), Is.True, example);
            string[] args = ShellWords(example)[1..];
            ParseResult parse = CommandTree.Build().Parse(args);
            Assert.That(CommandLineChecks.Find(parse, args), Is.Empty, example);
            Assert.That(parse.Errors.Select(e => e.Message), Is.Empty, example);
            Assert.That(Program.CommandPath(parse.CommandResult.Command), Does.StartWith(path), example);
        }
    }

    [Test]
    public void Help_OfAGroupingCommand_IsWrittenOnce_WithItsExamplesLast()
    {
        (int exit, string output, _) = CliRunner.Run("symbols", "--help");
        Assert.That(exit, Is.EqualTo(ExitCodes.Ok));
        Assert.That(output.Split("Examples:").Length, Is.EqualTo(2));
        Assert.That(output, Does.EndWith("  xeanalyze symbols catalog show 13.0.4001.0\n\n"));
    }

    /// <summary>
    /// The words of a command line as a POSIX shell splits them (blanks outside double quotes; no escapes needed here).
    /// </summary>
    private static string[] ShellWords(string line)
    {
        var words = new List<string>();
        var current = new System.Text.StringBuilder();
        bool quoted = false;
        foreach (char c in line)
        {
            if (c == '"')
            {
                quoted = !quoted;
            }
            else if (c == ' ' && !quoted)
            {
                words.Add(current.ToString());
                current.Clear();
            }
            else
            {
                current.Append(c);
            }
        }

        words.Add(current.ToString());
        return [.. words];
    }
}
