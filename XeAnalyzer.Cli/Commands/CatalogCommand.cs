using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze symbols catalog show|list|add</c>: the SQL Server build → PDB identity catalog in force (embedded in
/// XeAnalyzer, then the per-user file, then <c>--catalog</c> or <c>$XEANALYZER_BUILD_CATALOG</c>): one build's modules
/// with PDB name, GUID, age and file version; every known build; and recording a build from the RSDS records of its
/// DLLs into a catalog file.
/// </summary>
internal static class CatalogCommand
{
    public static Command Create()
    {
        var command = new Command(
            "catalog",
            "The SQL Server build catalog (build -> PDB name, GUID, age): show a build, list the builds, add a build "
                + "from its DLLs."
        );
        command.Subcommands.Add(CreateShow());
        command.Subcommands.Add(CreateList());
        command.Subcommands.Add(CreateAdd());
        command.WithExamples(
            "xeanalyze symbols catalog show 13.0.4001.0",
            "xeanalyze symbols catalog list --machine " + "x86"
        );
        return command;
    }

    private static Command CreateShow()
    {
        var symbols = new SymbolCommandOptions();
        var build = new Argument<string>("build") { Description = "The build number, e.g. 13.0.4001.0." };
        var command = new Command(
            "show",
            "Show a build's modules: PDB name, GUID, age, file version (from the catalog in force)."
        );
        command.Arguments.Add(build);
        command.Options.Add(symbols.Machine);
        command.Options.Add(symbols.Catalog);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            string number = parse.GetValue(build)!;
                            SymbolCommandOptions.CheckBuildNumber(number, "catalog show");

                            string machine = parse.GetValue(symbols.Machine) ?? "x64";
                            string? catalogPath = symbols.GetCatalogPath(parse);
                            SqlBuildInfo b = SymbolCommandOptions.FindBuild(
                                SqlBuildCatalog.LoadLayered(catalogPath, cancellationToken),
                                number,
                                machine,
                                catalogPath,
                                "catalog show " + number
                            );
                            if (b.Pdbs.Count == 0)
                            {
                                // An entry without a PDB identifies no module (catalog add refuses to write one; the
                                // published file has a few).
                                throw new InvalidTextInputException(
                                    b.Source == SqlBuildCatalog.EmbeddedSource
                                        ? "the embedded build " + "catalog"
                                        : b.Source,
                                    (int)Math.Min(b.LineNumber, int.MaxValue),
                                    "SQL build catalog: expected at least one PDB in the \"SymbolDetails\" of "
                                        + b.BuildNumber
                                        + " "
                                        + b.MachineType
                                        + ", found none"
                                );
                            }

                            output.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{b.BuildNumber} {b.MachineType}: "
                                        + $"{SymbolCommandOptions.Describe(b)}"
                                        + $"{(b.KBInfo.Length > 0 ? " (" + b.KBInfo + ")" : string.Empty)}"
                                )
                            );
                            output.WriteLine("source: " + Source(b));
                            int nameWidth = Math.Max(8, b.Pdbs.Max(p => p.PdbFileName.Length));
                            output.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{"PDB".PadRight(nameWidth)}  {"GUID", -36}  {"age", 3}  {"verified", -8}  file "
                                        + $"version"
                                )
                            );
                            foreach (SqlBuildPdb p in b.Pdbs)
                            {
                                output.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"{p.PdbFileName.PadRight(nameWidth)}  "
                                            + $"{p.Identity.Guid.ToString("D").ToUpperInvariant(), -36}  "
                                            + $"{p.Identity.Age, 3}  {(p.DownloadVerified ? "yes" : "no"), -8}  "
                                            + $"{p.FileVersion ?? "-"}"
                                    )
                                );
                            }

                            output.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{b.Pdbs.Count} PDB(s); symbol-store paths: <pdb>/<GUID without dashes><age in "
                                        + $"hex>/<pdb>, e.g. {b.Pdbs[0].StorePath}"
                                )
                            );
                            return ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze symbols catalog show 13.0.4001.0",
            "xeanalyze symbols catalog show " + "10.50.6542.0 --machine x86"
        );
        return command;
    }

    private static Command CreateList()
    {
        var symbols = new SymbolCommandOptions();
        var machine = new Option<string?>("--machine")
        {
            Description = "Only builds of this machine type (x64 or x86).",
        };
        var command = new Command(
            "list",
            "List every build the catalog in force knows (embedded, per-user file, --catalog), in version order."
        );
        command.Options.Add(machine);
        command.Options.Add(symbols.Catalog);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            string? only = parse.GetValue(machine);
                            string? catalogPath = symbols.GetCatalogPath(parse);
                            SqlBuildCatalog catalog = SqlBuildCatalog.LoadLayered(catalogPath, cancellationToken);
                            var builds = catalog
                                .Builds.Where(b =>
                                    only is null
                                    || string.Equals(b.MachineType, only, StringComparison.OrdinalIgnoreCase)
                                )
                                .OrderBy(b => b.Version ?? new Version(0, 0))
                                .ThenBy(b => b.MachineType, StringComparer.OrdinalIgnoreCase)
                                .ThenBy(b => b.LineNumber)
                                .ToList();
                            foreach (SqlBuildInfo b in builds)
                            {
                                string source =
                                    b.Source == SqlBuildCatalog.EmbeddedSource ? string.Empty : "  [" + b.Source + "]";
                                output.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"{b.BuildNumber, -15} {b.MachineType, -5} {b.Pdbs.Count, 3} PDB(s)  "
                                            + $"{SymbolCommandOptions.Describe(b)}{source}"
                                    )
                                );
                            }

                            var bySource = catalog
                                .Builds.GroupBy(b => b.Source ?? "?")
                                .Select(g =>
                                    g.Count().ToString(CultureInfo.InvariantCulture)
                                    + " from "
                                    + (g.Key == SqlBuildCatalog.EmbeddedSource ? "the embedded catalog" : g.Key)
                                );
                            output.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{builds.Count} build(s) listed; {string.Join(", ", bySource)}"
                                )
                            );
                            return ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze symbols catalog list",
            "xeanalyze symbols catalog list --machine x86 " + "--catalog my-builds.json"
        );
        return command;
    }

    private static Command CreateAdd()
    {
        var symbols = new SymbolCommandOptions();
        var label = new Option<string?>("--label")
        {
            Description = "The Label recorded (e.g. CU16); default: 'recorded by xeanalyze symbols catalog add'.",
        };
        var all = new Option<bool>("--all-modules")
        {
            Description = "Record every DLL/EXE with an RSDS record, not only the engine's (sql*, hk*, qds).",
        };
        var machine = new Option<string?>("--machine")
        {
            Description = "The machine type to record (x64, x86); default: the images' own.",
        };
        var command = new Command(
            "add",
            "Record a build from the RSDS records of its DLLs (the Binn folder) into a catalog file: --catalog FILE, "
                + "else $"
                + SymbolCommandOptions.CatalogEnvironmentVariable
                + ", else the per-user catalog ("
                + SqlBuildCatalog.GetUserCatalogPath()
                + "), which every --sql-build lookup reads."
        );
        command.Options.Add(symbols.Binaries);
        command.Options.Add(symbols.SqlBuild);
        command.Options.Add(machine);
        command.Options.Add(symbols.Catalog);
        command.Options.Add(label);
        command.Options.Add(all);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            string number =
                                parse.GetValue(symbols.SqlBuild)
                                ?? throw new UsageException(
                                    "catalog add: give the build number with --sql-build, e.g. --sql-build "
                                        + "16.0.4135.4"
                                );
                            SymbolCommandOptions.CheckBuildNumber(number, "catalog add: --sql-build");

                            ModuleBinaries binaries =
                                symbols.GetBinaries(parse, cancellationToken)
                                ?? throw new UsageException(
                                    "catalog add: give the folder with the build's DLLs with --binaries DIR (its "
                                        + "Binn folder)"
                                );
                            foreach (string w in binaries.Warnings)
                            {
                                error.WriteLine("xeanalyze: warning: binaries: " + w);
                            }

                            SqlBuildInfo build;
                            try
                            {
                                build = SqlBuildCatalog.Describe(
                                    number,
                                    parse.GetValue(machine),
                                    binaries.Images,
                                    parse.GetValue(all),
                                    parse.GetValue(label)
                                );
                            }
                            catch (ArgumentException ex)
                            {
                                throw new UsageException("catalog add: " + ex.Message.Split(" (Parameter", 2)[0]);
                            }

                            string target = symbols.GetCatalogPath(parse) ?? SqlBuildCatalog.GetUserCatalogPath();
                            int replaced = SqlBuildCatalog.AddToFile(target, build);
                            foreach (SqlBuildPdb p in build.Pdbs)
                            {
                                output.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"{p.PdbFileName} {p.Identity} {p.FileVersion ?? "(no version resource)"}"
                                    )
                                );
                            }

                            SqlBuildLookupResult embedded = SqlBuildCatalog.Embedded.Find(number, build.MachineType);
                            string replacing = replaced > 0 ? ", replacing its earlier entry" : string.Empty;
                            string overrides =
                                embedded.Status == SqlBuildLookupStatus.NotFound
                                    ? string.Empty
                                    : "; it overrides the embedded entry of that build";
                            output.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"recorded {build.BuildNumber} {build.MachineType} ({build.Pdbs.Count} PDB(s)) "
                                        + $"in {Path.GetFullPath(target)}"
                                        + $"{replacing}{overrides}"
                                )
                            );
                            return ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze symbols catalog add --binaries /mnt/sql/MSSQL16.MSSQLSERVER/MSSQL/Binn --sql-build 16.0.4135.4 "
                + "--label CU16",
            "xeanalyze symbols catalog add --binaries ./Binn --sql-build 16.0.4135.4 --catalog my-builds.json"
        );
        return command;
    }

    private static string Source(SqlBuildInfo b) =>
        b.Source == SqlBuildCatalog.EmbeddedSource
            ? "embedded catalog (sqlbuildinfo.json of microsoft/SQLCallStackResolver, MIT), line "
                + b.LineNumber.ToString(CultureInfo.InvariantCulture)
            : (b.Source ?? "?") + ", line " + b.LineNumber.ToString(CultureInfo.InvariantCulture);
}
