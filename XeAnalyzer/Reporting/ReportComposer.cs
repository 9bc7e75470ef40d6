using System.Globalization;
using System.Text;
using XeAnalyzer.Analysis;
using XeAnalyzer.Capture;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>Composes a <see cref="CaptureReport"/> into one <see cref="ReportDocument"/> and plans and writes its
/// files.</summary>
internal static class ReportComposer
{
    private static readonly IFormatProvider Ic = CultureInfo.InvariantCulture;

    public static (ReportDocument Document, IReadOnlyList<ReportFile> Files) Compose(CaptureReport report)
    {
        var sections = new List<(string Key, ReportSection Section)>
        {
            ("report", Overview(report)),
            (
                "capture",
                new ReportSection("Capture", new CaptureOverview(report.Capture, report.DisplayPath).ToBlocks())
            ),
        };

        IReadOnlyList<EventNameCount> found =
        [
            .. report.Capture.EventTypes.Select(e => new EventNameCount(e.Name, e.Count)),
        ];
        BuiltInSession? builtIn = BuiltInSession.Recognise(report.Capture);
        var needs = new List<(IAnalysisResult Analysis, MissingData Missing)>();
        foreach (IAnalysisResult a in report.Analyses)
        {
            if (AnalysisOutcome.Ran(a))
            {
                foreach (ReportSection s in a.ToDocument(DocumentView.Page).Sections)
                {
                    sections.Add(
                        (a.Key, new ReportSection(a.Title + ": " + s.Title, s.Blocks.Select(b => Presented(report, b))))
                    );
                }
            }
            else if (
                a.Status == AnalysisStatus.MissingData
                && a.MissingData is MissingData missing
                && builtIn is not null
            )
            {
                // A session SQL Server manages is not one to alter: what is missing is listed once, at the end.
                needs.Add((a, missing));
            }
            else if (a.Status == AnalysisStatus.MissingData && a.MissingData is MissingData m)
            {
                sections.Add(
                    (
                        a.Key,
                        new ReportSection(
                            a.Title + ": not possible",
                            new Paragraph(m.Message),
                            new Preformatted(
                                m.Describe(found),
                                "What the capture lacks, and the event session change that adds it"
                            )
                        )
                    )
                );
            }
        }

        if (builtIn is not null && needs.Count > 0)
        {
            var t = new TableBuilder("What other analyses would need")
                .AddColumn(TableColumn.Text("analysis"))
                .AddColumn(TableColumn.Text("needs"))
                .AddColumn(TableColumn.Text("why not here"));
            foreach ((IAnalysisResult a, MissingData m) in needs)
            {
                t.AddRow(a.Title, string.Join(", ", m.Missing), m.Message);
            }

            sections.Add(
                (
                    "report",
                    new ReportSection(
                        "Other analyses",
                        new Paragraph(
                            "This capture comes from "
                                + builtIn.Name
                                + ", a session SQL Server manages itself "
                                + "(recognised by "
                                + builtIn.How
                                + "): the sections above analyse what it holds. The analyses "
                                + "below would need events or actions it does not collect; capture them with an event "
                                + "session of "
                                + "your own (docs/capturing-sessions.md has one for each) rather than by altering "
                                + builtIn.Name
                                + "."
                        ),
                        t.Build()
                    )
                )
            );
        }

        if (report.Warnings.Count > 0)
        {
            var w = new TableBuilder("Warnings").AddColumn(TableColumn.Text("warning"));
            foreach (string text in report.Warnings)
            {
                w.AddRow(text);
            }

            sections.Add(("report", new ReportSection("Warnings", w.Build())));
        }

        // Plan the files of every block, then the table listing them (which lists itself too).
        var files = new List<ReportFile>
        {
            new("index.html", ReportFileKind.Html, "this page: every section, charts as inline SVG", null),
            new(
                "report.json",
                ReportFileKind.Json,
                "the whole report as JSON (every table row and every chart point)",
                null
            ),
        };
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "index.html", "report.json" };
        foreach ((string key, ReportSection section) in sections)
        {
            foreach (ReportBlock block in section.Blocks)
            {
                switch (block)
                {
                    case ReportTable t:
                        files.Add(
                            new ReportFile(
                                Unique(names, key, Title(t.Title, section.Title), ".csv"),
                                ReportFileKind.TableCsv,
                                "table: " + Title(t.Title, section.Title),
                                t
                            )
                        );
                        break;
                    case BarChart b:
                        files.Add(
                            new ReportFile(
                                Unique(names, key, Title(b.Title, section.Title), ".svg"),
                                ReportFileKind.Svg,
                                "bar chart: " + Title(b.Title, section.Title),
                                b
                            )
                        );
                        break;
                    case LineChart l:
                        string stem = Unique(names, key, Title(l.Title, section.Title), ".svg");
                        files.Add(
                            new ReportFile(stem, ReportFileKind.Svg, "line chart: " + Title(l.Title, section.Title), l)
                        );
                        files.Add(
                            new ReportFile(
                                Unique(names, key, Title(l.Title, section.Title), ".csv"),
                                ReportFileKind.SeriesCsv,
                                "line chart points (series, x, y): " + Title(l.Title, section.Title),
                                l
                            )
                        );
                        break;
                    case FlameGraph f:
                        files.Add(
                            new ReportFile(
                                Unique(names, key, Title(f.Options.Title, section.Title), ".svg"),
                                ReportFileKind.Svg,
                                "flame graph: " + Title(f.Options.Title, section.Title),
                                f
                            )
                        );
                        files.Add(
                            new ReportFile(
                                Unique(names, key, Title(f.Options.Title, section.Title), ".folded"),
                                ReportFileKind.Folded,
                                "flame graph stacks, folded (root first): " + Title(f.Options.Title, section.Title),
                                f
                            )
                        );
                        break;
                }
            }
        }

