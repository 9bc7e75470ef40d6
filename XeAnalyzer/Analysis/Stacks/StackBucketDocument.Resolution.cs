using System.Globalization;
using System.Text;
using XeAnalyzer.Capture;
using XeAnalyzer.Events;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis.Stacks;

/// <content>The resolution of each input: the page outline, the notice, the files and the data view.</content>
partial class StackBucketDocument
{
    /// <summary>
    /// The resolution of each input, titled "Resolution": the module map used, the events and distinct raw stacks, the
    /// resolution summary (frames in-engine, offline, unresolved by reason, PDBs, hints), a hint when a module list is
    /// missing; then the result's own warnings.
    /// </summary>
    /// <returns>The block.</returns>
    internal Outline ResolutionOutline()
    {
        var items = new List<OutlineItem>();
        foreach (StackInputSummary i in Result.Inputs)
        {
            var head = new StringBuilder();
            head.Append(i.Name)
                .Append(" (")
                .Append(i.Kind)
                .Append("): ")
                .Append(i.ModuleMapDescription)
                .Append(string.Create(Ic, $"; {i.Events:N0} event(s)"));
            if (i.HistogramSlots > 0)
            {
                head.Append(
                    string.Create(Ic, $", {i.HistogramSlots:N0} histogram slot(s) counting {i.HistogramCount:N0}")
                );
            }

            head.Append(string.Create(Ic, $", {i.DistinctRawStacks:N0} distinct raw stack(s), each symbolized once"));
            items.Add(new OutlineItem(0, head.ToString()));
            items.AddRange(FileLines(i).Select(f => new OutlineItem(1, f)));
            items.AddRange(
                new ResolutionSummaryDocument(i.Resolution)
                    .ToOutline()
                    .Items.Select(x => x with { Depth = x.Depth + 1 })
            );
            if (
                i.ModuleMapSource == ModuleMapSource.None
                && i.Files.Count == 0
                && i.Resolution.UnresolvedGroups.Any(g => g.Reason == UnresolvedReason.NoModuleMap)
            )
            {
                items.Add(
                    new OutlineItem(
                        1,
                        "hint: put the module list (select name, base_address from sys.dm_os_loaded_modules, same "
                            + "process lifetime) beside the capture as "
                            + ModuleListSidecar.ExpectedPath(i.Name)
                            + ", or give --modules FILE"
                    )
                );
            }
        }

        foreach (string w in OwnWarnings())
        {
            items.Add(new OutlineItem(0, "warning: " + w));
        }

        return new Outline(items, "Resolution");
    }

    /// <summary>
    /// What resolving each input did, for a console beside an output that does not carry it (CSV, JSON, flame formats):
    /// per input its module map, then its resolution summary. Untitled, without a generated-by line.
    /// </summary>
    /// <returns>The document.</returns>
    public ReportDocument ResolutionNotice()
    {
        var items = new List<OutlineItem>();
        foreach (StackInputSummary i in Result.Inputs)
        {
            items.Add(new OutlineItem(0, i.Name + ": " + i.ModuleMapDescription));
            items.AddRange(FileLines(i).Select(f => new OutlineItem(1, f)));
            items.AddRange(new ResolutionSummaryDocument(i.Resolution).ToOutline().Items);
        }

        return new ReportDocument(string.Empty, [new ReportSection(string.Empty, new Outline(items))])
        {
            Generator = null,
        };
    }

    /// <summary>
    /// The events of each file of an input of several files (a rollover set), one line each (<c>file F: N event(s) with
    /// a stack</c>): the events of a set are the files', not its first file's. Empty for an input of one file.
    /// </summary>
    /// <param name="input">The input.</param>
    /// <returns>The lines.</returns>
    internal static IEnumerable<string> FileLines(StackInputSummary input) =>
        input.Files.Count < 2 && input.Files.All(f => f.Name == input.Name)
            ? []
            : input.Files.Select(f =>
                "file "
                + f.Name
                + string.Create(Ic, $": {f.Events:N0} event(s) with a stack")
                + (f.EventsWithoutStack > 0 ? string.Create(Ic, $", {f.EventsWithoutStack:N0} without") : string.Empty)
            );

    /// <summary>The rows of the files of every input of several files: input, file, module list, events, events without
    /// a stack.</summary> <returns>The table, or <see langword="null"/> when every input is one file.</returns>
    internal ReportTable? FilesTable()
    {
        if (Result.Inputs.All(i => !FileLines(i).Any()))
        {
            return null;
        }

        var t = new TableBuilder("Events per file")
            .AddColumn(TableColumn.Text("input"))
            .AddColumn(TableColumn.Text("file"))
            .AddColumn(TableColumn.Text("module list"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Integer("events without a stack"));
        foreach (StackInputSummary i in Result.Inputs.Where(i => FileLines(i).Any()))
        {
            foreach (StackFileCount f in i.Files)
            {
                t.AddRow(i.Name, f.Name, i.ModuleMapPath ?? "(none)", f.Events, f.EventsWithoutStack);
            }
        }

        t.AddNote(
            "Each event is counted under the file that holds it; a file with a module list of its own "
                + "(<file name>.modules.txt) is resolved through it."
        );
        return t.Build();
    }

    /// <summary>The warnings of the result that no input's resolution summary carries (they are shown once, after the
    /// inputs).</summary>
    /// <returns>The warnings.</returns>
    public IEnumerable<string> OwnWarnings() =>
        Result.Warnings.Select(w => w.Text).Except(Result.Inputs.SelectMany(i => i.Warnings), StringComparer.Ordinal);

    /// <summary>
    /// The resolution as data: a table of the inputs (kind, module map and its source, events, histogram slots,
    /// distinct raw stacks), then per input the blocks of its <see cref="ResolutionSummary"/> data view (counts, stacks
    /// by shape, unresolved frames by reason, PDBs looked up, hints, warnings), then the warnings of the result that no
    /// input owns.
    /// </summary>
    private List<ReportBlock> ResolutionData()
    {
        var inputs = new TableBuilder("Inputs")
            .AddColumn(TableColumn.Text("input"))
            .AddColumn(TableColumn.Text("kind"))
            .AddColumn(TableColumn.Text("module map"))
            .AddColumn(TableColumn.Text("module map source"))
            .AddColumn(TableColumn.Integer("events"))
            .AddColumn(TableColumn.Integer("events without a stack"))
            .AddColumn(TableColumn.Integer("histogram slots"))
            .AddColumn(TableColumn.Integer("histogram count"))
            .AddColumn(TableColumn.Integer("distinct raw stacks"));
        foreach (StackInputSummary i in Result.Inputs)
        {
            inputs.AddRow(
                i.Name,
                i.Kind,
                i.ModuleMapPath ?? string.Empty,
                DisplayNames.Of(i.ModuleMapSource),
                i.Events,
                i.EventsWithoutStack,
                i.HistogramSlots,
                i.HistogramCount,
                (long)i.DistinctRawStacks
            );
        }

        var blocks = new List<ReportBlock> { inputs.Build() };
        if (FilesTable() is ReportTable files)
        {
            blocks.Add(files);
        }

        foreach (StackInputSummary i in Result.Inputs)
        {
            blocks.AddRange(new ResolutionSummaryDocument(i.Resolution).ToDocument(DocumentView.Data).Blocks);
            blocks.AddRange(i.Warnings.Select(w => new Paragraph("Warning: " + w)));
        }

        blocks.AddRange(OwnWarnings().Select(w => new Paragraph("Warning: " + w)));
        return blocks;
    }
}
