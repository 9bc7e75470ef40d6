using XeAnalyzer.Capture;
using System.Globalization;
using System.Text;
using System.Text.Json;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using static XeAnalyzer.Analysis.AnalysisSupport;

namespace XeAnalyzer.Analysis.Stacks;

/// <summary>
/// Writes a <see cref="StackBucketResult"/> as text, CSV, JSON or an HTML report section. Every writer is deterministic (same result, same
/// bytes), culture-invariant, UTF-8 without BOM with <c>\n</c> line ends; text from captures is made safe for the format.
/// </summary>
/// <remarks>
/// <para><b>Text</b> (as the seed write-ups show stacks): a header, then per bucket a line <c>Bucket N of M: C events (S %) event</c>,
/// optional indented detail lines (durations, first/last seen, raw stacks merged, unverified frames), the frames one per line, leaf
/// first, unindented (an unresolved frame is followed by <c> -- unresolved: reason</c>), and a blank line; at the end the resolution
/// summary of each input (module map used, frames in-engine/offline/unresolved by reason, unverified, PDBs, hints) and the warnings.</para>
/// <para><b>CSV</b>: one record per bucket; the <c>frames</c> field holds the frames leaf first separated by <c>\n</c> (a quoted field, RFC
/// 4180), since <c>;</c> and <c>,</c> occur in C++ names. The frames CSV has one record per (bucket, frame).</para>
/// </remarks>
public static class StackBucketWriter
{
    /// <summary>The text form.</summary>
    /// <param name="result">The result.</param>
    /// <param name="inputsLabel">What was read, for the header (for example the command-line inputs); <see langword="null"/> to leave it out.</param>
    /// <returns>The text, <c>\n</c> line ends.</returns>
    public static string ToText(StackBucketResult result, string? inputsLabel = null)
    {
        ArgumentNullException.ThrowIfNull(result);
        var sb = new StringBuilder();
        sb.Append("Stack buckets\n=============\n");
        if (inputsLabel is not null)
        {
            sb.Append(Safe(inputsLabel)).Append('\n');
        }

        AppendCounts(sb, result);
        sb.Append('\n');
        foreach (StackBucket b in result.Buckets)
        {
            sb.Append(string.Create(Ic, $"Bucket {b.Rank} of {result.TotalBuckets}: {b.Count:N0} {Unit(result, b.Count)} ({Percent(b.Share, 2)})"));
            if (b.EventName is string en)
            {
                sb.Append(' ').Append(Safe(en));
            }
            else if (b.EventNames.Count > 0)
            {
                sb.Append(' ').Append(Safe(string.Join(", ", b.EventNames)));
            }

            sb.Append('\n');
            if (b.Durations is StackDurations d)
            {
                sb.Append(string.Create(Ic, $"  duration: total {d.TotalDuration:N0}, max {d.MaxDuration:N0}, mean {(d.EventsWithDuration > 0 ? (double)d.TotalDuration / d.EventsWithDuration : 0):N2}; signal_duration: {(d.TotalSignalDuration is long ts ? string.Create(Ic, $"total {ts:N0}, max {d.MaxSignalDuration:N0}") : "n/a (not in the events' schema)")} (ms for wait events)\n"));
            }

            if (b.FirstSeen is DateTime first && b.LastSeen is DateTime last)
            {
                sb.Append("  seen ").Append(CellFormatter.IsoUtc(first)).Append(" to ").Append(CellFormatter.IsoUtc(last)).Append('\n');
            }

            if (b.RawStacks > 1)
            {
                sb.Append(string.Create(Ic, $"  {b.RawStacks} distinct raw stacks merged after symbolization\n"));
            }

            if (b.UnverifiedFrames > 0)
            {
                sb.Append(string.Create(Ic, $"  {b.UnverifiedFrames} frame(s) resolved through a PDB matched by name only (unverified: give --sql-build or --binaries)\n"));
            }

            if (b.Frames.Count == 0)
            {
                sb.Append("(no frames)\n");
            }

            foreach (BucketFrame f in b.FrameDetails)
            {
                sb.Append(Safe(f.Text));
                if (f.Status == FrameResolutionStatus.Unresolved && f.UnresolvedReason is string why)
                {
                    sb.Append(" -- unresolved: ").Append(Safe(why));
                }

                sb.Append('\n');
            }

            sb.Append('\n');
        }

        if (result.OmittedBuckets > 0)
        {
            sb.Append(string.Create(Ic, $"{result.OmittedBuckets:N0} more bucket(s) with {result.OmittedCount:N0} {Unit(result, result.OmittedCount)} not shown (--top, --min-count).\n\n"));
        }

        AppendResolution(sb, result);
        return sb.ToString();
    }

    /// <summary>Writes the text form.</summary>
    /// <param name="result">The result.</param>
    /// <param name="output">The destination (not closed).</param>
    /// <param name="inputsLabel">See <see cref="ToText"/>.</param>
    public static void WriteText(StackBucketResult result, TextWriter output, string? inputsLabel = null)
    {
        ArgumentNullException.ThrowIfNull(output);
        output.Write(ToText(result, inputsLabel));
        output.Flush();
    }

    /// <summary>One row per bucket: rank, count, share, event(s), raw stacks, first/last seen, durations, frame counts, leaf and all frames (<c>\n</c>-separated, leaf first).</summary>
    /// <param name="result">The result.</param>
    /// <returns>The table.</returns>
    public static ReportTable ToTable(StackBucketResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var t = new TableBuilder("Stack buckets")
            .AddColumn(TableColumn.Integer("rank"))
            .AddColumn(TableColumn.Integer("count"))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("raw_stacks"))
            .AddColumn(TableColumn.Timestamp("first_seen"))
            .AddColumn(TableColumn.Timestamp("last_seen"))
            .AddColumn(TableColumn.Integer("duration_events"))
            .AddColumn(TableColumn.Integer("total_duration"))
            .AddColumn(TableColumn.Integer("max_duration"))
            .AddColumn(TableColumn.Integer("total_signal_duration"))
            .AddColumn(TableColumn.Integer("max_signal_duration"))
            .AddColumn(TableColumn.Integer("frame_count"))
            .AddColumn(TableColumn.Integer("unresolved_frames"))
            .AddColumn(TableColumn.Text("leaf"))
            .AddColumn(TableColumn.Text("frames"));
        foreach (StackBucket b in result.Buckets)
        {
            StackDurations? d = b.Durations;
            t.AddRow(b.Rank, b.Count, TableCell.FromPercentage(b.Share), string.Join(";", b.EventNames), b.RawStacks,
                b.FirstSeen is DateTime f ? TableCell.FromDateTime(f) : TableCell.Empty, b.LastSeen is DateTime l ? TableCell.FromDateTime(l) : TableCell.Empty,
                d is null ? TableCell.Empty : d.EventsWithDuration, d is null ? TableCell.Empty : d.TotalDuration, d is null ? TableCell.Empty : d.MaxDuration,
                d?.TotalSignalDuration is long ts ? ts : TableCell.Empty, d?.MaxSignalDuration is long ms ? ms : TableCell.Empty,
                b.Frames.Count, b.UnresolvedFrames, b.Frames.Count > 0 ? b.Frames[0] : string.Empty, string.Join("\n", b.Frames));
        }

        t.AddNote("share: count / all buckets' total; frames: leaf first, separated by line feeds; durations: the events' duration and signal_duration fields (ms for wait events).");
        return t.Build();
    }

    /// <summary>One row per (bucket, frame): rank, count, event, frame index (0 = leaf), frame, status, verified, module, function, unresolved reason.</summary>
    /// <param name="result">The result.</param>
    /// <returns>The table.</returns>
    public static ReportTable ToFramesTable(StackBucketResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var t = new TableBuilder("Stack bucket frames")
            .AddColumn(TableColumn.Integer("rank"))
            .AddColumn(TableColumn.Integer("count"))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("frame"))
            .AddColumn(TableColumn.Text("text"))
            .AddColumn(TableColumn.Text("status"))
            .AddColumn(TableColumn.Text("verified"))
            .AddColumn(TableColumn.Text("module"))
            .AddColumn(TableColumn.Text("function"))
            .AddColumn(TableColumn.Text("unresolved_reason"));
        foreach (StackBucket b in result.Buckets)
        {
            for (int i = 0; i < b.FrameDetails.Count; i++)
            {
                BucketFrame f = b.FrameDetails[i];
                t.AddRow(b.Rank, b.Count, string.Join(";", b.EventNames), i, f.Text, StatusName(f.Status), f.IsVerified ? "true" : "false", f.Module, f.Function, f.UnresolvedReason);
            }
        }

        return t.Build();
    }

    /// <summary>Writes <see cref="ToTable"/> as RFC 4180 CSV.</summary>
    /// <param name="result">The result.</param>
    /// <param name="output">The destination (left open).</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    /// <returns>A task that completes when the output is flushed.</returns>
    public static ValueTask WriteCsvAsync(StackBucketResult result, Stream output, CancellationToken cancellationToken = default) =>
        CsvReportWriter.WriteTableAsync(ToTable(result), output, false, cancellationToken);

    /// <summary>Writes <see cref="ToFramesTable"/> as RFC 4180 CSV.</summary>
    /// <param name="result">The result.</param>
    /// <param name="output">The destination (left open).</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    /// <returns>A task that completes when the output is flushed.</returns>
    public static ValueTask WriteFramesCsvAsync(StackBucketResult result, Stream output, CancellationToken cancellationToken = default) =>
        CsvReportWriter.WriteTableAsync(ToFramesTable(result), output, false, cancellationToken);

    /// <summary>
    /// Writes the result as JSON: <c>{"format":"xeanalyzer-stacks","formatVersion":1, …, "buckets":[{rank, count, share, event, events,
    /// rawStacks, firstSeen, lastSeen, durations, frames:[{text, status, verified, module, function, unresolvedReason}]}], "inputs":[{name,
    /// kind, moduleMap, moduleMapSource, events, eventsWithoutStack, histogramSlots, histogramCount, distinctRawStacks, resolution, warnings}],
    /// "warnings":[…]}</c>. Every property is always present (<c>null</c> when absent).
    /// </summary>
    /// <param name="result">The result.</param>
    /// <param name="output">The destination (left open).</param>
    public static void WriteJson(StackBucketResult result, Stream output)
    {
        ArgumentNullException.ThrowIfNull(result);
        ArgumentNullException.ThrowIfNull(output);
        using var w = new Utf8JsonWriter(output, JsonOutput.Options(indented: true));
        w.WriteStartObject();
        w.WriteString("format", "xeanalyzer-stacks");
        w.WriteNumber("formatVersion", 1);
        w.WriteString("generator", ReportDocument.DefaultGenerator);
        w.WriteBoolean("groupedByEvent", result.GroupedByEvent);
        w.WriteString("frameStyle", result.Style.ToString().ToLowerInvariant());
        w.WriteBoolean("offsets", result.IncludeOffsets);
        w.WriteNumber("totalCount", result.TotalCount);
        w.WriteNumber("bucketCount", result.TotalBuckets);
        w.WriteNumber("bucketsShown", result.Buckets.Count);
        w.WriteNumber("omittedCount", result.OmittedCount);
        w.WriteNumber("eventsRead", result.EventsRead);
        w.WriteNumber("eventsWithStack", result.EventsWithStack);
        w.WriteNumber("eventsWithoutStack", result.EventsWithoutStack);
        w.WriteNumber("histogramSlots", result.HistogramSlots);
        w.WriteNumber("untrackedEvents", result.UntrackedEvents);
        w.WriteNumber("distinctRawStacks", result.DistinctRawStacks);
        w.WriteNumber("mergedRawStacks", result.MergedRawStacks);
        w.WriteBoolean("mayHaveMergedHistogramValues", result.MayHaveMergedHistogramValues);
        w.WriteStartArray("buckets");
        foreach (StackBucket b in result.Buckets)
        {
            w.WriteStartObject();
            w.WriteNumber("rank", b.Rank);
            w.WriteNumber("count", b.Count);
            w.WriteNumber("share", b.Share);
            w.WriteSafeString("event", b.EventName);
            w.WriteSafeStrings("events", b.EventNames);
            w.WriteNumber("rawStacks", b.RawStacks);
            w.WriteTimestamp("firstSeen", b.FirstSeen);
            w.WriteTimestamp("lastSeen", b.LastSeen);
            if (b.Durations is StackDurations d)
            {
                w.WriteStartObject("durations");
                w.WriteNumber("events", d.EventsWithDuration);
                w.WriteNumber("total", d.TotalDuration);
                w.WriteNumber("max", d.MaxDuration);
                if (d.TotalSignalDuration is long ts && d.MaxSignalDuration is long ms)
                {
                    w.WriteNumber("totalSignal", ts);
                    w.WriteNumber("maxSignal", ms);
                }
                else
                {
                    w.WriteNull("totalSignal");
                    w.WriteNull("maxSignal");
                }
                w.WriteEndObject();
            }
            else
            {
                w.WriteNull("durations");
            }

            w.WriteStartArray("frames");
            foreach (BucketFrame f in b.FrameDetails)
            {
                w.WriteStartObject();
                w.WriteSafeString("text", f.Text);
                w.WriteString("status", StatusName(f.Status));
                w.WriteBoolean("verified", f.IsVerified);
                w.WriteSafeString("module", f.Module);
                w.WriteSafeString("function", f.Function);
                w.WriteSafeString("unresolvedReason", f.UnresolvedReason);
                w.WriteEndObject();
            }

            w.WriteEndArray();
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteStartArray("inputs");
        foreach (StackInputSummary i in result.Inputs)
        {
            w.WriteStartObject();
            w.WriteSafeString("name", i.Name);
            w.WriteString("kind", i.Kind);
            w.WriteSafeString("moduleMap", i.ModuleMapPath);
            w.WriteString("moduleMapSource", i.ModuleMapSource switch { ModuleMapSource.Explicit => "explicit", ModuleMapSource.Sidecar => "sidecar", _ => "none" });
            w.WriteNumber("events", i.Events);
            w.WriteNumber("eventsWithoutStack", i.EventsWithoutStack);
            w.WriteNumber("histogramSlots", i.HistogramSlots);
            w.WriteNumber("histogramCount", i.HistogramCount);
            w.WriteNumber("distinctRawStacks", i.DistinctRawStacks);
            w.WritePropertyName("resolution");
            i.Resolution.WriteJson(w);
            w.WriteSafeStrings("warnings", i.Warnings);
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteSafeStrings("warnings", result.Warnings);
        w.WriteEndObject();
        w.Flush();
    }

    /// <summary>The result as a report (see <see cref="StackBucketResult.ToReport"/>).</summary>
    /// <param name="result">The result.</param>
    /// <param name="maxStacksShown">How many buckets get their frames listed.</param>
    /// <returns>The report.</returns>
    public static ReportDocument ToReport(StackBucketResult result, int maxStacksShown = 50)
    {
        ArgumentNullException.ThrowIfNull(result);
        const string Title = "Stack buckets";
        if (result.MissingData is MissingData m)
        {
            return new ReportDocument(Title, [new ReportSection("Missing data", new Preformatted(m.Describe()))]);
        }

        var sections = new List<ReportSection>();
        var counts = new StringBuilder();
        AppendCounts(counts, result);
        sections.Add(new ReportSection("Summary", new KeyValueList(
        [
            Kv("buckets", result.TotalBuckets),
            Kv("total count", result.TotalCount),
            Kv("events with a stack", result.EventsWithStack),
            Kv("events without a stack", result.EventsWithoutStack),
            Kv("histogram slots", result.HistogramSlots),
            Kv("distinct raw stacks", result.DistinctRawStacks),
            Kv("merged after symbolization", result.MergedRawStacks),
        ]), new Paragraph(counts.ToString().TrimEnd('\n'))));

        var blocks = new List<ReportBlock> { ToOverviewTable(result) };
        foreach (StackBucket b in result.Buckets.Take(Math.Max(0, maxStacksShown)))
        {
            var text = new StringBuilder();
            foreach (BucketFrame f in b.FrameDetails)
            {
                text.Append(f.Text);
                if (f.Status == FrameResolutionStatus.Unresolved && f.UnresolvedReason is string why)
                {
                    text.Append(" -- unresolved: ").Append(why);
                }

                text.Append('\n');
            }

            string caption = string.Create(Ic, $"Bucket {b.Rank}: {b.Count:N0} {Unit(result, b.Count)} ({Percent(b.Share, 2)})") + (b.EventNames.Count > 0 ? " " + string.Join(", ", b.EventNames) : string.Empty);
            blocks.Add(new Preformatted(text.Length == 0 ? "(no frames)" : text.ToString().TrimEnd('\n'), caption));
        }

        sections.Add(new ReportSection("Buckets", blocks));
        sections.Add(new ReportSection("Flame graph", new FlameGraph(result.ToCallTree(), new FlameGraphOptions { Title = "Stack buckets", CountName = "events" })));
        var resolution = new StringBuilder();
        AppendResolution(resolution, result);
        sections.Add(new ReportSection("Resolution", new Preformatted(resolution.ToString().TrimEnd('\n'))));
        return new ReportDocument(Title, sections);
    }

    private static ReportTable ToOverviewTable(StackBucketResult result)
    {
        // Buckets of one event share their leaf frames (the event's Publish, the latch code), so the leaf frame says little: the
        // column shows, per bucket, the first frame from the leaf where it parts from the larger buckets.
        int[] depth = DistinguishingFrames(result.Buckets);
        var t = new TableBuilder("Buckets")
            .AddColumn(TableColumn.Integer("rank"))
            .AddColumn(TableColumn.Integer("count"))
            .AddColumn(TableColumn.Percentage("share", 2))
            .AddColumn(TableColumn.Text("event"))
            .AddColumn(TableColumn.Integer("total duration"))
            .AddColumn(TableColumn.Integer("max duration"))
            .AddColumn(TableColumn.Integer("frames"))
            .AddColumn(TableColumn.Integer("distinguishing frame #"))
            .AddColumn(TableColumn.Text("distinguishing frame"));
        for (int i = 0; i < result.Buckets.Count; i++)
        {
            StackBucket b = result.Buckets[i];
            int d = depth[i];
            string frame = b.Frames.Count == 0 ? "(no frames)" : d < b.Frames.Count ? b.Frames[d] : "(all its frames begin a larger stack)";
            t.AddRow(b.Rank, b.Count, TableCell.FromPercentage(b.Share), string.Join(", ", b.EventNames),
                b.Durations is null ? TableCell.Empty : b.Durations.TotalDuration, b.Durations is null ? TableCell.Empty : b.Durations.MaxDuration,
                b.Frames.Count, d < b.Frames.Count ? d + 1 : TableCell.Empty, frame);
        }

        t.AddNote("distinguishing frame: the first frame, counted from the leaf (frame 1), where the bucket's stack parts from every larger bucket's stack (bucket 1: from bucket 2's); the leaf frame when the table has one bucket.");
        if (result.OmittedBuckets > 0)
        {
            t.AddNote(string.Create(Ic, $"{result.OmittedBuckets:N0} more bucket(s) with {result.OmittedCount:N0} not shown."));
        }

        return t.Build();
    }

    /// <summary>
    /// For each bucket, the index (0 = leaf) of its first frame not shared with any larger bucket (the longest common leaf-first
    /// prefix with a bucket ranked above it); for the first bucket, with the second. 0 for a single bucket.
    /// </summary>
    internal static int[] DistinguishingFrames(IReadOnlyList<StackBucket> buckets)
    {
        static int Common(IReadOnlyList<string> a, IReadOnlyList<string> b)
        {
            int n = 0;
            int max = Math.Min(a.Count, b.Count);
            while (n < max && string.Equals(a[n], b[n], StringComparison.Ordinal))
            {
                n++;
            }

            return n;
        }

        var depth = new int[buckets.Count];
        for (int i = 0; i < buckets.Count; i++)
        {
            if (i == 0)
            {
                depth[0] = buckets.Count > 1 ? Common(buckets[0].Frames, buckets[1].Frames) : 0;
                continue;
            }

            for (int j = 0; j < i; j++)
            {
                depth[i] = Math.Max(depth[i], Common(buckets[i].Frames, buckets[j].Frames));
            }
        }

        return depth;
    }

    private static void AppendCounts(StringBuilder sb, StackBucketResult result)
    {
        if (result.EventsRead > 0)
        {
            sb.Append(string.Create(Ic, $"{result.EventsWithStack:N0} event(s) with a callstack"));
            IReadOnlyList<string> names = result.EventNames;
            if (names.Count > 0)
            {
                sb.Append(" (").Append(Safe(string.Join(", ", names.Take(10)))).Append(names.Count > 10 ? ", …" : string.Empty).Append(')');
            }

            if (result.EventsWithoutStack > 0)
            {
                sb.Append(string.Create(Ic, $", {result.EventsWithoutStack:N0} without"));
            }

            sb.Append(".\n");
        }

        if (result.HistogramSlots > 0)
        {
            long slotCount = result.Inputs.Aggregate(0L, (s, i) => StackBucketBuilder.SatAdd(s, i.HistogramCount));
            sb.Append(string.Create(Ic, $"{result.HistogramSlots:N0} histogram slot(s) counting {slotCount:N0} event(s).\n"));
        }

        sb.Append(string.Create(Ic, $"{result.DistinctRawStacks:N0} distinct raw stack(s) -> {result.TotalBuckets:N0} bucket(s) after symbolization ({result.MergedRawStacks:N0} merged); total {result.TotalCount:N0}.\n"));
        sb.Append(result.GroupedByEvent ? "Buckets per event name and stack" : "Buckets per stack (event names merged)");
        sb.Append("; frames leaf first, ").Append(result.Style.ToString().ToLowerInvariant()).Append(" style, ").Append(result.IncludeOffsets ? "with offsets" : "without offsets (stacks differing only by offsets share a bucket)").Append(".\n");
        if (result.MayHaveMergedHistogramValues)
        {
            sb.Append("Warning: a histogram used all its slots (slots = buckets): hash collisions may have merged different stacks into one slot.\n");
        }
    }

    private static void AppendResolution(StringBuilder sb, StackBucketResult result)
    {
        sb.Append("Resolution\n----------\n");
        foreach (StackInputSummary i in result.Inputs)
        {
            sb.Append(Safe(i.Name)).Append(" (").Append(i.Kind).Append("): ").Append(Safe(i.ModuleMapDescription));
            sb.Append(string.Create(Ic, $"; {i.Events:N0} event(s)"));
            if (i.HistogramSlots > 0)
            {
                sb.Append(string.Create(Ic, $", {i.HistogramSlots:N0} histogram slot(s) counting {i.HistogramCount:N0}"));
            }

            sb.Append(string.Create(Ic, $", {i.DistinctRawStacks:N0} distinct raw stack(s), each symbolized once\n"));
            foreach (string line in i.Resolution.ToTextLines())
            {
                sb.Append("  ").Append(Safe(line)).Append('\n');
            }

            if (i.ModuleMapSource == ModuleMapSource.None && i.Resolution.UnresolvedGroups.Any(g => g.Reason == UnresolvedReason.NoModuleMap))
            {
                sb.Append("  hint: put the module list (select name, base_address from sys.dm_os_loaded_modules, same process lifetime) beside the capture as ")
                  .Append(Safe(ModuleListSidecar.ExpectedPath(i.Name))).Append(", or give --modules FILE\n");
            }
        }

        IEnumerable<string> own = result.Warnings.Except(result.Inputs.SelectMany(i => i.Warnings), StringComparer.Ordinal);
        foreach (string w in own)
        {
            sb.Append("warning: ").Append(Safe(w)).Append('\n');
        }
    }

    private static string Unit(StackBucketResult result, long count) =>
        result.HistogramSlots > 0 && result.EventsRead == 0 ? (count == 1 ? "event (slot count)" : "events (slot count)") : count == 1 ? "event" : "events";

    internal static string StatusName(FrameResolutionStatus s) => s switch
    {
        FrameResolutionStatus.InEngine => "inEngine",
        FrameResolutionStatus.ResolvedOffline => "resolvedOffline",
        _ => "unresolved",
    };

    internal static string Safe(string text) => Output.TextEscaping.Terminal(text);
}