        string listName = Unique(names, "report", "files", ".csv");
        var list = new TableBuilder("Files").AddColumn(TableColumn.Text("file")).AddColumn(TableColumn.Text("what"));
        foreach (ReportFile f in files)
        {
            list.AddRow(f.Name, f.Description);
        }

        list.AddRow(listName, "table: this list of files");
        list.AddNote(
            "The files are written next to this page. Same input, same options: the same bytes (no clock, no machine "
                + "name)."
        );
        ReportTable listTable = list.Build();
        files.Add(new ReportFile(listName, ReportFileKind.TableCsv, "table: this list of files", listTable));
        sections.Add(("report", new ReportSection("Files", listTable)));

        var document = new ReportDocument(report.Title, sections.Select(s => s.Section))
        {
            Description =
                "Inputs: "
                + string.Join(", ", report.Inputs)
                + "\n"
                + (report.Filter is string filter ? "Filter: " + filter + "\n" : string.Empty)
                + StatusLine(report),
        };
        return (document, files.AsReadOnly());
    }

    /// <summary>A block as the report's options present it: frames with or without reasons, flame graphs from their
    /// chosen end.</summary>
    private static ReportBlock Presented(CaptureReport report, ReportBlock block) =>
        block switch
        {
            StackList l when !report.ShowUnresolvedReasons => new StackList(l.Items, l.Notes) { ShowReasons = false },
            FlameGraph f when f.Options.Root != report.FlameRoot => new FlameGraph(
                f.Tree,
                f.Options with
                {
                    Root = report.FlameRoot,
                }
            ),
            _ => block,
        };

    /// <summary>Writes one file of the report through the writer of its format.</summary>
    public static void WriteFile(
        CaptureReport report,
        ReportFile file,
        Stream output,
        CancellationToken cancellationToken
    )
    {
        (string format, IDocumentSource source) = file.Kind switch
        {
            ReportFileKind.Html => ("html", (IDocumentSource)report.Document),
            ReportFileKind.Json => ("json", report.Document),
            ReportFileKind.TableCsv => ("csv", ReportDocument.Of(file.Description, file.Block!)),
            ReportFileKind.SeriesCsv => (
                "csv",
                ReportDocument.Of(file.Description, ((LineChart)file.Block!).ToPointsTable())
            ),
            ReportFileKind.Svg => ("svg", ReportDocument.Of(file.Description, file.Block!)),
            ReportFileKind.Folded => ("folded", ReportDocument.Of(file.Description, file.Block!)),
            _ => throw new InvalidOperationException("unknown file kind " + file.Kind),
        };
        OutputFormats.Write(source, format, output, cancellationToken);
    }

    /// <summary>A file-name part from a title: ASCII letters and digits in lowercase, other runs as one <c>-</c>, at
    /// most 48 characters.</summary>
    public static string Slug(string text)
    {
        var sb = new StringBuilder(Math.Min(text.Length, 48));
        bool dash = false;
        foreach (char c in text)
        {
            if (sb.Length >= 48)
            {
                break;
            }

            if (c is (>= 'a' and <= 'z') or (>= '0' and <= '9'))
            {
                sb.Append(c);
                dash = false;
            }
            else if (c is >= 'A' and <= 'Z')
            {
                sb.Append((char)(c + ('a' - 'A')));
                dash = false;
            }
            else if (!dash && sb.Length > 0)
            {
                sb.Append('-');
                dash = true;
            }
        }

        string s = sb.ToString().TrimEnd('-');
        return s.Length == 0 ? "table" : s;
    }

    private static string Title(string blockTitle, string sectionTitle) =>
        blockTitle.Length > 0 ? blockTitle : sectionTitle;

    private static string Unique(HashSet<string> names, string key, string title, string extension)
    {
        string stem = key + "." + Slug(title);
        string name = stem + extension;
        for (int i = 2; !names.Add(name); i++)
        {
            name = stem + "-" + i.ToString(Ic) + extension;
        }

        return name;
    }

    private static string StatusLine(CaptureReport r) =>
        r.Status switch
        {
            ReportStatus.NothingToAnalyse =>
                "Nothing was analysed: the capture's events allow none of the analyses (each note below says what "
                    + "the event session needs).",
            ReportStatus.Partial when !r.Completed.Any() =>
                "Partial, nothing analysed: some data could not be read (see Overview), and what was read allows "
                    + "none of the analyses; the events they need may be in the part that could not be read.",
            ReportStatus.Partial =>
                "Partial: some data could not be read (see Overview); the results cover what was read.",
            _ => "Complete: every input was read whole.",
        };

    private static ReportSection Overview(CaptureReport r)
    {
        CaptureSummary c = r.Capture;
        long events = c.EventTypes.Sum(e => e.Count);
        var items = new List<KeyValuePair<string, TableCell>> { new("inputs", string.Join(", ", r.Inputs)) };
        if (BuiltInSession.Recognise(c) is BuiltInSession builtIn)
        {
            items.Add(new("session", builtIn.Name + " (built in; recognised by " + builtIn.How + ")"));
        }

        items.AddRange([
            new("filter", r.Filter ?? "none (every event)"),
            new("files", c.Files.Count.ToString("N0", Ic) + " (" + c.TotalLength.ToString("N0", Ic) + " bytes)"),
            new("events", events),
            new(
                "time range",
                c.FirstEvent is DateTime f && c.LastEvent is DateTime l
                    ? CaptureOverview.Describe(f)
                        + " .. "
                        + CaptureOverview.Describe(l)
                        + " ("
                        + (l - f).TotalSeconds.ToString("0.000", Ic)
                        + " s)"
                    : "no events"
            ),
            new("callstacks", CaptureOverview.DescribeCallstacks(c.EventTypes, c.Histograms)),
            new("analyses", r.Completed.Any() ? string.Join(", ", r.Completed.Select(a => a.Title)) : "none"),
            new("not possible", r.NotPossible.Any() ? string.Join(", ", r.NotPossible.Select(a => a.Title)) : "none"),
            new(
                "status",
                r.Status switch
                {
                    ReportStatus.NothingToAnalyse => "nothing analysed",
                    ReportStatus.Partial => r.Completed.Any() ? "partial" : "partial, nothing analysed",
                    _ => "complete",
                }
            ),
        ]);
        if (r.Read.IsPartial)
        {
            items.Add(
                new(
                    "skipped while reading",
                    string.Create(
                        Ic,
                        $"{r.Read.SkippedBuffers:N0} damaged buffer(s), {r.Read.IncompleteBuffers:N0} incomplete "
                            + $"final buffer(s), {r.Read.UndecodableEvents:N0} undecodable event(s)"
                    )
                )
            );
        }

        var blocks = new List<ReportBlock> { new KeyValueList(items) };
        if (!r.Completed.Any())
        {
            blocks.Add(
                new Paragraph(
                    "No analysis was possible with these events"
                        + (
                            events == 0
                                ? " (the inputs hold no events at all)"
                                : " (found: "
                                    + string.Join(
                                        ", ",
                                        c.EventTypes.Take(10)
                                            .Select(e => e.Name + " (" + e.Count.ToString("N0", Ic) + ")")
                                    )
                                    + (c.EventTypes.Count > 10 ? ", …" : string.Empty)
                                    + ")"
                        )
                        + ". This page is not a result: "
                        + (
                            BuiltInSession.Recognise(c) is null
                                ? "each section below says what the event session would need."
                                : "the last section lists what the analyses would need."
                        )
                        + (
                            r.Read.IsPartial
                                ? " Part of the input could not be read (see above), and the events may be in that "
                                    + "part."
                                : string.Empty
                        )
                )
            );
        }

        var t = new TableBuilder("Analyses")
            .AddColumn(TableColumn.Text("analysis"))
            .AddColumn(TableColumn.Text("status"))
            .AddColumn(TableColumn.Integer("events used"))
            .AddColumn(TableColumn.Text("notes"));
        foreach (IAnalysisResult a in r.Analyses.Where(a => a.Status != AnalysisStatus.NotApplicable))
        {
            t.AddRow(
                a.Title,
                AnalysisOutcome.Ran(a) ? "done" : "not possible",
                a.EventsUsed,
                a.MissingData is MissingData m ? m.Message : string.Join("; ", a.Warnings.Select(w => w.Text))
            );
        }

        blocks.Add(t.Build());
        return new ReportSection("Overview", blocks);
    }
}
