using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>
/// Builds the one-page report of <c>xeanalyze report</c>: opens the inputs (<c>.xel</c> files and rollover sets, folders, globs,
/// target-data XML) as one <see cref="CaptureSource"/>, reads them once while the capture summary and every distinct analysis consume
/// the events (<see cref="AnalysisOutcome.RunAll"/>'s contract), and lets each section describe its analysis's result. A section the
/// capture does not allow becomes a note saying what the event session would need.
/// </summary>
/// <remarks>
/// Thread-safe: several reports may be built at once (batch mode), sharing one <see cref="ReportOptions.Resolver"/>. The result never
/// depends on the wall clock or on what other reports did (a report lists only the PDBs its own frames used).
/// </remarks>
public static class CaptureReporter
{
    /// <summary>Reads the inputs and builds the report.</summary>
    /// <param name="inputs">Files, folders or globs (as <see cref="CaptureSource.Open"/> takes them).</param>
    /// <param name="options">Options; <see langword="null"/> for <see cref="ReportOptions.Default"/>.</param>
    /// <param name="cancellationToken">Stops the report.</param>
    /// <returns>The report (not yet written: see <see cref="CaptureReport.Write"/>).</returns>
    /// <exception cref="FileNotFoundException">An input names nothing that exists.</exception>
    /// <exception cref="XeFormatException">An input is malformed (a <c>.xel</c> file in strict mode, XML that is not target data, an explicit module list).</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public static CaptureReport Run(IReadOnlyList<string> inputs, ReportOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        options ??= ReportOptions.Default;
        Func<string, string> display = options.DisplayPath ?? (p => p);
        IReadOnlyList<IReportAnalysis> sections = options.Analyses ?? ReportAnalyses.CreateDefault();
        ValidateKeys(sections);
        CaptureSource source = CaptureSource.Open(inputs, options.Input, cancellationToken);
        CallstackResolver? owned = options.Resolver is null ? new CallstackResolver() : null;
        try
        {
            var diagnostics = new CaptureDiagnostics();
            var context = new AnalysisContext(options.Filter, diagnostics, options.Resolver ?? owned, display);

            // Each distinct analysis runs once, however many sections describe it.
            var analyses = new List<ICaptureAnalysis>();
            foreach (IReportAnalysis s in sections)
            {
                if (!analyses.Contains(s.Analysis, ReferenceEqualityComparer.Instance))
                {
                    analyses.Add(s.Analysis);
                }
            }

            var runs = new List<IAnalysisRun>(analyses.Select(a => a.Start(context)));
            CaptureSummary read = source.Read(runs, options.Filter, AnalysisOutcome.EventNamesOf(analyses), diagnostics, cancellationToken);
            var results = new IAnalysisResult[runs.Count];
            for (int i = 0; i < runs.Count; i++)
            {
                results[i] = runs[i].Complete(read, cancellationToken);
            }

            var entries = new ReportAnalysisEntry[sections.Count];
            for (int i = 0; i < sections.Count; i++)
            {
                IAnalysisResult result = results[analyses.FindIndex(a => ReferenceEquals(a, sections[i].Analysis))];
                entries[i] = new ReportAnalysisEntry(sections[i].Key, sections[i].Title, sections[i].Describe(result, read, context));
            }

            var warnings = new List<string>();
            foreach (Xel.XelWarning w in diagnostics.Reader.Warnings)
            {
                warnings.Add(display(w.FilePath) + ": byte offset " + w.Offset.ToString(CultureInfo.InvariantCulture) + ": " + w.Message);
            }

            if (diagnostics.Reader.WarningCount > diagnostics.Reader.Warnings.Count)
            {
                warnings.Add((diagnostics.Reader.WarningCount - diagnostics.Reader.Warnings.Count).ToString(CultureInfo.InvariantCulture) + " more reader warnings not shown");
            }

            warnings.AddRange(diagnostics.Warnings.Skip(diagnostics.Reader.Warnings.Count));
            string[] shownInputs = [.. inputs.Select(display)];
            return new CaptureReport(
                options.Title ?? "XeAnalyzer report: " + (shownInputs.Length == 1 ? shownInputs[0] : shownInputs.Length.ToString(CultureInfo.InvariantCulture) + " inputs"),
                shownInputs,
                options.Filter.IsEmpty ? null : options.Filter.ToString(),
                read,
                display,
                entries,
                warnings);
        }
        finally
        {
            owned?.Dispose();
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
}
