using System.CommandLine;
using System.Globalization;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Cli.Commands;

/// <summary><c>xeanalyze info &lt;capture...&gt;</c>: per file and per set, size, time range, counts by event, schema, callstacks, warnings.</summary>
internal static class InfoCommand
{
    public static Command Create()
    {
        Argument<string[]> captures = CaptureCommandSupport.CapturesArgument();
        Option<bool> skip = CaptureCommandSupport.SkipCorruptOption();
        var command = new Command("info", "Describe captures: size, time range, event counts, each event's fields and actions with types, callstacks, warnings.");
        command.Arguments.Add(captures);
        command.Options.Add(skip);
        command.SetAction(parse => CaptureCommandSupport.Run(parse, (output, error) =>
        {
            bool skipCorrupt = parse.GetValue(skip);
            int exit = ExitCodes.Ok;
            foreach (CaptureSet set in CaptureSet.Expand(parse.GetValue(captures)!))
            {
                XelCaptureSummary summary = XelCaptureSummary.Read(set, new XelReadOptions { Integrity = skipCorrupt ? XelIntegrityHandling.SkipCorruptBuffers : XelIntegrityHandling.Strict });
                Write(output, summary);
                foreach (XelFileSummary f in summary.Files)
                {
                    foreach (XelWarning w in f.Warnings)
                    {
                        error.WriteLine("xeanalyze: warning: " + w);
                    }
                }

                if (summary.IsPartial)
                {
                    exit = ExitCodes.Partial;
                }
            }

            return exit;
        }));
        return command;
    }

    private static string Time(DateTime? t) => t is DateTime v ? CaptureCommandSupport.IsoUtc(v) : "-";

    private static void Write(TextWriter o, XelCaptureSummary s)
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        o.WriteLine(string.Create(ic, $"capture {s.Set.Name}: {s.Files.Count} file(s){(s.Set.IsRollover ? " (rollover set)" : string.Empty)}"));
        foreach (XelFileSummary f in s.Files)
        {
            o.WriteLine(string.Create(ic, $"file {f.FilePath}"));
            o.WriteLine(string.Create(ic, $"  size: {f.Length} bytes, {f.BufferCount} buffers ({f.MetadataBufferCount} metadata), pointer size {f.Schema.PointerSize}"));
            o.WriteLine(string.Create(ic, $"  time range: {Time(f.FirstTimestamp)} .. {Time(f.LastTimestamp)}"));
            o.WriteLine(string.Create(ic, $"  events: {f.EventCount}"));
            foreach (XelEventTypeSummary t in f.EventTypes)
            {
                o.WriteLine(string.Create(ic, $"    {t.EventType.FullName,-60} {t.Count,10}"));
            }

            o.WriteLine(string.Create(ic, $"  callstacks: {(f.HasCallstacks ? "yes" : "no")}"));
            o.WriteLine("  schema:");
            foreach (XelEventTypeSummary t in f.EventTypes)
            {
                o.WriteLine(string.Create(ic, $"    {t.EventType.FullName} (package index {t.EventType.Package.Index}, uuid {t.EventType.Uuid}){(t.HasCallstack ? " [callstack]" : string.Empty)}"));
                foreach (XeColumn c in t.EventType.Fields)
                {
                    o.WriteLine("      field  " + c.Name + " : " + Describe(c));
                }

                foreach (XeColumn c in t.Actions)
                {
                    o.WriteLine("      action " + c.FullName + " : " + Describe(c));
                }
            }

            o.WriteLine(string.Create(ic, $"  warnings: {f.Warnings.Count}"));
            foreach (XelWarning w in f.Warnings)
            {
                o.WriteLine("    " + w.ToString());
            }
        }

        if (s.Files.Count > 1)
        {
            o.WriteLine(string.Create(ic, $"set total: {s.Length} bytes, {s.EventCount} events, {Time(s.FirstTimestamp)} .. {Time(s.LastTimestamp)}"));
            foreach (KeyValuePair<string, long> kv in s.CountsByEvent)
            {
                o.WriteLine(string.Create(ic, $"    {kv.Key,-60} {kv.Value,10}"));
            }
        }
    }

    private static string Describe(XeColumn c) => c.Map is XeMap m
        ? "map " + m.Package.Name + "." + m.Name + (m.IsBitmask ? " (bitmask)" : string.Empty)
        : c.TypeName;
}
