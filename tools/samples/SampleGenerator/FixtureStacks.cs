using System.Globalization;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// One frame of a fixture stack: the module (as <c>tools/fixtures/stacks.tsv</c> names it), the function and the offset
/// as published, and the frame's RVA inside the committed synthetic DLL, as <c>tools/fixtures/expected/stacks.tsv</c>
/// records it (checked there with llvm-objdump). Foreign frames (<c>KERNEL32.DLL</c>, <c>ntdll.dll</c>) have no
/// function: their RVA is the published module offset. An out-of-module frame has no module and a fixed raw address.
/// </summary>
internal sealed record Frame(string Module, string? Function, string Offset, ulong Rva, ulong RawAddress = 0)
{
    /// <summary>A frame in no module: a raw address that no module of the list contains.</summary>
    public static Frame OutsideModules(ulong address) => new("-", null, "-", 0, address);

    /// <summary>Whether this frame lies in no module.</summary>
    public bool IsOutside => RawAddress != 0;

    /// <summary>The module's file name as the engine renders it (<c>sqlmin.dll</c>, <c>KERNEL32.DLL</c>).</summary>
    public string ModuleFile => Module.Contains('.', StringComparison.Ordinal) ? Module : Module + ".dll";

    /// <summary>The frame as SQL Server renders a histogram slot without trace flag 3656:
    /// <c>sqlmin.dll+0x00000000000011E9</c>.</summary>
    public string ModuleOffsetText =>
        IsOutside ? RawText : ModuleFile + "+0x" + Rva.ToString("X16", CultureInfo.InvariantCulture);

    /// <summary>
    /// The frame as SQL Server renders it symbolized in-engine (trace flags 3656 + 2592): <c>sqlmin.dll!Func+0x1a9</c>;
    /// frames with no symbols keep the module+offset form, frames in no module the raw address.
    /// </summary>
    public string SymbolizedText =>
        IsOutside ? RawText
        : Function is null ? ModuleOffsetText
        : ModuleFile + "!" + Function + "+" + Offset;

    /// <summary>The raw address as a callstack column prints it: <c>0x000002A61C3D8F10</c>.</summary>
    public string RawText => "0x" + RawAddress.ToString("X16", CultureInfo.InvariantCulture);
}

/// <summary>The seed stacks of the fixture modules, read from <c>tools/fixtures/expected/stacks.tsv</c>.</summary>
internal sealed class FixtureStacks
{
    private readonly Dictionary<string, List<Frame>> _stacks = new(StringComparer.Ordinal);
    private readonly Dictionary<(string Module, string Function, string Offset), Frame> _frames = [];

    private FixtureStacks() { }

    /// <summary>The path this data was read from (named in the README).</summary>
    public string SourcePath { get; private init; } = string.Empty;

    /// <summary>Reads <c>tools/fixtures/expected/stacks.tsv</c>.</summary>
    public static FixtureStacks Load(string path)
    {
        var result = new FixtureStacks { SourcePath = path };
        string[] lines = File.ReadAllLines(path);
        if (
            lines.Length < 2
            || !lines[0]
                .StartsWith(
                    "stack\tframe\tmodule\tfunction\tdecorated\toffset\tfunction_rva\tframe_rva",
                    StringComparison.Ordinal
                )
        )
        {
            throw new InvalidDataException(
                path + ": unexpected header '" + (lines.Length > 0 ? lines[0] : string.Empty) + "'."
            );
        }

        for (int i = 1; i < lines.Length; i++)
        {
            if (lines[i].Length == 0)
            {
                continue;
            }

            string[] c = lines[i].Split('\t');
            if (c.Length < 9)
            {
                throw new InvalidDataException(
                    path + " line " + (i + 1).ToString(CultureInfo.InvariantCulture) + ": expected 9 columns."
                );
            }

            string stack = c[0];
            int index = int.Parse(c[1], NumberStyles.None, CultureInfo.InvariantCulture);
            string? function = c[3] == "-" ? null : c[3];
            ulong rva = function is null ? Hex(c[5], path, i) : Hex(c[7], path, i);
            var frame = new Frame(c[2], function, c[5], rva);
            if (!result._stacks.TryGetValue(stack, out List<Frame>? frames))
            {
                frames = [];
                result._stacks.Add(stack, frames);
            }

            if (index != frames.Count)
            {
                throw new InvalidDataException(
                    path
                        + " line "
                        + (i + 1).ToString(CultureInfo.InvariantCulture)
                        + ": frames of stack "
                        + stack
                        + " are not in order."
                );
            }

            frames.Add(frame);
            if (function is not null)
            {
                var key = (frame.Module, function, frame.Offset);
                if (result._frames.TryGetValue(key, out Frame? seen) && seen.Rva != rva)
                {
                    throw new InvalidDataException(path + ": " + frame.SymbolizedText + " has two RVAs.");
                }

                result._frames[key] = frame;
            }
        }

        return result;
    }

    /// <summary>The frames of seed stack <paramref name="id"/> (A–H, M1, M2, …), leaf first.</summary>
    public IReadOnlyList<Frame> Stack(string id) =>
        _stacks.TryGetValue(id, out List<Frame>? f)
            ? f
            : throw new KeyNotFoundException("Stack " + id + " is not in the fixtures.");

    /// <summary>The fixture frame <paramref name="function"/>+<paramref name="offset"/> of <paramref name="module"/>
    /// (it must occur in some seed stack).</summary>
    public Frame Get(string module, string function, string offset) =>
        _frames.TryGetValue((module, function, offset), out Frame? f)
            ? f
            : throw new KeyNotFoundException(
                module + "!" + function + "+" + offset + " is not a frame of the fixture stacks."
            );

    private static ulong Hex(string s, string path, int line)
    {
        if (
            !s.StartsWith("0x", StringComparison.Ordinal)
            || !ulong.TryParse(s.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ulong v)
        )
        {
            throw new InvalidDataException(
                path
                    + " line "
                    + (line + 1).ToString(CultureInfo.InvariantCulture)
                    + ": '"
                    + s
                    + "' is not a 0x hex number."
            );
        }

        return v;
    }
}
