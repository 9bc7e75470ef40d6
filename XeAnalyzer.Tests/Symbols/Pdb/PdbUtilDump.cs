using System.Globalization;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// A parsed <c>llvm-pdbutil-14 dump -summary -publics -section-headers -modules -symbols</c> output: the oracle for the
/// PDB reader. Public and procedure addresses print as <c>section:offset</c> with the offset in DECIMAL.
/// </summary>
internal sealed partial class PdbUtilDump
{
    public Dictionary<string, string> Summary { get; } = new(StringComparer.Ordinal);

    public List<(string Name, string Obj, int DebugStream)> Modules { get; } = [];

    public List<(string Name, int Segment, uint Offset, string Flags)> Publics { get; } = [];

    public List<(string Kind, string Name, int Segment, uint Offset, uint Size, int Module)> Procedures { get; } = [];

    public List<(string Name, uint VirtualSize, uint VirtualAddress)> Sections { get; } = [];

    public List<(string Name, uint VirtualSize, uint VirtualAddress)> OriginalSections { get; } = [];

    public uint Rva(int segment, uint offset) => Sections[segment - 1].VirtualAddress + offset;

    public static PdbUtilDump Load(string path) => Parse(File.ReadAllText(path));

    /// <summary>Runs llvm-pdbutil-14 on <paramref name="pdb"/> now (ignored when the tool is absent).</summary>
    public static PdbUtilDump RunLive(string pdb)
    {
        string tool = LlvmTools.Require("llvm-pdbutil-14");
        return Parse(
            LlvmTools.Run(
                tool,
                Path.GetDirectoryName(pdb)!,
                "dump",
                "-summary",
                "-publics",
                "-section-headers",
                "-modules",
                "-symbols",
                pdb
            )
        );
    }

    public static PdbUtilDump Parse(string text)
    {
        var d = new PdbUtilDump();
        string[] lines = text.Split('\n');
        string section = "";
        int module = -1;
        List<(string, uint, uint)>? headers = null;
        string? secName = null;
        uint vsize = 0;
        for (int i = 0; i < lines.Length; i++)
        {
            string line = lines[i].TrimEnd('\r');
            string t = line.Trim();
            if (i + 1 < lines.Length && lines[i + 1].StartsWith("=====", StringComparison.Ordinal))
            {
                section = t;
                headers = t switch
                {
                    "Section Headers" => d.Sections,
                    "Original Section Headers" => d.OriginalSections,
                    _ => null,
                };
                continue;
            }

            switch (section)
            {
                case "Summary":
                    int colon = t.IndexOf(':', StringComparison.Ordinal);
                    if (colon > 0)
                    {
                        d.Summary[t[..colon]] = t[(colon + 1)..].Trim();
                    }

                    break;
                case "Modules":
                    Match mm = ModuleLine().Match(t);
                    if (mm.Success)
                    {
                        string obj = ObjLine().Match(lines[i + 1].Trim()).Groups[1].Value;
                        int stream = int.Parse(
                            DebugStreamLine().Match(lines[i + 2]).Groups[1].Value,
                            CultureInfo.InvariantCulture
                        );
                        d.Modules.Add((mm.Groups[2].Value, obj, stream));
                    }

                    break;
                case "Public Symbols":
                    Match pm = PublicLine().Match(t);
                    if (pm.Success)
                    {
                        Match am = AddrLine().Match(lines[i + 1]);
                        d.Publics.Add(
                            (pm.Groups[1].Value, Dec(am.Groups[2].Value), Dec32(am.Groups[3].Value), am.Groups[1].Value)
                        );
                    }

                    break;
                case "Symbols":
                    Match sm = ModuleLine().Match(t);
                    if (sm.Success)
                    {
                        module = Dec(sm.Groups[1].Value);
                        break;
                    }

                    Match proc = ProcLine().Match(t);
                    if (proc.Success)
                    {
                        Match am = ProcAddrLine().Match(lines[i + 1]);
                        d.Procedures.Add(
                            (
                                proc.Groups[1].Value,
                                proc.Groups[2].Value,
                                Dec(am.Groups[1].Value),
                                Dec32(am.Groups[2].Value),
                                Dec32(am.Groups[3].Value),
                                module
                            )
                        );
                    }

                    break;
                default:
                    if (headers is null)
                    {
                        break;
                    }

                    if (
                        t.EndsWith(" name", StringComparison.Ordinal)
                        && lines[i - 1].Contains("SECTION HEADER #", StringComparison.Ordinal)
                    )
                    {
                        secName = t[..^" name".Length];
                    }
                    else if (t.EndsWith(" virtual size", StringComparison.Ordinal))
                    {
                        vsize = Hex(t[..^" virtual size".Length]);
                    }
                    else if (t.EndsWith(" virtual address", StringComparison.Ordinal))
                    {
                        headers.Add((secName!, vsize, Hex(t[..^" virtual address".Length])));
                    }

                    break;
            }
        }

        return d;
    }

    private static int Dec(string s) => int.Parse(s, CultureInfo.InvariantCulture);

    private static uint Dec32(string s) => uint.Parse(s, CultureInfo.InvariantCulture);

    private static uint Hex(string s) => uint.Parse(s.Trim(), NumberStyles.HexNumber, CultureInfo.InvariantCulture);

    [GeneratedRegex(@"^Mod (\d{4}) \| `(.*)`:$")]
    private static partial Regex ModuleLine();

    [GeneratedRegex(@"^Obj: `(.*)`:$")]
    private static partial Regex ObjLine();

    [GeneratedRegex(@"debug stream: (\d+),")]
    private static partial Regex DebugStreamLine();

    [GeneratedRegex(@"^\d+ \| S_PUB32 \[size = \d+\] `(.*)`$")]
    private static partial Regex PublicLine();

    [GeneratedRegex(@"flags = (.*), addr = (\d{4}):(\d+)")]
    private static partial Regex AddrLine();

    [GeneratedRegex(@"^\d+ \| (S_[GL]PROC32(?:_ID|_DPC|_DPC_ID)?) \[size = \d+\] `(.*)`$")]
    private static partial Regex ProcLine();

    [GeneratedRegex(@"addr = (\d{4}):(\d+), code size = (\d+)")]
    private static partial Regex ProcAddrLine();
}
