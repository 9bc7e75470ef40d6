using XeAnalyzer.Analysis;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Events;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.TargetData;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Reporting;

/// <summary>
/// Builds the one-page report of <c>xeanalyze report</c>: reads the inputs (<c>.xel</c> files and rollover sets, folders, globs,
/// target-data XML) once, summarizes what they hold, and runs every <see cref="IReportAnalysis"/> over the events it accepts.
/// Each analysis the events do not allow becomes a note saying what the event session would need.
/// </summary>
/// <remarks>
/// Thread-safe: several reports may be built at once (batch mode), sharing one <see cref="ReportOptions.Resolver"/>. The
/// result never depends on the wall clock or on what other reports did (a report lists only the PDBs its own frames used).
/// </remarks>
public static class CaptureReporter
{
    /// <summary>Reads the inputs and builds the report.</summary>
    /// <param name="inputs">Files, folders or globs (as <see cref="AnalysisInput.Open"/> takes them).</param>
    /// <param name="options">Options; <see langword="null"/> for <see cref="ReportOptions.Default"/>.</param>
    /// <param name="cancellationToken">Stops the report.</param>
    /// <returns>The report (not yet written: see <see cref="CaptureReport.WriteAsync"/>).</returns>
    /// <exception cref="FileNotFoundException">An input names nothing that exists.</exception>
    /// <exception cref="XeFormatException">An input is malformed (a <c>.xel</c> file in strict mode, XML that is not target data, an explicit module list).</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public static CaptureReport Run(IReadOnlyList<string> inputs, ReportOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        options ??= ReportOptions.Default;
        Func<string, string> display = options.DisplayPath ?? (p => p);
        IReadOnlyList<IReportAnalysis> analyses = options.Analyses ?? ReportAnalyses.CreateDefault();
        ValidateKeys(analyses);
        AnalysisInput input = AnalysisInput.Open(inputs, options.Input);
        foreach (string xml in input.TargetDataFiles)
        {
            RequireTargetData(xml, options.Input, cancellationToken);
        }

