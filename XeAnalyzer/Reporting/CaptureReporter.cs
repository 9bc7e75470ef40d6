using System.Globalization;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Reporting;

/// <summary>
/// Builds the one-page report of <c>xeanalyze report</c>: opens the inputs (<c>.xel</c> files and rollover sets,
/// folders, globs, target-data XML) as one <see cref="CaptureSource"/>, reads them once while every distinct analysis
/// consumes the events (<see cref="AnalysisOutcome.RunAll"/>), and composes the sections each result gives
/// (<see cref="IAnalysisResult.Sections"/>) after the capture's overview, built over the read's summary. A section the
/// capture does not allow becomes a note saying what the event session would need.
/// </summary>
/// <remarks>
/// Thread-safe: several reports may be built at once (batch mode), sharing one <see cref="ReportOptions.Resolver"/>.
/// The result never depends on the wall clock or on what other reports did (a report lists only the PDBs its own frames
/// used).
/// </remarks>
public static class CaptureReporter
{
    /// <summary>Reads the inputs and builds the report.</summary>
    /// <param name="inputs">Files, folders or globs (as <see cref="CaptureSource.Open"/> takes them).</param>
    /// <param name="options">Options; <see langword="null"/> for <see cref="ReportOptions.Default"/>.</param>
    /// <param name="cancellationToken">Stops the report.</param>
    /// <returns>The report (not yet written: see <see cref="CaptureReport.Write"/>).</returns>
    /// <exception cref="FileNotFoundException">An input names nothing that exists.</exception>
    /// <exception cref="XeFormatException">An input is malformed (a <c>.xel</c> file in strict mode, XML that is not
    /// target data, an explicit module list).</exception>
    /// <exception cref="IOException">An input cannot be read.</exception>
    public static CaptureReport Run(
        IReadOnlyList<string> inputs,
        ReportOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(inputs);
        options ??= ReportOptions.Default;
        Func<string, string> display = options.DisplayPath ?? (p => p);
        IReadOnlyList<ICaptureAnalysis> given = options.Analyses ?? ReportAnalyses.CreateDefault();
        CaptureSource source = CaptureSource.Open(inputs, options.Input, cancellationToken);
        CallstackResolver? owned = options.Resolver is null ? new CallstackResolver() : null;
        try
        {
            var diagnostics = new CaptureDiagnostics();
            var context = new AnalysisContext(options.Filter, diagnostics, options.Resolver ?? owned, display);

            // Each distinct analysis runs once; each result gives its sections.
            ICaptureAnalysis[] analyses =
            [
                .. given.Distinct(ReferenceEqualityComparer.Instance).Cast<ICaptureAnalysis>(),
            ];
            (CaptureSummary read, IAnalysisResult[] results) = AnalysisOutcome.Read(
                source,
                analyses,
                context,
                cancellationToken
            );
            IAnalysisResult[] sections = [.. results.SelectMany(r => r.Sections)];
            ValidateKeys(sections);

            var warnings = new List<string>();
            foreach (Xel.XelWarning w in diagnostics.Reader.Warnings)
            {
                warnings.Add(
                    display(w.FilePath)
                        + ": byte offset "
                        + w.Offset.ToString(CultureInfo.InvariantCulture)
                        + ": "
                        + w.Message
                );
            }

            if (diagnostics.Reader.WarningCount > diagnostics.Reader.Warnings.Count)
            {
                warnings.Add(
                    (diagnostics.Reader.WarningCount - diagnostics.Reader.Warnings.Count).ToString(
                        CultureInfo.InvariantCulture
                    ) + " more reader warnings not shown"
                );
            }

            warnings.AddRange(diagnostics.Warnings.Skip(diagnostics.Reader.Warnings.Count));
            string[] shownInputs = [.. inputs.Select(display)];
            return new CaptureReport(
                options.Title
                    ?? "XeAnalyzer report: "
                        + (
                            shownInputs.Length == 1
                                ? shownInputs[0]
                                : shownInputs.Length.ToString(CultureInfo.InvariantCulture) + " inputs"
                        ),
                shownInputs,
                options.Filter.IsEmpty ? null : options.Filter.ToString(),
                read,
                display,
                sections,
                warnings,
                options
            );
        }
        finally
        {
            owned?.Dispose();
        }
    }

    private static void ValidateKeys(IReadOnlyList<IAnalysisResult> sections)
    {
        var keys = new HashSet<string>(StringComparer.Ordinal) { "report", "capture" };
        foreach (IAnalysisResult a in sections)
        {
            if (string.IsNullOrEmpty(a.Key) || !a.Key.All(c => c is (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-'))
            {
                throw new ArgumentException(
                    "an analysis key must be lowercase letters, digits and '-': '" + a.Key + "'",
                    nameof(sections)
                );
            }

            if (!keys.Add(a.Key))
            {
                throw new ArgumentException(
                    "the analysis key '" + a.Key + "' is used twice (or reserved)",
                    nameof(sections)
                );
            }
        }
    }
}
