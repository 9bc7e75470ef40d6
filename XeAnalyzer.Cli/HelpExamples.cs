using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Invocation;
using System.Runtime.CompilerServices;

namespace XeAnalyzer.Cli;

/// <summary>
/// The "Examples:" section of every command's <c>--help</c>: each command declares real command lines (run from the
/// repository root, on the committed samples where it reads captures) when it is created, and the help writes them
/// after the options.
/// </summary>
internal static class HelpExamples
{
    private static readonly ConditionalWeakTable<Command, string[]> s_examples = [];

    /// <summary>
    /// Gives <paramref name="command"/> its examples (whole command lines, starting with <c>xeanalyze</c>).
    /// </summary>
    /// <returns>The command.</returns>
    public static T WithExamples<T>(this T command, params string[] examples)
        where T : Command
    {
        s_examples.AddOrUpdate(command, examples);
        return command;
    }

    /// <summary>The examples of <paramref name="command"/>, or none.</summary>
    public static IReadOnlyList<string> Of(Command command) =>
        s_examples.TryGetValue(command, out string[]? e) ? e : [];

    /// <summary>
    /// Adds the section to the help of every command of <paramref name="root"/>: after what the help writes.
    /// </summary>
    public static void AddSection(RootCommand root)
    {
        HelpOption option = root.Options.OfType<HelpOption>().Single();
        option.Action = new ExamplesAction((SynchronousCommandLineAction)option.Action!);
    }

    /// <summary>
    /// Whether <paramref name="parse"/> asks for help (which is shown even when the rest of the line has errors).
    /// </summary>
    public static bool IsHelp(ParseResult parse) => parse.Action is ExamplesAction or HelpAction;

    /// <summary><paramref name="command"/> and every command below it.</summary>
    public static IEnumerable<Command> Commands(Command command) =>
        command.Subcommands.SelectMany(Commands).Prepend(command);

    /// <summary>The help option's action: the help as System.CommandLine writes it, then the examples.</summary>
    private sealed class ExamplesAction(SynchronousCommandLineAction help) : SynchronousCommandLineAction
    {
        public override bool ClearsParseErrors => true;

        public override int Invoke(ParseResult parseResult)
        {
            int exit = help.Invoke(parseResult);
            IReadOnlyList<string> examples = Of(parseResult.CommandResult.Command);
            if (examples.Count > 0)
            {
                TextWriter output = parseResult.InvocationConfiguration.Output;
                output.WriteLine("Examples:");
                foreach (string example in examples)
                {
                    output.WriteLine("  " + example);
                }

                output.WriteLine();
            }

            return exit;
        }
    }
}
