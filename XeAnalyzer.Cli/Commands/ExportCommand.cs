using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Export;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Xel;
using XeAnalyzer.Cli.Progress;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze export &lt;capture...&gt; --format parquet -o DIR [--event NAME] [--row-group-size N] [--compression zstd|snappy|gzip|none]
/// [--skip-corrupt] [--resolve [--symbols …] [--modules FILE] [--binaries DIR] [--sql-build B --catalog F] [--frame-style S] [--no-offsets]]</c>:
/// one Parquet file per event (<c>package.event.parquet</c>) for Spark, DuckDB or Databricks. With <c>--resolve</c>, every callstack
/// column is followed by <c>name_frames</c> (LIST&lt;STRING&gt;) holding the resolved frames; raw addresses are mapped with
/// <c>--modules</c> or each capture's <c>&lt;set-name&gt;.modules.txt</c> sidecar. Prints one line per file written and a total.
/// </summary>
internal static class ExportCommand
{
    public static Command Create()
    {
        Argument<string[]> captures = CaptureCommandSupport.CapturesArgument();
        Option<bool> skip = CaptureCommandSupport.SkipCorruptOption();
        var format = new Option<string>("--format") { Description = "Output format (parquet is the only one for now).", DefaultValueFactory = _ => "parquet" };
        format.AcceptOnlyFromAmong("parquet");
        var output = new Option<string>("--output", "-o") { Description = "The folder to write (created when missing; files of the same name are replaced).", Required = true };
        var eventNames = new Option<string[]>("--event") { Description = "Only these events (package.event or event); repeatable.", AllowMultipleArgumentsPerToken = true };
        var rowGroup = new Option<int?>("--row-group-size") { Description = "Rows per Parquet row group (default 131072; a row group also closes at about 32 MiB of buffered values)." };
        var compression = new Option<string>("--compression") { Description = "Page compression: zstd (default; smallest files), snappy (fastest), gzip or none.", DefaultValueFactory = _ => "zstd" };
        compression.AcceptOnlyFromAmong("zstd", "snappy", "gzip", "none");
        var resolve = new Option<bool>("--resolve") { Description = "Add a <name>_frames LIST<STRING> column with resolved frames after each callstack column (symbol options as for resolve/stacks)." };
        var symbols = new SymbolCommandOptions();
        var command = new Command("export", "Export events to Parquet files, one per event type, for Spark, DuckDB or Databricks.");
        command.Arguments.Add(captures);
        command.Options.Add(format);
        command.Options.Add(output);
        command.Options.Add(eventNames);
        command.Options.Add(rowGroup);
        command.Options.Add(compression);
        command.Options.Add(skip);
        command.Options.Add(resolve);
        symbols.AddPathOptions(command);
        command.Options.Add(symbols.Modules);
        symbols.AddBuildOptions(command);
        command.Options.Add(symbols.Binaries);
        symbols.AddFrameOptions(command);
        command.SetAction(parse => CaptureCommandSupport.Run(parse, (stdout, error) =>
        {
            int? rows = parse.GetValue(rowGroup);
            if (rows is <= 0)
            {
                throw new UsageException("--row-group-size: expected a positive number of rows");
            }

            string dir = parse.GetValue(output)!;
            if (File.Exists(dir))
            {
                throw new UsageException("-o: '" + dir + "' is a file; expected a folder");
            }

            string[] names = parse.GetValue(eventNames) ?? [];
            IReadOnlyList<CaptureSet> sets = CaptureSet.Expand(parse.GetValue(captures)!);
            var diagnostics = new CaptureDiagnostics();
            XelDiagnostics diag = diagnostics.Reader;
            using FrameResolverPerCapture? frames = parse.GetValue(resolve)
                ? new FrameResolverPerCapture(new CallstackResolver(symbols.GetResolverOptions(parse, CancellationToken.None)), parse.GetValue(symbols.Modules))
                : null;
            var options = new XelExportOptions
            {
                FrameResolver = frames is null ? null : frames.Resolve,
                ReadOptions = new XelReadOptions
                {
                    Integrity = parse.GetValue(skip) ? XelIntegrityHandling.SkipCorruptBuffers : XelIntegrityHandling.Strict,
                    Diagnostics = diag,
                    EventNames = names.Length > 0 ? names : null,
                },
                RowGroupRows = rows ?? XelExportOptions.Default.RowGroupRows,
                Progress = TerminalProgress.Current,
                Compression = parse.GetValue(compression) switch
                {
                    "none" => ParquetCompression.None,
                    "snappy" => ParquetCompression.Snappy,
                    "gzip" => ParquetCompression.Gzip,
                    _ => ParquetCompression.Zstd,
                },
            };

            XelExportResult result = XelParquetExporter.Export(sets.SelectMany(s => s.Files), dir, options);
            foreach (string note in result.Notes)
            {
                error.WriteLine("xeanalyze: note: " + note);
            }

            foreach (XelExportTable t in result.Tables)
            {
                stdout.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{t.Path}: {t.Rows} rows, {t.RowGroups} row group(s), {t.Bytes} bytes"));
            }

            long bytes = result.Tables.Sum(t => t.Bytes);
            stdout.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{result.Tables.Count} file(s), {result.Events} events, {bytes} bytes"));
            if (result.SkippedEvents > 0 || result.DroppedActionValues > 0)
            {
                error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"xeanalyze: warning: {result.SkippedEvents} event(s) and {result.DroppedActionValues} action value(s) were not in the layout pass (did a capture grow during the export?) and were not written"));
            }

            frames?.WriteSummary(error);
            stdout.Flush();
            int exit = CaptureCommandSupport.Finish(diagnostics, error);
            if (result.Events == 0 && exit == ExitCodes.Ok)
            {
                error.WriteLine("xeanalyze: no events to export" + (names.Length > 0 ? " (no event matches --event " + string.Join(", ", names) + ")" : string.Empty));
                return ExitCodes.MissingData;
            }

            return exit == ExitCodes.Ok && (result.SkippedEvents > 0 || result.DroppedActionValues > 0) ? ExitCodes.Partial : exit;
        }));
        return command;
    }
}

