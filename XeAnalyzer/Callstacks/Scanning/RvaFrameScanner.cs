using System.Globalization;
using System.Net;

namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// The SQL Server 2022+ <c>callstack_rva</c> frame grammar (XE-TEXT-SHAPES §5): <c>&lt;frame id="02" pdb="SqlDK.pdb"
/// age="2" guid="…" module="sqldk.dll" rva="0x40609" address="0x100440609"/&gt;</c>, in any attribute order and case,
/// HTML-escaped, after a <c>Frame =</c> label, several per line. Abbreviated frames (<c>name</c> + <c>address</c>) take
/// their module's base, GUID and age from an earlier full frame of the same module, so use one scanner per input. Not
/// thread-safe.
/// </summary>
internal sealed class RvaFrameScanner
{
    private const int MaxAttributes = 32;
    private const string ElementStart = "<frame";

    private readonly ModuleNameCache _modules;
    private readonly int _maxFrames;
    private readonly Dictionary<string, RvaBase> _bases = new(StringComparer.Ordinal);
    private readonly List<KeyValuePair<string, string>> _attributes = [];

    public RvaFrameScanner(ModuleNameCache modules, int maxFramesPerLine)
    {
        _modules = modules;
        _maxFrames = maxFramesPerLine;
    }

    private readonly record struct RvaBase(ulong Base, string? PdbName, PdbIdentity Identity);

    /// <summary>True when the text holds the start of a <c>callstack_rva</c> frame (plain or HTML-escaped).</summary>
    public static bool HasRvaFrame(string text) =>
        text.Contains(ElementStart, StringComparison.Ordinal) || text.Contains("&lt;frame", StringComparison.Ordinal);

    /// <summary>True when the last <c>&lt;frame</c> of the text has no closing '&gt;' yet (a frame split across
    /// lines).</summary>
    public static bool EndsInsideRvaFrame(string text)
    {
        int a = text.LastIndexOf(ElementStart, StringComparison.Ordinal);
        int b = text.LastIndexOf("&lt;frame", StringComparison.Ordinal);
        int k = Math.Max(a, b);
        if (k < 0)
        {
            return false;
        }

        ReadOnlySpan<char> rest = text.AsSpan(k + 1);
        return rest.IndexOf('>') < 0 && rest.IndexOf("&gt;", StringComparison.Ordinal) < 0;
    }

    /// <summary>
    /// Scans a line holding <c>&lt;frame</c> elements, appending the frames to <paramref name="output"/>. Text between
    /// the elements (other than a <c>Frame =</c> label) and malformed elements are unparsed pieces; a line without
    /// frames reports its first malformed element.
    /// </summary>
    public LineScan ScanLine(string text, List<StackFrame> output)
    {
        string work = text;
        if (text.Contains("&lt;frame", StringComparison.Ordinal))
        {
            work = WebUtility.HtmlDecode(text);
        }

        List<UnparsedToken>? unparsed = null;
        FrameFailure? firstFailure = null;
        int frames = 0;
        int pieceIndex = 0;
        int i = 0;
        while (i < work.Length)
        {
            int k = work.IndexOf(ElementStart, i, StringComparison.Ordinal);
            int gapEnd = k < 0 ? work.Length : k;
            ReadOnlySpan<char> gap = work.AsSpan(i, gapEnd - i).Trim();
            if (!gap.IsEmpty && !IsFrameLabel(gap))
            {
                (unparsed ??= []).Add(
                    new UnparsedToken(
                        gap.ToString(),
                        pieceIndex++,
                        new FrameFailure(FrameFailureReason.NotAFrame, i).Message
                    )
                );
            }

            if (k < 0)
            {
                break;
            }

            int frameEnd = ScanElement(work, k, out FrameFailure? syntaxError);
            string raw = work[k..frameEnd].Trim();
            TokenScan scan = syntaxError is FrameFailure error ? error : BuildFrame(_attributes, raw, k);
            if (scan.Frame is not null && frames < _maxFrames)
            {
                output.Add(scan.Frame);
                frames++;
            }
            else
            {
                FrameFailure failure = scan.Frame is null
                    ? scan.Failure
                    : new FrameFailure(FrameFailureReason.TooManyFrames, k);
                firstFailure ??= failure;
                (unparsed ??= []).Add(new UnparsedToken(raw, pieceIndex, failure.Message));
            }

            pieceIndex++;
            i = frameEnd;
        }

        return new LineScan(frames, unparsed, frames == 0 ? firstFailure : null);
    }

