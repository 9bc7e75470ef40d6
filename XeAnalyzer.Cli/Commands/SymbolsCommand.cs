using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Store;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze symbols fetch|verify|list|catalog</c>: fill a symbol cache from a symbol server (a SQL Server build's
/// PDBs from the build catalog, or one PDB by GUID/age), check that every cached PDB matches its folder key, list a
/// cache, and show, list or extend the SQL Server build catalog (<c>catalog show BUILD</c>, <c>catalog list</c>,
/// <c>catalog add --binaries DIR --sql-build BUILD</c>). Exit codes: 0 done; 1 unreadable input (catalog, folder); 2
/// usage (an unknown build); 3 some PDBs could not be fetched, or the cache holds invalid files.
/// </summary>
internal static class SymbolsCommand
{
    public static Command Create()
    {
        var command = new Command(
            "symbols",
            "Manage symbol caches (fetch a build's PDBs from a symbol server, verify, list) and the SQL Server build "
                + "catalog."
        );
        command.Subcommands.Add(CreateFetch());
        command.Subcommands.Add(CreateVerify());
        command.Subcommands.Add(CreateList());
        command.Subcommands.Add(CatalogCommand.Create());
        command.WithExamples(
            "xeanalyze symbols fetch --sql-build 13.0.4001.0 --symbols "
                + "\"srv*./syms*https://msdl.microsoft.com/download/symbols\"",
            "xeanalyze symbols catalog show 13.0.4001.0"
        );
        return command;
    }

    private static Command CreateFetch()
    {
        var symbols = new SymbolCommandOptions();
        var pdb = new Option<string?>("--pdb")
        {
            Description = "One PDB to fetch by name (with --guid and --age), e.g. sqlmin.pdb.",
        };
        var guid = new Option<string?>("--guid") { Description = "The PDB's GUID (any common form)." };
        var age = new Option<string?>("--age") { Description = "The PDB's age (decimal, or hex with 0x)." };
        var command = new Command(
            "fetch",
            "Download PDBs into the cache of the symbol path (default: srv*<default cache>*"
                + SymbolCommandOptions.MicrosoftSymbolServer
                + "): every PDB of --sql-build, or --pdb/--guid/--age."
        );
        symbols.AddPathOptions(command);
        symbols.AddBuildOptions(command);
        command.Options.Add(pdb);
        command.Options.Add(guid);
        command.Options.Add(age);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            var requests = new List<PdbRequest>();
                            SqlBuildInfo? build = symbols.GetSqlBuild(parse, cancellationToken);
                            if (build is not null)
                            {
                                requests.AddRange(build.Pdbs.Select(p => new PdbRequest(p.PdbFileName, p.Identity)));
                            }

                            string? name = parse.GetValue(pdb);
                            if (name is not null)
                            {
                                requests.Add(
                                    new PdbRequest(name, ParseIdentity(parse.GetValue(guid), parse.GetValue(age)))
                                );
                            }
                            else if (parse.GetValue(guid) is not null || parse.GetValue(age) is not null)
                            {
                                throw new UsageException("--guid and --age go with --pdb NAME");
                            }

                            if (requests.Count == 0)
                            {
                                throw new UsageException(
                                    "symbols fetch: give --sql-build BUILD or --pdb NAME --guid GUID --age AGE"
                                );
                            }

                            string fallback =
                                "srv*"
                                + SymbolStoreOptions.GetDefaultCacheDirectory()
                                + "*"
                                + SymbolCommandOptions.MicrosoftSymbolServer;
                            using var locator = new SymbolLocator(
                                symbols.GetSymbolPath(parse, fallback),
                                symbols.GetStoreOptions(parse)
                            );
                            foreach (string w in locator.SymbolPath.Warnings)
                            {
                                error.WriteLine("xeanalyze: warning: symbol path: " + w);
                            }

                            if (build is not null)
                            {
                                output.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"build {build.DisplayName}: {build.Pdbs.Count} PDB(s)"
                                    )
                                );
                            }

                            IReadOnlyList<PdbLookupResult> results = locator.Fetch(requests, cancellationToken);
                            int missing = 0;
                            foreach (PdbLookupResult r in results)
                            {
                                string id = r.RequestedIdentity?.ToString() ?? "?";
                                if (r.IsFound)
                                {
                                    output.WriteLine(
                                        PdbNames.Printable(r.PdbName)
                                            + " "
                                            + id
                                            + ": "
                                            + (r.Origin == PdbOrigin.Server ? "downloaded" : "present")
                                            + " "
                                            + r.Path
                                    );
                                }
                                else
                                {
                                    missing++;
                                    output.WriteLine(PdbNames.Printable(r.PdbName) + " " + id + ": not found");
                                    foreach (string reason in r.Reasons)
                                    {
                                        output.WriteLine("  " + reason);
                                    }
                                }
                            }

                            foreach (string problem in locator.GetServerProblems())
                            {
                                error.WriteLine("xeanalyze: warning: symbol server skipped: " + problem);
                            }

                            if (missing > 0)
                            {
                                error.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"xeanalyze: {missing} of {results.Count} PDB(s) could not be fetched"
                                    )
                                );
                                return ExitCodes.Partial;
                            }

                            return ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze symbols fetch --sql-build 13.0.4001.0 --symbols "
                + "\"srv*./syms*https://msdl.microsoft.com/download/symbols\"",
            "xeanalyze symbols fetch --pdb sqlmin.pdb --guid 6a193443-3512-464b-8b8e-d905ad930ee6 --age 2"
        );
        return command;
    }

    private static Command CreateVerify()
    {
        Argument<string?> dir = CacheArgument();
        var delete = new Option<bool>("--delete-invalid")
        {
            Description =
                "Delete PDBs whose GUID/age do not match their folder key, unreadable PDBs and partial downloads.",
        };
        var command = new Command(
            "verify",
            "Check that every PDB of a symbol cache has the GUID and age its folder key names (default folder: the "
                + "default cache)."
        );
        command.Arguments.Add(dir);
        command.Options.Add(delete);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            string root = parse.GetValue(dir) ?? SymbolStoreOptions.GetDefaultCacheDirectory();
                            bool deleting = parse.GetValue(delete);
                            IReadOnlyList<SymbolCacheEntry> entries = SymbolCache.Verify(
                                root,
                                deleting,
                                cancellationToken
                            );
                            int ok = 0,
                                bad = 0;
                            foreach (SymbolCacheEntry e in entries)
                            {
                                switch (e.Status)
                                {
                                    case SymbolCacheEntryStatus.Ok:
                                        ok++;
                                        output.WriteLine("ok         " + e.Path);
                                        break;
                                    case SymbolCacheEntryStatus.Mismatch:
                                    case SymbolCacheEntryStatus.Unreadable:
                                    case SymbolCacheEntryStatus.Stray
                                        when e.Kind == SymbolCacheEntryKind.PartialDownload:
                                        bad++;
                                        output.WriteLine(
                                            (
                                                e.Status == SymbolCacheEntryStatus.Mismatch ? "mismatch   "
                                                : e.Status == SymbolCacheEntryStatus.Unreadable ? "unreadable "
                                                : "partial    "
                                            )
                                                + e.Path
                                                + ": "
                                                + e.Problem
                                                + (deleting ? " (deleted)" : string.Empty)
                                        );
                                        break;
                                }
                            }

                            output.WriteLine(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"{ok} PDB(s) ok, {bad} "
                                        + $"invalid{(deleting && bad > 0 ? " (deleted)" : string.Empty)} in "
                                        + $"{Path.GetFullPath(root)}"
                                )
                            );
                            return bad > 0 ? ExitCodes.Partial : ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze symbols verify symbols-cache",
            "xeanalyze symbols verify ./syms " + "--delete-invalid"
        );
        return command;
    }

    private static Command CreateList()
    {
        Argument<string?> dir = CacheArgument();
        var command = new Command(
            "list",
            "List the files of a symbol cache: name, key (GUID/age), kind, size (default folder: the default cache)."
        );
        command.Arguments.Add(dir);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            string root = parse.GetValue(dir) ?? SymbolStoreOptions.GetDefaultCacheDirectory();
                            int n = 0;
                            foreach (
                                SymbolCacheEntry e in SymbolCache.Enumerate(root, verify: false, cancellationToken)
                            )
                            {
                                n++;
                                string identity = e.KeyIdentity?.ToString() ?? e.Key ?? "-";
                                output.WriteLine(
                                    string.Create(
                                        CultureInfo.InvariantCulture,
                                        $"{KindText(e.Kind), -14} {e.Name ?? "-", -28} {identity, -40} "
                                            + $"{e.Length, 12} {Path.GetRelativePath(Path.GetFullPath(root), e.Path)}"
                                    )
                                );
                            }

                            output.WriteLine(
                                string.Create(CultureInfo.InvariantCulture, $"{n} file(s) in {Path.GetFullPath(root)}")
                            );
                            return ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples("xeanalyze symbols list symbols-cache");
        return command;
    }

    private static Argument<string?> CacheArgument() =>
        new Argument<string?>("folder")
        {
            Description = "The cache or store folder (default: the per-user default cache).",
            Arity = ArgumentArity.ZeroOrOne,
        }.AcceptsPaths("a folder");

    private static string KindText(SymbolCacheEntryKind kind) =>
        kind switch
        {
            SymbolCacheEntryKind.Pdb => "pdb",
            SymbolCacheEntryKind.CompressedPdb => "pdb (cab)",
            SymbolCacheEntryKind.PointerFile => "pointer",
            SymbolCacheEntryKind.PartialDownload => "partial",
            _ => "other",
        };

    private static PdbIdentity ParseIdentity(string? guidText, string? ageText)
    {
        if (guidText is null || ageText is null)
        {
            throw new UsageException("--pdb needs --guid and --age");
        }

        if (!Guid.TryParse(guidText.Trim(), out Guid guid))
        {
            throw new UsageException(
                "--guid: expected a GUID such as 6a193443-3512-464b-8b8e-d905ad930ee6, found '"
                    + PdbNames.Printable(guidText)
                    + "'"
            );
        }

        string a = ageText.Trim();
        bool hex = a.StartsWith("0x", StringComparison.OrdinalIgnoreCase);
        if (
            !int.TryParse(
                hex ? a[2..] : a,
                hex ? NumberStyles.AllowHexSpecifier : NumberStyles.None,
                CultureInfo.InvariantCulture,
                out int age
            )
            || age < 0
        )
        {
            throw new UsageException(
                "--age: expected a non-negative number (decimal, or hex with 0x), found '"
                    + PdbNames.Printable(ageText)
                    + "'"
            );
        }

        return new PdbIdentity(guid, age);
    }
}
