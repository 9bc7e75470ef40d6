using System.CommandLine;

namespace XeAnalyzer.Cli;

/// <summary>Builds the command tree: one line per command; each command lives in its own file under Commands/.</summary>
internal static class CommandTree
{
    public static RootCommand Build()
    {
        var root = new RootCommand("xeanalyze: read SQL Server Extended Events captures, resolve callstacks on any OS, and analyse latches, memory, waits and stack buckets.");
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
        return root;
    }
}