    /// <summary>Builds a frame from the attributes of one element (parsed from text, or a raw XML child
    /// element).</summary>
    /// <param name="attributes">The attributes, names in any case.</param>
    /// <param name="raw">The element as written (the frame's <see cref="StackFrame.Raw"/>).</param>
    /// <param name="position">Where the element starts in the scanned text (0 for a child element).</param>
    public TokenScan BuildFrame(IReadOnlyList<KeyValuePair<string, string>> attributes, string raw, int position)
    {
        string? id = null,
            pdb = null,
            age = null,
            guid = null,
            module = null,
            name = null,
            rva = null,
            address = null;
        foreach (KeyValuePair<string, string> a in attributes)
        {
            switch (a.Key.ToLowerInvariant())
            {
                case "id":
                    id = Compact(a.Value);
                    break;
                case "pdb":
                    pdb = a.Value.Trim();
                    break;
                case "age":
                    age = Compact(a.Value);
                    break;
                case "guid":
                    guid = Compact(a.Value);
                    break;
                case "module":
                    module = a.Value.Trim();
                    break;
                case "name":
                    name = a.Value.Trim();
                    break;
                case "rva":
                    rva = Compact(a.Value);
                    break;
                case "address":
                    address = Compact(a.Value);
                    break;
                default:
                    break;
            }
        }

        int? number = null;
        if (id is not null)
        {
            if (!int.TryParse(id, NumberStyles.None, CultureInfo.InvariantCulture, out int n))
            {
                return new FrameFailure(FrameFailureReason.RvaBadId, position, id);
            }

            number = n;
        }

        PdbIdentity? identity = null;
        if (guid is not null || age is not null)
        {
            if (guid is null)
            {
                return new FrameFailure(FrameFailureReason.RvaAgeWithoutGuid, position);
            }

            if (!Guid.TryParse(guid, out Guid g))
            {
                return new FrameFailure(FrameFailureReason.RvaBadGuid, position, guid);
            }

            if (age is null)
            {
                return new FrameFailure(FrameFailureReason.RvaGuidWithoutAge, position);
            }

            if (!int.TryParse(age, NumberStyles.None, CultureInfo.InvariantCulture, out int ageValue))
            {
                return new FrameFailure(FrameFailureReason.RvaBadAge, position, age);
            }

            identity = new PdbIdentity(g, ageValue);
        }

        ulong? rvaValue = null;
        if (rva is not null)
        {
            if (!TryParseHexValue(rva, out ulong v))
            {
                return new FrameFailure(FrameFailureReason.RvaBadRva, position, rva);
            }

            rvaValue = v;
        }

        ulong? addressValue = null;
        if (address is not null)
        {
            if (!TryParseHexValue(address, out ulong v))
            {
                return new FrameFailure(FrameFailureReason.RvaBadAddress, position, address);
            }

            addressValue = v;
        }

        if (rvaValue is null && addressValue is null)
        {
            return new FrameFailure(FrameFailureReason.RvaNoRvaNorAddress, position);
        }

        string? moduleText =
            !string.IsNullOrEmpty(module) ? module
            : !string.IsNullOrEmpty(name) ? name
            : null;
        ModuleName? moduleName = null;
        if (moduleText is not null)
        {
            if (moduleText.AsSpan().IndexOfAny('/', '\\') >= 0 || !ModuleName.TryCreate(moduleText, out _))
            {
                return new FrameFailure(FrameFailureReason.RvaBadModule, position, moduleText);
            }

            moduleName = _modules.Get(moduleText);
        }

        if (
            !string.IsNullOrEmpty(pdb) && (pdb.AsSpan().IndexOfAny('/', '\\') >= 0 || !ModuleName.TryCreate(pdb, out _))
        )
        {
            return new FrameFailure(FrameFailureReason.RvaBadPdb, position, pdb);
        }

        string? pdbName = string.IsNullOrEmpty(pdb) ? null : pdb;
        if (rvaValue is ulong r)
        {
            string? key = moduleName?.Key ?? (pdbName is null ? null : ModuleName.FromPdbName(pdbName).Key);
            if (key is not null && identity is PdbIdentity ident && addressValue is ulong addr && addr >= r)
            {
                _bases[key] = new RvaBase(addr - r, pdbName, ident);
            }

            return new RvaFrame(moduleName, pdbName, identity, r, addressValue, false, raw, number);
        }

        ulong va = addressValue!.Value;
        if (
            moduleName is not null
            && identity is null
            && _bases.TryGetValue(moduleName.Key, out RvaBase b)
            && va >= b.Base
        )
        {
            return new RvaFrame(moduleName, b.PdbName, b.Identity, va - b.Base, va, true, raw, number);
        }

        return new RvaFrame(moduleName, pdbName, identity, null, va, moduleName is not null, raw, number);
    }

    private static bool TryParseHexValue(string text, out ulong value) =>
        ScanText.TryParseHexNumber(text, out value, out _);