/// <summary>
/// Resolves raw return addresses for <c>export --resolve</c>: one resolver (PDBs opened once) and one session per capture
/// file, whose module map is <c>--modules</c> or the capture's sidecar. Frames are written as stack buckets show them
/// (<see cref="FrameResolution.DisplayText"/>: an unresolved frame in a known module as <c>module+0x…</c>, else the raw address);
/// the counts and reasons are summarised on stderr.
/// </summary>
internal sealed class FrameResolverPerCapture : IDisposable
{
    private readonly CallstackResolver _resolver;
    private readonly string? _modulesPath;
    private readonly Dictionary<string, ResolverSession> _sessions = new(StringComparer.Ordinal);
    private readonly Dictionary<string, long> _unresolved = new(StringComparer.Ordinal);
    private ModuleMap? _globalMap;
    private long _resolved;

    public FrameResolverPerCapture(CallstackResolver resolver, string? modulesPath)
    {
        _resolver = resolver;
        _modulesPath = modulesPath;
        if (modulesPath is not null && !File.Exists(modulesPath))
        {
            throw new FileNotFoundException("the module list " + modulesPath + " does not exist", modulesPath);
        }
    }

    public string Resolve(string captureFile, ulong address)
    {
        if (!_sessions.TryGetValue(captureFile, out ResolverSession? session))
        {
            ModuleMap? map;
            if (_modulesPath is not null)
            {
                map = _globalMap ??= ModuleMap.Load(_modulesPath);
            }
            else
            {
                string? sidecar = ModuleListSidecar.Find(captureFile);
                map = sidecar is null ? null : ModuleMap.Load(sidecar);
            }

            session = _resolver.CreateSession(map);
            _sessions.Add(captureFile, session);
        }

        FrameResolution r = session.ResolveAddress(address);
        if (r.IsResolved)
        {
            _resolved++;
        }
        else
        {
            string group = r.ReasonGroup ?? "unresolved";
            _unresolved[group] = _unresolved.TryGetValue(group, out long n) ? n + 1 : 1;
        }

        // As stack buckets show frames, so the SQL stack buckets over the export match xeanalyze stacks (with --inlines, the
        // frame's inline frames come first in the same element, one per line).
        if (r.TextWithInlineFrames is string withInlines)
        {
            return withInlines;
        }

        return r.DisplayText(new VirtualAddressFrame(address, "0x" + address.ToString("X16", CultureInfo.InvariantCulture)), _resolver.Options.Style);
    }

    public void WriteSummary(TextWriter error)
    {
        error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"xeanalyze: --resolve: {_resolved} distinct address(es) resolved, {_unresolved.Values.Sum()} kept raw"));
        foreach (KeyValuePair<string, long> kv in _unresolved.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal))
        {
            error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"xeanalyze: unresolved: {kv.Value} address(es): {kv.Key}"));
        }
    }

    public void Dispose() => _resolver.Dispose();
}
