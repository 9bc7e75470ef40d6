using System.Globalization;
using System.Text.RegularExpressions;

namespace XeAnalyzer.Tests.Symbols.Pe;

/// <summary>
/// A parsed <c>llvm-readobj-14 --file-headers --sections --coff-debug-directory --coff-exports</c> output (or the parts
/// of it that a command printed), plus the forwarders of an <c>llvm-objdump-14 -p</c> export table: the oracle for
/// <see cref="XeAnalyzer.Symbols.Pe.PeImage"/>.
/// </summary>
internal sealed partial class ReadObjOutput
{
    public ushort? Machine { get; private set; }

    public uint? TimeDateStamp { get; private set; }

    public ulong? ImageBase { get; private set; }

    public uint? SizeOfImage { get; private set; }

    public List<(
        string Name,
        uint VirtualSize,
        uint VirtualAddress,
        uint RawDataSize,
        uint PointerToRawData
    )> Sections { get; } = [];

    public List<(Guid Guid, int Age, string Path)> CodeViews { get; } = [];

    public List<(int Ordinal, string Name, uint Rva)> Exports { get; } = [];

    public static ReadObjOutput Load(string path) => Parse(File.ReadAllText(path));

    public static ReadObjOutput Parse(string text)
    {
        var r = new ReadObjOutput();
        string[] lines = text.Split('\n').Select(l => l.TrimEnd('\r')).ToArray();
        string block = "";
        for (int i = 0; i < lines.Length; i++)
        {
            string t = lines[i].Trim();
            if (t.EndsWith('{') && !t.Contains(':', StringComparison.Ordinal))
            {
                block = t.TrimEnd('{', ' ');
            }

            Match kv = KeyValue().Match(t);
            if (!kv.Success)
            {
                continue;
            }

            string key = kv.Groups[1].Value;
            string value = kv.Groups[2].Value;
            switch (block, key)
            {
                case ("ImageFileHeader", "Machine"):
                    r.Machine = (ushort)ParenHex(value);
                    break;
                case ("ImageFileHeader", "TimeDateStamp"):
                    r.TimeDateStamp = (uint)ParenHex(value);
                    break;
                case ("ImageOptionalHeader", "ImageBase"):
                    r.ImageBase = Hex(value);
                    break;
                case ("ImageOptionalHeader", "SizeOfImage"):
                    r.SizeOfImage = uint.Parse(value, CultureInfo.InvariantCulture);
                    break;
                case ("Section", "Name"):
                    string name = value[..value.IndexOf(" (", StringComparison.Ordinal)];
                    r.Sections.Add(
                        (
                            name,
                            (uint)Hex(Field(lines, i, "VirtualSize")),
                            (uint)Hex(Field(lines, i, "VirtualAddress")),
                            uint.Parse(Field(lines, i, "RawDataSize"), CultureInfo.InvariantCulture),
                            (uint)Hex(Field(lines, i, "PointerToRawData"))
                        )
                    );
                    break;
                case ("PDBInfo", "PDBGUID"):
                    byte[] bytes = value
                        .Trim('(', ')')
                        .Split(' ')
                        .Select(b => byte.Parse(b, NumberStyles.HexNumber, CultureInfo.InvariantCulture))
                        .ToArray();
                    r.CodeViews.Add(
                        (
                            new Guid(bytes),
                            int.Parse(Field(lines, i, "PDBAge"), CultureInfo.InvariantCulture),
                            Field(lines, i, "PDBFileName")
                        )
                    );
                    break;
                case ("Export", "Ordinal"):
                    r.Exports.Add(
                        (
                            int.Parse(value, CultureInfo.InvariantCulture),
                            Field(lines, i, "Name"),
                            (uint)Hex(Field(lines, i, "RVA"))
                        )
                    );
                    break;
            }
        }

        return r;
    }

    /// <summary>Ordinal → forwarder target from an <c>llvm-objdump-14 -p</c> export table ("(forwarded to
    /// kernel32.Sleep)").</summary>
    public static Dictionary<int, string> ObjdumpForwarders(string objdumpText)
    {
        var map = new Dictionary<int, string>();
        foreach (Match m in Forwarded().Matches(objdumpText))
        {
            map[int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture)] = m.Groups[2].Value;
        }

        return map;
    }

    /// <summary>Ordinal → RVA (and name, possibly empty) from an <c>llvm-objdump-14 -p</c> export table.</summary>
    public static List<(int Ordinal, uint Rva, string Name)> ObjdumpExports(string objdumpText)
    {
        var list = new List<(int, uint, string)>();
        foreach (Match m in ObjdumpExport().Matches(objdumpText))
        {
            list.Add(
                (
                    int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture),
                    (uint)Hex(m.Groups[2].Value),
                    m.Groups[3].Value.Trim()
                )
            );
        }

        return list;
    }

    /// <summary>The value of the first "<paramref name="key"/>: value" line at or after <paramref name="from"/> (within
    /// the same record).</summary>
    private static string Field(string[] lines, int from, string key)
    {
        for (int j = from; j < lines.Length && j < from + 40; j++)
        {
            Match kv = KeyValue().Match(lines[j].Trim());
            if (kv.Success && kv.Groups[1].Value == key)
            {
                return kv.Groups[2].Value;
            }
        }

        throw new InvalidOperationException("readobj output has no " + key + " after line " + from);
    }

    private static ulong Hex(string s) =>
        ulong.Parse(
            s.StartsWith("0x", StringComparison.Ordinal) ? s[2..] : s,
            NumberStyles.HexNumber,
            CultureInfo.InvariantCulture
        );

    private static ulong ParenHex(string s) => Hex(ParenValue().Match(s).Groups[1].Value);

    [GeneratedRegex(@"^(\w+): ?(.*)$")]
    private static partial Regex KeyValue();

    [GeneratedRegex(@"\((0x[0-9A-Fa-f]+)\)\s*$")]
    private static partial Regex ParenValue();

    [GeneratedRegex(@"^\s+(\d+)\s+(?:\S+ )?\(forwarded to (\S+)\)$", RegexOptions.Multiline)]
    private static partial Regex Forwarded();

    [GeneratedRegex(@"^\s+(\d+)\s+0x([0-9a-f]+)(.*)$", RegexOptions.Multiline)]
    private static partial Regex ObjdumpExport();
}
