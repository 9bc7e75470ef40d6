using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using XeAnalyzer.IO;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Callstacks;

/// <summary>One loaded module of a <see cref="ModuleMap"/>: its name, path and address range.</summary>
internal sealed class LoadedModule
{
    internal LoadedModule(ModuleName name, string path, ulong baseAddress, ulong endAddress, long lineNumber)
    {
        Name = name;
        Path = path;
        BaseAddress = baseAddress;
        EndAddress = endAddress;
        LineNumber = lineNumber;
    }

    /// <summary>The module name (file name of <see cref="Path"/>).</summary>
    public ModuleName Name { get; }

    /// <summary>The path as listed (<c>C:\…\Binn\sqlmin.dll</c>).</summary>
    public string Path { get; }

    /// <summary>The base address.</summary>
    public ulong BaseAddress { get; }

    /// <summary>The last address of the range (inclusive): the next higher module's base − 1, or
    /// <see cref="ulong.MaxValue"/> for the highest module.</summary>
    public ulong EndAddress { get; }

    /// <summary>1-based line of the input.</summary>
    public long LineNumber { get; }

    /// <summary>Returns <c>name [base–end]</c>.</summary>
    public override string ToString() =>
        string.Create(CultureInfo.InvariantCulture, $"{Name.Name} [0x{BaseAddress:X16}-0x{EndAddress:X16}]");
}

/// <summary>
/// A list of loaded modules and their base addresses (<c>select name, base_address from sys.dm_os_loaded_modules</c>
/// pasted as text), used to turn raw virtual addresses into module + RVA. Only <c>.dll</c>/<c>.exe</c> entries are
/// kept. With no size column, each module is taken to end where the next higher base starts (the highest ends at
/// <see cref="ulong.MaxValue"/>). The list must come from the same process lifetime as the stacks (ASLR moves modules
/// on every start).
/// </summary>
public sealed class ModuleMap
{
    private const int MaxModules = 100_000;
    private const int MaxLineLength = 64 * 1024;

    private readonly LoadedModule[] _modules;
    private readonly ulong[] _bases;

    private ModuleMap(LoadedModule[] modules, int skipped)
    {
        _modules = modules;
        _bases = Array.ConvertAll(modules, m => m.BaseAddress);
        SkippedEntries = skipped;
    }

    /// <summary>The kept modules, by ascending base address.</summary>
    internal IReadOnlyList<LoadedModule> Modules => _modules;

    /// <summary>How many well-formed entries were left out because they are not <c>.dll</c>/<c>.exe</c> (<c>.rll</c>
    /// resources, drivers).</summary>
    public int SkippedEntries { get; }

    /// <summary>
    /// Reads a module list: one module per line, <c>path</c> then TAB(s) or spaces then the base address (hex,
    /// <c>0x</c> optional, WinDbg
    /// <c>00000001`00400000</c> accepted); an optional <c>name	base_address</c> header and blank lines are ignored.
    /// </summary>
    /// <param name="input">The text; not disposed.</param>
    /// <param name="filePath">The input file for error messages, if any.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The map.</returns>
    /// <exception cref="InvalidTextInputException">A malformed line, a non-hex or overflowing address, two bases on one
    /// line, or a duplicate base, with the line and what was expected.</exception>
    public static ModuleMap Parse(
        TextReader input,
        string? filePath = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(input);
        var kept = new List<LoadedModule>();
        var seen = new Dictionary<ulong, long>();
        int skipped = 0;
        foreach ((string text, long number) in BoundedLines.Read(input, filePath, MaxLineLength, cancellationToken))
        {
            ReadOnlySpan<char> line = text.AsSpan().Trim();
            if (line.IsEmpty || IsHeader(line))
            {
                continue;
            }

            int sep = line.LastIndexOfAny(' ', '\t');
            if (sep < 0)
            {
                throw Error(
                    filePath,
                    number,
                    $"'<module path> <TAB or spaces> <base address>', found \"{Shorten(line)}\""
                );
            }

            ReadOnlySpan<char> path = line[..sep].TrimEnd();
            ReadOnlySpan<char> baseText = line[(sep + 1)..];
            int lastSpace = path.LastIndexOfAny(' ', '\t');
            if (lastSpace >= 0 && LooksLikeAddress(path[(lastSpace + 1)..]))
            {
                throw Error(filePath, number, $"one base address per line, found two in \"{Shorten(line)}\"");
            }

            if (path.Contains('\t'))
            {
                throw Error(
                    filePath,
                    number,
                    $"one module path and one base address per line, found extra fields in \"{Shorten(line)}\""
                );
            }

            if (!TryParseAddress(baseText, out ulong baseAddress, out string? why))
            {
                throw Error(
                    filePath,
                    number,
                    $"a hex base address (0x optional, WinDbg 00000001`00400000 form accepted), found "
                        + $"\"{Shorten(baseText)}\": {why}"
                );
            }

            if (seen.TryGetValue(baseAddress, out long firstLine))
            {
                throw Error(
                    filePath,
                    number,
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a distinct base address per module, but 0x{baseAddress:X16} is also the base of line "
                            + $"{firstLine}"
                    )
                );
            }

            seen.Add(baseAddress, number);
            if (
                !(
                    path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)
                    || path.EndsWith(".exe", StringComparison.OrdinalIgnoreCase)
                )
            )
            {
                skipped++;
                continue;
            }