        CallstackResolver? owned = options.Resolver is null ? new CallstackResolver() : null;
        try
        {
            CallstackResolver resolver = options.Resolver ?? owned!;
            var warnings = new List<string>();
            var summary = new CaptureSummaryBuilder();
            ReportAnalysisContext context = CreateContext(input, options, resolver, display, summary, warnings, cancellationToken);
            var outcomes = new ReportAnalysisOutcome?[analyses.Count];
            XelDiagnostics diagnostics;
            if (options.ReadMode == ReportReadMode.SinglePass)
            {
                var consumers = new EventFanOut.Consumer[analyses.Count];
                for (int i = 0; i < consumers.Length; i++)
                {
                    int k = i;
                    IReportAnalysis a = analyses[k];
                    consumers[k] = new EventFanOut.Consumer(a.Accepts, (events, token) => outcomes[k] = a.Analyze(events, context, token));
                }

                EventFanOut.Run(input.ReadEvents(options.Filter, null, cancellationToken), summary.Add, consumers, cancellationToken);
                diagnostics = input.Diagnostics;
                warnings.AddRange(input.Warnings);
            }
            else
            {
                foreach (XEvent e in input.ReadEvents(options.Filter, null, cancellationToken))
                {
                    summary.Add(e);
                }

                diagnostics = input.Diagnostics;
                warnings.AddRange(input.Warnings);
                for (int i = 0; i < analyses.Count; i++)
                {
                    IReportAnalysis a = analyses[i];
                    outcomes[i] = a.Analyze(Accepted(input.ReadEvents(options.Filter, a.EventNames, cancellationToken), a), context, cancellationToken);
                }
            }

            var entries = new ReportAnalysisEntry[analyses.Count];
            for (int i = 0; i < entries.Length; i++)
            {
                entries[i] = new ReportAnalysisEntry(analyses[i].Key, analyses[i].Title,
                    outcomes[i] ?? throw new InvalidOperationException("the analysis " + analyses[i].Key + " returned no outcome"));
            }

            foreach (XelWarning w in diagnostics.Warnings)
            {
                warnings.Add(display(w.FilePath) + ": byte offset " + w.Offset.ToString(System.Globalization.CultureInfo.InvariantCulture) + ": " + w.Message);
            }

            if (diagnostics.WarningCount > diagnostics.Warnings.Count)
            {
                warnings.Add((diagnostics.WarningCount - diagnostics.Warnings.Count).ToString(System.Globalization.CultureInfo.InvariantCulture) + " more reader warnings not shown");
            }

            string[] shownInputs = [.. inputs.Select(display)];
            return new CaptureReport(
                options.Title ?? "XeAnalyzer report: " + (shownInputs.Length == 1 ? shownInputs[0] : shownInputs.Length.ToString(System.Globalization.CultureInfo.InvariantCulture) + " inputs"),
                shownInputs,
                options.Filter.IsEmpty ? null : options.Filter.ToString(),
                summary.Build(display),
                entries,
                new ReportReadStatistics(diagnostics.SkippedBuffers, diagnostics.IncompleteBuffers, diagnostics.UndecodableEvents),
                warnings);
        }
        finally
        {
            owned?.Dispose();
        }
    }

    /// <summary>Fails unless an XML input holds Extended Events target data (a target root element such as <c>RingBufferTarget</c>).</summary>
    private static void RequireTargetData(string path, AnalysisInputOptions options, CancellationToken cancellationToken)
    {
        foreach (TargetDataElement e in TargetDataReader.ReadFile(path, new TargetDataReaderOptions { FilePath = path, Limits = options.TextLimits }, cancellationToken))
        {
            if (e is TargetStart)
            {
                return;
            }
        }

        throw new InvalidTextInputException(path, null,
            "expected Extended Events target data (a RingBufferTarget, HistogramTarget, CounterTarget, unpaired, EventFileTarget, event or Events root element), found none");
    }

    private static IEnumerable<XEvent> Accepted(IEnumerable<XEvent> events, IReportAnalysis analysis)
    {
        XeEventType? lastType = null;
        XeActionSet? lastActions = null;
        bool accepted = false;
        foreach (XEvent e in events)
        {
            if (!ReferenceEquals(e.EventType, lastType) || !ReferenceEquals(e.ActionSet, lastActions))
            {
                lastType = e.EventType;
                lastActions = e.ActionSet;
                accepted = analysis.Accepts(lastType, lastActions);
            }

            if (accepted)
            {
                yield return e;
            }
        }
    }

    private static void ValidateKeys(IReadOnlyList<IReportAnalysis> analyses)
    {
        var keys = new HashSet<string>(StringComparer.Ordinal) { "report", "capture" };
        foreach (IReportAnalysis a in analyses)
        {
            ArgumentNullException.ThrowIfNull(a);
            if (string.IsNullOrEmpty(a.Key) || !a.Key.All(c => c is (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-'))
            {
                throw new ArgumentException("an analysis key must be lowercase letters, digits and '-': '" + a.Key + "'", nameof(analyses));
            }

            if (!keys.Add(a.Key))
            {
                throw new ArgumentException("the analysis key '" + a.Key + "' is used twice (or reserved)", nameof(analyses));
            }
        }
    }

    private static ReportAnalysisContext CreateContext(
        AnalysisInput input, ReportOptions options, CallstackResolver resolver, Func<string, string> display, CaptureSummaryBuilder summary, List<string> warnings, CancellationToken cancellationToken)
    {
        var maps = new Dictionary<string, ResolverSession>(StringComparer.Ordinal);
        var sessions = new Dictionary<string, ResolverSession>(StringComparer.Ordinal);
        var lists = new Dictionary<string, string>(StringComparer.Ordinal);
        ModuleMap? explicitMap = options.ModuleList is null ? null : ModuleMap.Load(options.ModuleList, cancellationToken);

        void Bind(string file, string? listPath, string? shown)
        {
            if (listPath is null)
            {
                return;
            }

            if (!maps.TryGetValue(listPath, out ResolverSession? session))
            {
                ModuleMap? map = explicitMap;
                if (map is null)
                {
                    try
                    {
                        map = ModuleMap.Load(listPath, cancellationToken);
                    }
                    catch (Exception ex) when (ex is XeFormatException or IOException or UnauthorizedAccessException)
                    {
                        warnings.Add("module list " + display(listPath) + " is not usable (" + ex.Message + "); raw addresses stay unresolved");
                        return;
                    }
                }

                session = resolver.CreateSession(map);
                maps.Add(listPath, session);
            }

            sessions[file] = session;
            lists[file] = shown ?? listPath;
        }

        foreach (CaptureSet set in input.Captures)
        {
            string? list = options.ModuleList ?? (options.FindModuleLists ? ModuleListSidecar.Find(set) : null);
            string? shown = Beside(set.Files[0], list, options.ModuleList is null);
            foreach (string f in set.Files)
            {
                Bind(f, list, shown);
                summary.AddFile(f, Length(f), lists.GetValueOrDefault(f));
            }
        }

        foreach (string xml in input.TargetDataFiles)
        {
            string? list = options.ModuleList ?? (options.FindModuleLists ? ModuleListSidecar.Find(xml) : null);
            Bind(xml, list, Beside(xml, list, options.ModuleList is null));
            summary.AddFile(xml, Length(xml), lists.GetValueOrDefault(xml));
        }

        return new ReportAnalysisContext(resolver, sessions, resolver.CreateSession(explicitMap), lists, display, input.Captures, input.TargetDataFiles, options.Input, options.ModuleList is not null, options.Filter);
    }

    /// <summary>A sidecar found beside a capture is shown next to the capture's path as given (not as the absolute path found).</summary>
    private static string? Beside(string capture, string? list, bool isSidecar)
    {
        if (list is null || !isSidecar)
        {
            return list;
        }

        string? dir = Path.GetDirectoryName(capture);
        return string.IsNullOrEmpty(dir) ? Path.GetFileName(list) : Path.Combine(dir, Path.GetFileName(list));
    }

    private static long Length(string path)
    {
        try
        {
            return new FileInfo(path).Length;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return 0;
        }
    }
}
