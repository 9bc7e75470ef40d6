using System.CommandLine;

namespace XeAnalyzer.Cli;

/// <summary>Entry point of <c>xeanalyze</c>: a thin layer that parses arguments and calls the library.</summary>
internal static class Program
{
    public static int Main(string[] args) => Run(args, Console.Out, Console.Error);

    /// <summary>Runs the tool with explicit output writers (used by tests).</summary>
    public static int Run(string[] args, TextWriter output, TextWriter error)
    {
        RootCommand root = CommandTree.Build();
        ParseResult parse = root.Parse(args);
        var config = new InvocationConfiguration { Output = output, Error = error };
        if (!HelpExamples.IsHelp(parse))
        {
            // A word that is no option, or an option where a value was due, explains the parser's own errors, which
            // follow from it.
            IReadOnlyList<string> problems = CommandLineChecks.Find(parse, args);
            if (problems.Count == 0)
            {
                problems = [.. parse.Errors.Select(e => e.Message)];
            }

            if (problems.Count > 0)
            {
                foreach (string problem in problems)
                {
                    error.WriteLine("xeanalyze: " + problem);
                }

                error.WriteLine("Run '" + CommandPath(parse.CommandResult.Command) + " --help' for usage.");
                return ExitCodes.Usage;
            }
        }

        return parse.Invoke(config);
    }

    /// <summary>
    /// The command line that names <paramref name="command"/>: <c>xeanalyze symbols catalog show</c>.
    /// </summary>
    internal static string CommandPath(Command command)
    {
        var names = new List<string>();
        for (Command? c = command; c is not null; c = c.Parents.OfType<Command>().FirstOrDefault())
        {
            names.Insert(0, c is RootCommand ? "xeanalyze" : c.Name);
        }

        return string.Join(' ', names);
    }
}
