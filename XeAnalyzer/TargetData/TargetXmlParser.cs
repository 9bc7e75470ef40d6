using System.Globalization;
using System.Xml;

namespace XeAnalyzer.TargetData;

/// <summary>Parses one target-data root element, streamed from a <see cref="TextSource"/> segment, into
/// <see cref="TargetDataElement"/>s.</summary>
internal static partial class TargetXmlParser
{
    private static readonly XmlReaderSettings s_settings = new()
    {
        DtdProcessing = DtdProcessing.Prohibit,
        XmlResolver = null,
        IgnoreComments = true,
        IgnoreProcessingInstructions = true,
        IgnoreWhitespace = false,
        ConformanceLevel = ConformanceLevel.Document,
        CloseInput = false,
        MaxCharactersFromEntities = 1024,
    };

    public static IEnumerable<TargetDataElement> ParseRoot(
        TextSource source,
        int targetIndex,
        CancellationToken cancellationToken
    )
    {
        RootName root = source.Root ?? throw new InvalidOperationException("No root.");
        long baseLine = source.ItemLine;
        TextReader segment = source.OpenSegment();
        using var ctx = new Context(XmlReader.Create(segment, s_settings), baseLine, source, cancellationToken);
        ctx.MoveToRoot(root.Name);
        long startLine = ctx.Line;
        var attributes = ctx.ReadAttributes();
        var start = new TargetStart(startLine, root.Kind, root.Name, targetIndex, attributes);
        yield return start;

        long items = 0;
        switch (root.Kind)
        {
            case TargetDataKind.Event:
                yield return ctx.ReadEvent(targetIndex, TargetDataKind.Event, attributes, startLine);
                items = 1;
                break;

            case TargetDataKind.Histogram:
            {
                int rootDepth = ctx.Depth;
                int slotIndex = 0;
                while (ctx.NextChild(rootDepth))
                {
                    if (ctx.IsElement("Slot") && ctx.TakeLiftedSlots() is { } run)
                    {
                        // A run of plain slots the segment read itself: the XML reader saw one empty <Slot/> at its
                        // end. As when a slot is read from the XML, the last one comes out once the reader has read
                        // past its end.
                        for (int i = 0; i < run.Length - 1; i++)
                        {
                            yield return ctx.MakeSlot(run[i], targetIndex, slotIndex++);
                        }

                        ctx.SkipElement();
                        yield return ctx.MakeSlot(run[^1], targetIndex, slotIndex++);
                        items += run.Length;
                    }
                    else if (ctx.IsElement("Slot"))
                    {
                        yield return ctx.ReadSlot(targetIndex, slotIndex++);
                        items++;
                    }
                    else
                    {
                        ctx.SkipElement();
                    }
                }

                break;
            }

            case TargetDataKind.RingBuffer:
            case TargetDataKind.PairMatching:
            case TargetDataKind.EventList:
            {
                int rootDepth = ctx.Depth;
                while (ctx.NextChild(rootDepth))
                {
                    if (ctx.IsElement("event"))
                    {
                        long line = ctx.Line;
                        var eventAttributes = ctx.ReadAttributes();
                        yield return ctx.ReadEvent(targetIndex, root.Kind, eventAttributes, line);
                        items++;
                    }
                    else
                    {
                        ctx.SkipElement();
                    }
                }

                break;
            }

            case TargetDataKind.EventCounter:
            {
                int rootDepth = ctx.Depth;
                while (ctx.NextChild(rootDepth))
                {
                    if (!ctx.IsElement("Packages"))
                    {
                        ctx.SkipElement();
                        continue;
                    }

                    int packagesDepth = ctx.Depth;
                    while (ctx.NextChild(packagesDepth))
                    {
                        if (!ctx.IsElement("Package"))
                        {
                            ctx.SkipElement();
                            continue;
                        }

                        string package = ctx.Attribute("name") ?? string.Empty;
                        int packageDepth = ctx.Depth;
                        while (ctx.NextChild(packageDepth))
                        {
                            if (ctx.IsElement("Event"))
                            {
                                long line = ctx.Line;
                                string name = ctx.Attribute("name") ?? string.Empty;
                                ulong count = ctx.RequiredUInt64("count");
                                ctx.SkipElement();
                                yield return new EventCounterValue(line, package, name, count);
                                items++;
                            }
                            else
                            {
                                ctx.SkipElement();
                            }
                        }
                    }
                }

                break;
            }

            case TargetDataKind.EventFile:
            {
                int rootDepth = ctx.Depth;
                while (ctx.NextChild(rootDepth))
                {
                    long line = ctx.Line;
                    if (ctx.IsElement("File"))
                    {
                        string name = ctx.Attribute("name") ?? string.Empty;
                        ctx.SkipElement();
                        yield return new EventFileEntry(line, name);
                        items++;
                    }
                    else if (ctx.IsElement("Buffers"))
                    {
                        ulong? logged = ctx.OptionalUInt64("logged");
                        ulong? dropped = ctx.OptionalUInt64("dropped");
                        ctx.SkipElement();
                        yield return new EventFileBuffers(line, logged, dropped);
                    }
                    else
                    {
                        ctx.SkipElement();
                    }
                }

                break;
            }

            default:
                ctx.SkipElement();
                break;
        }

        long endLine = ctx.LastEndLine > 0 ? ctx.LastEndLine : ctx.Line;
        ctx.FinishRoot();
        source.CloseSegment();

        var warnings = new List<string>();
        if (start.Truncated)
        {
            warnings.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{root.Name} at line {startLine} says truncated=\"1\": the server omitted data (target XML is "
                        + $"capped at 4 MB)"
                )
            );
        }

        var end = new TargetEnd(endLine, start, items, warnings);
        if (end.MayHaveMergedValues)
        {
            warnings.Add(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"{root.Name} at line {startLine} uses all {start.Buckets} buckets: hash collisions may have "
                        + $"merged different values into one slot; use more slots than the square of the expected "
                        + $"distinct "
                        + $"values"
                )
            );
        }

        yield return end;
    }
}
