using System.CommandLine;

namespace XeAnalyzer.Cli;

/// <summary>Builds the command tree: one line per command; each command lives in its own file under
/// Commands/.</summary>
internal static class CommandTree
{
    public static RootCommand Build()
    {
        var root = new RootCommand(
            "xeanalyze: read SQL Server Extended Events captures, resolve callstacks on any OS, and analyse latches, "
                + "memory, waits and stack buckets."
        );
        root.Options.Add(Progress.TerminalProgress.CreateQuietOption());
        root.Subcommands.Add(Commands.InfoCommand.Create());
        root.Subcommands.Add(Commands.EventsCommand.Create());
        root.Subcommands.Add(Commands.SliceCommand.Create());
        root.Subcommands.Add(Commands.ResolveCommand.Create());
        root.Subcommands.Add(Commands.SymbolsCommand.Create());
        root.Subcommands.Add(Commands.ExportCommand.Create());
        root.Subcommands.Add(Commands.SqlCommand.Create());
        root.Subcommands.Add(Commands.LatchesCommand.Create());
        root.Subcommands.Add(Commands.MemoryCommand.Create());
        root.Subcommands.Add(Commands.WaitsCommand.Create());
        root.Subcommands.Add(Commands.StacksCommand.Create());
        root.Subcommands.Add(Commands.HistogramCommand.Create());
        root.Subcommands.Add(Commands.DiffCommand.Create());
        root.Subcommands.Add(Commands.ReportCommand.Create());
        root.Subcommands.Add(Commands.BatchCommand.Create());
        HelpExamples.AddSection(root);
        root.WithExamples(
            "xeanalyze info sample-xel/latch_nesting_full",
            "xeanalyze stacks sample-xel/latch_nesting_full --symbols symbols-cache --binaries symbols-cache "
                + "--offline --top 3"
        );
        return root;
    }
}
