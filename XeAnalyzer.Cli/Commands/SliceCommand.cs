using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze slice &lt;capture...&gt; --event NAME [--from T] [--to T] -o out.xel</c>: writes the chosen events (time range:
/// from inclusive, to exclusive) to a new <c>.xel</c> file, keeping the metadata (RIDs, maps, types) of the events kept.
/// </summary>
internal static class SliceCommand
{
    public static Command Create()
    {
        Argument<string[]> captures = CaptureCommandSupport.CapturesArgument();
        Option<bool> skip = CaptureCommandSupport.SkipCorruptOption();
        var eventNames = new Option<string[]>("--event") { Description = "Events to keep (package.event or event); repeatable.", Required = true, AllowMultipleArgumentsPerToken = true };
        var from = new Option<string?>("--from") { Description = "Keep events at or after this time (ISO 8601, UTC unless an offset is given)." };
        var to = new Option<string?>("--to") { Description = "Keep events before this time." };
        var output = new Option<string>("--output", "-o") { Description = "The .xel file to write.", Required = true };
        var command = new Command("slice", "Write selected events of captures to a new .xel file.");
        command.Arguments.Add(captures);
        command.Options.Add(eventNames);
        command.Options.Add(from);
        command.Options.Add(to);
        command.Options.Add(output);
        command.Options.Add(skip);
        command.SetAction(parse => CaptureCommandSupport.Run(parse, (stdout, error) =>
        {
            DateTime? start = CaptureCommandSupport.ParseTime(parse.GetValue(from), "--from");
            DateTime? end = CaptureCommandSupport.ParseTime(parse.GetValue(to), "--to");
            string outPath = parse.GetValue(output)!;
            IReadOnlyList<CaptureSet> sets = CaptureSet.Expand(parse.GetValue(captures)!);
            string fullOut = Path.GetFullPath(outPath);
            if (sets.SelectMany(s => s.Files).Any(f => string.Equals(Path.GetFullPath(f), fullOut, StringComparison.Ordinal)))
            {
                throw new UsageException("-o: the output file is one of the inputs");
            }

            var diag = new XelDiagnostics();
            XelReadOptions options = CaptureCommandSupport.ReadOptions(parse.GetValue(skip), diag, parse.GetValue(eventNames));
            bool Keep(XEvent e) => (start is null || e.Timestamp >= start) && (end is null || e.Timestamp < end);

            // Pass 1: which event types and actions are kept, and the earliest time.
            int pointerSize = 8;
            bool sawFile = false;
            var types = new List<XeEventType>();
            var actions = new List<XeColumn>();
            var seenTypes = new HashSet<XeEventType>(ReferenceEqualityComparer.Instance);
            var seenSets = new HashSet<XeActionSet>(ReferenceEqualityComparer.Instance);
            DateTime? min = null;
            foreach (XEvent e in sets.SelectMany(s => XelReader.ReadEvents(s, new XelReadOptions { Integrity = options.Integrity, EventNames = options.EventNames })))
            {
                if (!Keep(e))
                {
                    continue;
                }

                if (!sawFile)
                {
                    sawFile = true;
                    pointerSize = e.Fields.Concat(e.Actions).FirstOrDefault()?.PointerSize ?? 8;
                }

                if (seenTypes.Add(e.EventType))
                {
                    types.Add(e.EventType);
                }

                if (seenSets.Add(e.ActionSet))
                {
                    actions.AddRange(e.Actions);
                }

                if (min is null || e.Timestamp < min)
                {
                    min = e.Timestamp;
                }
            }

            var schema = new XeSchema(pointerSize);
            try
            {
                foreach (XeEventType t in types)
                {
                    schema.ImportEvent(t);
                }

                foreach (XeColumn a in actions)
                {
                    schema.ImportAction(a);
                }
            }
            catch (InvalidOperationException ex)
            {
                throw new UsageException("the inputs do not share one schema, so their events cannot go into one file: " + ex.Message);
            }

            // Pass 2: write.
            long written;
            using (XelWriter writer = XelWriter.Create(outPath, schema, new XelWriterOptions { StartTimeUtc = min ?? new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc) }))
            {
                foreach (XEvent e in sets.SelectMany(s => XelReader.ReadEvents(s, options)))
                {
                    if (Keep(e))
                    {
                        writer.Write(e);
                    }
                }

                written = writer.EventsWritten;
            }

            stdout.WriteLine(string.Create(CultureInfo.InvariantCulture, $"wrote {written} events ({types.Count} event types) to {outPath}"));
            return CaptureCommandSupport.Finish(diag, error);
        }));
        return command;
    }
}
