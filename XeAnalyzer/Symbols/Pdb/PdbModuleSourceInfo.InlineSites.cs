using System.Globalization;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <content>
/// Reading the inline sites of the module's procedures (<c>S_INLINESITE</c>/<c>S_INLINESITE2</c>) from its symbol
/// records, nested through their parent pointers, and laying them out by procedure.
/// </content>
internal sealed partial class PdbModuleSourceInfo
{
    private const ushort SInlineSite = 0x114D;
    private const ushort SInlineSite2 = 0x115D;

    private static void ReadInlineSites(
        PdbFile pdb,
        byte[] symbols,
        MsfStream stream,
        string description,
        PdbAddressMap map,
        List<Procedure> procedures,
        List<Site> sites,
        CancellationToken ct
    )
    {
        var r = new SpanReader(symbols, stream, 0, description);
        // Every scope record (procedure, block, thunk, with, separated code, inline site) by its stream offset: the
        // procedure it is in, the inline site it is (or is nested in), and its depth. Inline sites find their parent
        // through their parent pointer.
        var scopes = new Dictionary<uint, (int Procedure, int Site, int Depth)>();
        var siteLists = new List<List<Site>>();
        r.ReadUInt32("symbol signature");
        int count = 0;
        while (r.Remaining > 0)
        {
            int start = r.Position;
            ushort length = r.ReadUInt16("record length");
            if (length < 2 || length > r.Remaining)
            {
                throw r.Error(
                    start,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a record length between 2 and {r.Remaining} (the bytes left in the module's symbols), "
                            + $"found {length}"
                    )
                );
            }

            int end = start + 2 + length;
            ushort kind = r.ReadUInt16("record kind");
            switch (kind)
            {
                case 0x110F or 0x1110 or 0x1146 or 0x1147 or 0x1155 or 0x1156:
                {
                    if (length < 2 + 35 + 1)
                    {
                        throw r.Error(
                            start,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"a procedure record (kind 0x{kind:X4}) of at least 38 bytes, found {length}"
                            )
                        );
                    }

                    r.Skip(12, "procedure parent/end/next");
                    uint size = r.ReadUInt32("procedure code size");
                    r.Skip(12, "procedure debug start/end and type");
                    uint offset = r.ReadUInt32("procedure code offset");
                    ushort segment = r.ReadUInt16("procedure segment");
                    int proc = -1;
                    if (map.TryGetSourceRva(segment, offset, out uint rva))
                    {
                        proc = procedures.Count;
                        procedures.Add(new Procedure(rva, size, 0, 0));
                        siteLists.Add([]);
                    }

                    scopes[(uint)start] = (proc, -1, 0);
                    break;
                }

                case 0x1102
                or 0x1103
                or 0x1104
                or 0x1132
                or 0x112A
                or 0x112B:
                {
                    // Thunk, block, with, separated code, managed procedures: scopes that inline sites may name as
                    // parent.
                    uint parent = r.ReadUInt32("scope parent");
                    (int p, int s, int d) = scopes.TryGetValue(parent, out var outer) ? outer : (-1, -1, 0);
                    if (d + 1 > pdb.Limits.MaxInlineDepth)
                    {
                        throw r.Error(
                            start,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"scopes nested at most {pdb.Limits.MaxInlineDepth} deep "
                                    + $"(PdbReaderLimits.MaxInlineDepth)"
                            )
                        );
                    }

                    scopes[(uint)start] = (p, s, d + 1);
                    break;
                }

                case SInlineSite
                or SInlineSite2:
                {
                    int fixedBytes = kind == SInlineSite2 ? 16 : 12;
                    if (length < 2 + fixedBytes)
                    {
                        throw r.Error(
                            start,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"an inline site record of at least {2 + fixedBytes} bytes, found {length}"
                            )
                        );
                    }

                    if (++count > pdb.Limits.MaxInlineSitesPerModule)
                    {
                        throw r.Error(
                            start,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"at most {pdb.Limits.MaxInlineSitesPerModule} inline sites in a module "
                                    + $"(PdbReaderLimits.MaxInlineSitesPerModule)"
                            )
                        );
                    }

                    uint parent = r.ReadUInt32("inline site parent");
                    r.Skip(4, "inline site end");
                    uint inlinee = r.ReadUInt32("inline site inlinee");
                    if (kind == SInlineSite2)
                    {
                        r.Skip(4, "inline site invocations");
                    }

                    if (!scopes.TryGetValue(parent, out var outer))
                    {
                        throw r.Error(
                            start + 4,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"an inline site parent that is an earlier procedure, block or inline site, found "
                                    + $"offset {parent}"
                            )
                        );
                    }

                    if (outer.Depth + 1 > pdb.Limits.MaxInlineDepth)
                    {
                        throw r.Error(
                            start,
                            string.Create(
                                CultureInfo.InvariantCulture,
                                $"inline sites nested at most {pdb.Limits.MaxInlineDepth} deep "
                                    + $"(PdbReaderLimits.MaxInlineDepth)"
                            )
                        );
                    }

                    int annotationsAt = r.Position;
                    ReadOnlySpan<byte> annotations = r.Advance(end - r.Position, "binary annotations");
                    int siteIndex = -1;
                    if (outer.Procedure >= 0)
                    {
                        List<InlineRange> ranges = PdbInlineAnnotations.Decode(
                            annotations,
                            procedures[outer.Procedure].Size,
                            (at, expected) =>
                                stream.Error(
                                    annotationsAt + at,
                                    description,
                                    "binary annotations of the inline site at offset "
                                        + start.ToString(CultureInfo.InvariantCulture)
                                        + ": "
                                        + expected
                                )
                        );
                        List<Site> list = siteLists[outer.Procedure];
                        siteIndex = list.Count;
                        list.Add(new Site(outer.Site, inlinee, Sorted(ranges)));
                    }

                    scopes[(uint)start] = (outer.Procedure, siteIndex, outer.Depth + 1);
                    break;
                }
            }

            if ((count & 0xFFF) == 0)
            {
                ct.ThrowIfCancellationRequested();
            }

            r.Position = end;
        }

        // Sort procedures by start; their sites go to one array, each procedure's sites contiguous (parents are
        // procedure-local indices).
        int[] order = new int[procedures.Count];
        for (int i = 0; i < order.Length; i++)
        {
            order[i] = i;
        }

        Array.Sort(
            order,
            (a, b) =>
                procedures[a].Start != procedures[b].Start
                    ? procedures[a].Start.CompareTo(procedures[b].Start)
                    : a.CompareTo(b)
        );
        var sorted = new List<Procedure>(procedures.Count);
        foreach (int i in order)
        {
            List<Site> list = siteLists[i];
            int first = sites.Count;
            foreach (Site s in list)
            {
                sites.Add(s with { Parent = s.Parent < 0 ? -1 : s.Parent + first });
            }

            sorted.Add(procedures[i] with { FirstSite = first, SiteCount = list.Count });
        }

        procedures.Clear();
        procedures.AddRange(sorted);
    }

    private static InlineRange[] Sorted(List<InlineRange> ranges)
    {
        InlineRange[] a = [.. ranges];
        Array.Sort(a, static (x, y) => x.Start != y.Start ? x.Start.CompareTo(y.Start) : x.End.CompareTo(y.End));
        return a;
    }
}