            if (kept.Count >= MaxModules)
            {
                throw Error(
                    filePath,
                    number,
                    string.Create(CultureInfo.InvariantCulture, $"at most {MaxModules} modules")
                );
            }

            string pathText = path.ToString();
            if (!ModuleName.TryCreate(pathText, out ModuleName? moduleName))
            {
                throw Error(filePath, number, $"a module file path, found \"{Shorten(path)}\"");
            }

            kept.Add(new LoadedModule(moduleName, pathText, baseAddress, 0, number));
        }

        kept.Sort((a, b) => a.BaseAddress.CompareTo(b.BaseAddress));
        var modules = new LoadedModule[kept.Count];
        for (int i = 0; i < kept.Count; i++)
        {
            LoadedModule m = kept[i];
            ulong end = i + 1 < kept.Count ? kept[i + 1].BaseAddress - 1 : ulong.MaxValue;
            modules[i] = new LoadedModule(m.Name, m.Path, m.BaseAddress, end, m.LineNumber);
        }

        return new ModuleMap(modules, skipped);
    }

    /// <summary>Reads a module list file (see <see cref="Parse(TextReader, string?, CancellationToken)"/>).</summary>
    /// <param name="path">The file.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The map.</returns>
    /// <exception cref="InvalidTextInputException">A malformed line, with the file and line.</exception>
    public static ModuleMap Load(string path, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        using StreamReader reader = TextInput.OpenText(path);
        return Parse(reader, path, cancellationToken);
    }

    /// <summary>Finds the module whose range holds an address.</summary>
    /// <param name="address">A virtual address.</param>
    /// <param name="module">The module, when found.</param>
    /// <param name="rva">address − base, when found.</param>
    /// <returns><see langword="true"/> when exactly one range holds the address (false below the lowest base or for an
    /// empty map).</returns>
    internal bool TryResolve(ulong address, [NotNullWhen(true)] out LoadedModule? module, out ulong rva)
    {
        int i = Array.BinarySearch(_bases, address);
        if (i < 0)
        {
            i = ~i - 1;
        }

        if (i < 0 || address > _modules[i].EndAddress)
        {
            module = null;
            rva = 0;
            return false;
        }

        module = _modules[i];
        rva = address - module.BaseAddress;
        return true;
    }

    /// <summary>Turns a virtual-address frame into a module+offset frame (same raw text and frame number), when the map
    /// holds its address.</summary>
    /// <param name="frame">The frame.</param>
    /// <param name="resolved">The module+offset frame, when found.</param>
    /// <returns><see langword="true"/> when the address was found.</returns>
    internal bool TryResolve(VirtualAddressFrame frame, [NotNullWhen(true)] out ModuleOffsetFrame? resolved)
    {
        ArgumentNullException.ThrowIfNull(frame);
        if (TryResolve(frame.Address, out LoadedModule? module, out ulong rva))
        {
            resolved = new ModuleOffsetFrame(module.Name, rva, frame.Raw, frame.Provenance, frame.FrameNumber);
            return true;
        }

        resolved = null;
        return false;
    }

    private static bool IsHeader(ReadOnlySpan<char> line)
    {
        int sep = line.IndexOfAny(' ', '\t');
        return sep > 0
            && line[..sep].Equals("name", StringComparison.OrdinalIgnoreCase)
            && line[sep..].Trim().Equals("base_address", StringComparison.OrdinalIgnoreCase);
    }

    private static bool LooksLikeAddress(ReadOnlySpan<char> t) =>
        t.StartsWith("0x", StringComparison.OrdinalIgnoreCase)
        || t.Contains('`')
        || (t.Length >= 8 && !t.ContainsAnyExcept(s_hex));

    private static readonly System.Buffers.SearchValues<char> s_hex = System.Buffers.SearchValues.Create(
        "0123456789abcdefABCDEF"
    );

    private static bool TryParseAddress(ReadOnlySpan<char> t, out ulong value, [NotNullWhen(false)] out string? why)
    {
        value = 0;
        if (t.StartsWith("0x", StringComparison.OrdinalIgnoreCase))
        {
            t = t[2..];
        }

        Span<char> digits = stackalloc char[Math.Min(t.Length, 64)];
        int n = 0;
        int ticks = 0;
        foreach (char c in t)
        {
            if (c == '`')
            {
                ticks++;
                continue;
            }

            if (!char.IsAsciiHexDigit(c))
            {
                why = $"'{c}' is not a hex digit";
                return false;
            }

            if (n == digits.Length)
            {
                why = "too many digits";
                return false;
            }

            digits[n++] = c;
        }

        if (ticks > 1 || n == 0 || (ticks == 1 && (t[0] == '`' || t[^1] == '`')))
        {
            why = n == 0 ? "no digits" : "a back-tick may only separate the two halves";
            return false;
        }

        ReadOnlySpan<char> d = digits[..n].TrimStart('0');
        if (d.Length > 16)
        {
            why = "the value does not fit in 64 bits";
            return false;
        }

        ulong v = 0;
        foreach (char c in d)
        {
            v = (v << 4) | (uint)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }

        value = v;
        why = null;
        return true;
    }

    private static InvalidTextInputException Error(string? filePath, long line, string expected) =>
        new(
            filePath,
            (int)Math.Min(line, int.MaxValue),
            "module list (sys.dm_os_loaded_modules): expected " + expected
        );

    private static string Shorten(ReadOnlySpan<char> s) =>
        s.Length <= 120 ? s.ToString() : string.Concat(s[..120], "…");
}