    /// <summary>The value without any white space (a GUID split across lines).</summary>
    private static string Compact(string value)
    {
        ReadOnlySpan<char> v = value.AsSpan();
        if (v.IndexOfAny(" \t\r\n") < 0)
        {
            return value;
        }

        Span<char> buf = v.Length <= 256 ? stackalloc char[v.Length] : new char[v.Length];
        int n = 0;
        foreach (char c in v)
        {
            if (!char.IsWhiteSpace(c))
            {
                buf[n++] = c;
            }
        }

        return new string(buf[..n]);
    }

    private static bool IsFrameLabel(ReadOnlySpan<char> gap)
    {
        // "Frame =" / "Frame=" prefixes of pasted callstack_rva text.
        if (!gap.StartsWith("Frame", StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        ReadOnlySpan<char> rest = gap[5..].Trim();
        return rest.Length == 1 && rest[0] == '=';
    }

    /// <summary>Reads the attributes of the element starting at <paramref name="k"/> ("&lt;frame") into the attribute
    /// list; returns the index after it.</summary>
    private int ScanElement(string s, int k, out FrameFailure? error)
    {
        _attributes.Clear();
        error = null;
        int j = k + ElementStart.Length;
        if (j < s.Length && !(char.IsWhiteSpace(s[j]) || s[j] is '/' or '>'))
        {
            error = new FrameFailure(FrameFailureReason.RvaNotAFrameElement, j);
            return NextElementStart(s, j);
        }

        while (true)
        {
            while (j < s.Length && char.IsWhiteSpace(s[j]))
            {
                j++;
            }

            if (j >= s.Length)
            {
                error = new FrameFailure(FrameFailureReason.RvaTruncatedNoClose, j);
                return j;
            }

            char c = s[j];
            if (c == '/' && j + 1 < s.Length && s[j + 1] == '>')
            {
                return j + 2;
            }

            if (c == '>')
            {
                j++;
                int close = j;
                while (close < s.Length && char.IsWhiteSpace(s[close]))
                {
                    close++;
                }

                return s.AsSpan(close).StartsWith("</frame>", StringComparison.Ordinal) ? close + "</frame>".Length : j;
            }

            if (c == '<')
            {
                error = new FrameFailure(FrameFailureReason.RvaTruncatedByElement, j);
                return j;
            }

            int nameStart = j;
            while (j < s.Length && (char.IsAsciiLetterOrDigit(s[j]) || s[j] is '_' or '-' or ':' or '.'))
            {
                j++;
            }

            if (j == nameStart)
            {
                error = new FrameFailure(
                    FrameFailureReason.RvaAttributeNameExpected,
                    j,
                    s.Substring(j, Math.Min(20, s.Length - j))
                );
                return NextElementStart(s, j);
            }

            string name = s[nameStart..j];
            while (j < s.Length && char.IsWhiteSpace(s[j]))
            {
                j++;
            }

            if (j >= s.Length || s[j] != '=')
            {
                error =
                    j >= s.Length
                        ? new FrameFailure(FrameFailureReason.RvaTruncated, j)
                        : new FrameFailure(FrameFailureReason.RvaEqualsExpected, j, name);
                return NextElementStart(s, j);
            }

            j++;
            while (j < s.Length && char.IsWhiteSpace(s[j]))
            {
                j++;
            }

            if (j >= s.Length || s[j] is not ('"' or '\''))
            {
                error =
                    j >= s.Length
                        ? new FrameFailure(FrameFailureReason.RvaTruncated, j)
                        : new FrameFailure(FrameFailureReason.RvaQuotedValueExpected, j, name);
                return NextElementStart(s, j);
            }

            char quote = s[j];
            int valueStart = j + 1;
            int valueEnd = s.IndexOf(quote, valueStart);
            int nextTag = s.IndexOf('<', valueStart);
            if (valueEnd < 0 || (nextTag >= 0 && nextTag < valueEnd))
            {
                error = new FrameFailure(FrameFailureReason.RvaUnterminatedValue, j);
                return nextTag >= 0 ? nextTag : s.Length;
            }

            if (_attributes.Count >= MaxAttributes)
            {
                error = new FrameFailure(FrameFailureReason.RvaTooManyAttributes, nameStart);
                return NextElementStart(s, valueEnd + 1);
            }

            _attributes.Add(new(name, s[valueStart..valueEnd]));
            j = valueEnd + 1;
        }
    }

    private static int NextElementStart(string s, int from)
    {
        int n = from < s.Length ? s.IndexOf(ElementStart, from, StringComparison.Ordinal) : -1;
        return n < 0 ? s.Length : n;
    }
}
