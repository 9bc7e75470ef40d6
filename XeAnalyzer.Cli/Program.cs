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
        if (parse.Errors.Count > 0 && parse.Action is not System.CommandLine.Help.HelpAction)
        {
            foreach (System.CommandLine.Parsing.ParseError e in parse.Errors)
            {
                error.WriteLine("xeanalyze: " + e.Message);
            }

            error.WriteLine("Run 'xeanalyze --help' for usage.");
            return ExitCodes.Usage;
        }

        return parse.Invoke(config);
    }
}
