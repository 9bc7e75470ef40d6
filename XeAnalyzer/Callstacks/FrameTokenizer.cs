using System.Buffers;
using System.Globalization;
using System.Net;
using XeAnalyzer.Symbols;

namespace XeAnalyzer.Callstacks;

/// <summary>The outcome of parsing one logical line.</summary>
internal readonly record struct LineParse(int FrameCount, List<UnparsedToken>? Unparsed, string? Diagnostic);

/// <summary>
/// Span-based frame tokeniser (no regular expressions): turns one logical line into frames. Not thread-safe: it caches module
/// names and remembers <c>callstack_rva</c> module bases for abbreviated frames, so use one per input.
/// </summary>
internal sealed class FrameTokenizer
{
    private const int MaxCachedModules = 4096;
    private const int MaxRvaAttributes = 32;

    // Lines without any of these characters are a single token: the fast path.
    private static readonly SearchValues<char> s_slowChars = SearchValues.Create(" \t<&(");
    private static readonly SearchValues<char> s_operatorChars = SearchValues.Create("+-*/%^&|~!=<>[]");

    private readonly OffsetRadix _radix;
    private readonly bool _lenient;
    private readonly int _maxFrames;
    private readonly Dictionary<string, ModuleName> _modules = new(StringComparer.Ordinal);
    private readonly Dictionary<string, ModuleName>.AlternateLookup<ReadOnlySpan<char>> _moduleLookup;
    private const int RecentSize = 64;

    private readonly ModuleName?[] _recent = new ModuleName?[RecentSize];
    private readonly Dictionary<string, RvaBase> _rvaBases = new(StringComparer.Ordinal);
    private readonly List<Range> _pieces = [];
    private readonly List<Range> _merged = [];
    private readonly List<KeyValuePair<string, string>> _attributes = [];

    public FrameTokenizer(OffsetRadix symbolizedRadix, bool framesOnSingleLine, int maxFramesPerLine)
    {
        _radix = symbolizedRadix;
        _lenient = framesOnSingleLine;
        _maxFrames = maxFramesPerLine;
        _moduleLookup = _modules.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    private readonly record struct RvaBase(ulong Base, string? PdbName, PdbIdentity Identity);

    private FrameProvenance SymbolProvenance => _radix == OffsetRadix.Decimal ? FrameProvenance.ResolvedOutput : FrameProvenance.SymbolizedCapture;

    /// <summary>True when the text holds the start of a <c>callstack_rva</c> frame (plain or HTML-escaped).</summary>
    public static bool HasRvaFrame(string text) =>
        text.Contains("<frame", StringComparison.Ordinal) || text.Contains("&lt;frame", StringComparison.Ordinal);

    /// <summary>True when the last <c>&lt;frame</c> of the text has no closing '&gt;' yet (a frame split across lines).</summary>
    public static bool EndsInsideRvaFrame(string text)
    {
        int a = text.LastIndexOf("<frame", StringComparison.Ordinal);
        int b = text.LastIndexOf("&lt;frame", StringComparison.Ordinal);
        int k = Math.Max(a, b);
        if (k < 0)
        {
            return false;
        }

        ReadOnlySpan<char> rest = text.AsSpan(k + 1);
        return rest.IndexOf('>') < 0 && rest.IndexOf("&gt;", StringComparison.Ordinal) < 0;
    }

    public ModuleName GetModule(ReadOnlySpan<char> name)
    {
        // A small direct-mapped cache in front of the dictionary: stacks repeat a handful of modules.
        int slot = name.IsEmpty ? 0 : ((name.Length * 31) + (name[0] * 7) + name[^1]) & (RecentSize - 1);
        ModuleName? recent = _recent[slot];
        if (recent is not null && name.SequenceEqual(recent.Name))
        {
            return recent;
        }

        if (!_moduleLookup.TryGetValue(name, out ModuleName? m))
        {
            string s = name.ToString();
            m = ModuleName.Create(s);
            if (_modules.Count < MaxCachedModules)
            {
                _modules[s] = m;
            }
        }

        if (m.Name.Length == name.Length)
        {
            _recent[slot] = m;
        }

        return m;
    }

    /// <summary>The common shape "module+hex" (no blanks, no '!'), parsed in one pass; null when the token is anything else.</summary>
    private ModuleOffsetFrame? TryFastModuleOffset(string line, int off, int len)
    {
        ReadOnlySpan<char> t = line.AsSpan(off, len);
        int plus = t.LastIndexOf('+');
        if (plus <= 0 || plus == t.Length - 1)
        {
            return null;
        }

        ReadOnlySpan<char> mod = t[..plus];
        if (mod[0] == '.' || mod[^1] == '.' || (mod.Length > 1 && mod[0] == '0' && (mod[1] | 0x20) == 'x'))
        {
            return null;
        }

        foreach (char c in mod)
        {
            if (!(char.IsAsciiLetterOrDigit(c) || c is '_' or '.' or '-' or '$'))
            {
                return null;
            }
        }

        ReadOnlySpan<char> d = t[(plus + 1)..];
        if (d.Length > 2 && d[0] == '0' && (d[1] | 0x20) == 'x')
        {
            d = d[2..];
        }

        int i = 0;
        while (i < d.Length - 1 && d[i] == '0')
        {
            i++;
        }

        if (d.Length - i > 16)
        {
            return null;
        }

        ulong v = 0;
        for (; i < d.Length; i++)
        {
            int c = d[i];
            int digit = c - '0';
            if (unchecked((uint)digit) > 9)
            {
                digit = (c | 0x20) - 'a';
                if (unchecked((uint)digit) > 5)
                {
                    return null;
                }

                digit += 10;
            }

            v = unchecked((v << 4) | (uint)digit);
        }

        return new ModuleOffsetFrame(GetModule(mod), v, Raw(line, off, len));
    }

    /// <summary>Parses one logical line, appending its frames to <paramref name="output"/>.</summary>
    public LineParse ParseLine(string line, List<StackFrame> output)
    {
        ReadOnlySpan<char> all = line.AsSpan();
        int lead = 0;
        while (lead < all.Length && IsSpace(all[lead]))
        {
            lead++;
        }

        int end = all.Length;
        while (end > lead && IsSpace(all[end - 1]))
        {
            end--;
        }

        if (end == lead)
        {
            return default;
        }

        ReadOnlySpan<char> s = all[lead..end];
        if (s.IndexOfAny(s_slowChars) < 0)
        {
            string? why = null;
            StackFrame? f = TryFastModuleOffset(line, lead, end - lead);
            f ??= ParseToken(line, lead, end - lead, null, null, out why);
            if (f is not null)
            {
                output.Add(f);
                return new LineParse(1, null, null);
            }

            return new LineParse(0, null, RealFailure(why));
        }

        if (HasRvaFrame(line))
        {
            return ParseRvaLine(line, output);
        }

        if (s.Contains("Module(", StringComparison.Ordinal))
        {
            LineParse dumper = ParseSqlDumper(line, lead, end, output);
            if (dumper.FrameCount > 0 || dumper.Diagnostic is not null)
            {
                return dumper;
            }
        }

        return ParsePieces(line, lead, end, output);
    }

    /// <summary>Parses one token (no frame number); null with a reason when it is not a frame.</summary>
    public StackFrame? ParseSingleToken(string token, out string? failure)
    {
        ReadOnlySpan<char> t = token.AsSpan();
        int lead = t.Length - t.TrimStart().Length;
        int len = t.Trim().Length;
        if (len == 0)
        {
            failure = "empty";
            return null;
        }

        return ParseToken(token, lead, len, null, null, out failure);
    }

    /// <summary>Builds a <c>callstack_rva</c> frame from attributes (of a raw XML child element or parsed text).</summary>
    public StackFrame? BuildRvaFrame(IReadOnlyList<KeyValuePair<string, string>> attributes, string raw, out string? failure)
    {
        failure = null;
        string? id = null, pdb = null, age = null, guid = null, module = null, name = null, rva = null, address = null;
        foreach (KeyValuePair<string, string> a in attributes)
        {
            switch (a.Key.ToLowerInvariant())
            {
                case "id": id = Compact(a.Value); break;
                case "pdb": pdb = a.Value.Trim(); break;
                case "age": age = Compact(a.Value); break;
                case "guid": guid = Compact(a.Value); break;
                case "module": module = a.Value.Trim(); break;
                case "name": name = a.Value.Trim(); break;
                case "rva": rva = Compact(a.Value); break;
                case "address": address = Compact(a.Value); break;
                default: break;
            }
        }

        int? number = null;
        if (id is not null)
        {
            if (!int.TryParse(id, NumberStyles.None, CultureInfo.InvariantCulture, out int n))
            {
                failure = $"frame id \"{id}\" is not a decimal number";
                return null;
            }

            number = n;
        }

        PdbIdentity? identity = null;
        if (guid is not null || age is not null)
        {
            if (guid is null || !Guid.TryParse(guid, out Guid g))
            {
                failure = guid is null ? "frame has an age but no guid" : $"frame guid \"{guid}\" is not a valid GUID";
                return null;
            }

            if (age is null || !int.TryParse(age, NumberStyles.None, CultureInfo.InvariantCulture, out int ageValue))
            {
                failure = age is null ? "frame has a guid but no age" : $"frame age \"{age}\" is not a decimal number";
                return null;
            }

            identity = new PdbIdentity(g, ageValue);
        }

        ulong? rvaValue = null;
        if (rva is not null)
        {
            if (!TryParseHexValue(rva, out ulong v))
            {
                failure = $"frame rva \"{rva}\" is not a hex number";
                return null;
            }

            rvaValue = v;
        }

        ulong? addressValue = null;
        if (address is not null)
        {
            if (!TryParseHexValue(address, out ulong v))
            {
                failure = $"frame address \"{address}\" is not a hex number";
                return null;
            }

            addressValue = v;
        }

        if (rvaValue is null && addressValue is null)
        {
            failure = "frame has neither rva nor address";
            return null;
        }

        string? moduleText = !string.IsNullOrEmpty(module) ? module : !string.IsNullOrEmpty(name) ? name : null;
        ModuleName? moduleName = null;
        if (moduleText is not null)
        {
            if (moduleText.AsSpan().IndexOfAny('/', '\\') >= 0 || !ModuleName.TryCreate(moduleText, out moduleName))
            {
                failure = $"frame module \"{moduleText}\" is not a module file name";
                return null;
            }

            moduleName = GetModule(moduleText);
        }

        if (!string.IsNullOrEmpty(pdb) && (pdb.AsSpan().IndexOfAny('/', '\\') >= 0 || !ModuleName.TryCreate(pdb, out _)))
        {
            failure = $"frame pdb \"{pdb}\" is not a PDB file name";
            return null;
        }

        string? pdbName = string.IsNullOrEmpty(pdb) ? null : pdb;
        if (rvaValue is ulong r)
        {
            string? key = moduleName?.Key ?? (pdbName is null ? null : ModuleName.FromPdbName(pdbName).Key);
            if (key is not null && identity is PdbIdentity ident && addressValue is ulong addr && addr >= r)
            {
                _rvaBases[key] = new RvaBase(addr - r, pdbName, ident);
            }

            return new RvaFrame(moduleName, pdbName, identity, r, addressValue, false, raw, number);
        }

        ulong va = addressValue!.Value;
        if (moduleName is not null && identity is null && _rvaBases.TryGetValue(moduleName.Key, out RvaBase b) && va >= b.Base)
        {
            return new RvaFrame(moduleName, b.PdbName, b.Identity, va - b.Base, va, true, raw, number);
        }

        return new RvaFrame(moduleName, pdbName, identity, null, va, moduleName is not null, raw, number);
    }

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

    private LineParse ParseRvaLine(string text, List<StackFrame> output)
    {
        string work = text;
        if (text.Contains("&lt;frame", StringComparison.Ordinal))
        {
            work = WebUtility.HtmlDecode(text);
        }

        List<UnparsedToken>? unparsed = null;
        string? firstFailure = null;
        int frames = 0;
        int pieceIndex = 0;
        int i = 0;
        while (i < work.Length)
        {
            int k = work.IndexOf("<frame", i, StringComparison.Ordinal);
            int gapEnd = k < 0 ? work.Length : k;
            ReadOnlySpan<char> gap = work.AsSpan(i, gapEnd - i).Trim();
            if (!gap.IsEmpty && !IsFrameLabel(gap))
            {
                (unparsed ??= []).Add(new UnparsedToken(gap.ToString(), pieceIndex++, "not a frame"));
            }

            if (k < 0)
            {
                break;
            }

            int frameEnd = ScanRvaElement(work, k, out string? syntaxError);
            string raw = work[k..frameEnd].Trim();
            StackFrame? frame = null;
            string? failure = syntaxError;
            if (failure is null)
            {
                frame = BuildRvaFrame(_attributes, raw, out failure);
            }

            if (frame is not null && frames < _maxFrames)
            {
                output.Add(frame);
                frames++;
            }
            else
            {
                failure ??= "more frames on one line than TextInputLimits.MaxFramesPerLine";
                firstFailure ??= failure;
                (unparsed ??= []).Add(new UnparsedToken(raw, pieceIndex, failure));
            }

            pieceIndex++;
            i = frameEnd;
        }

        return new LineParse(frames, unparsed, frames == 0 ? firstFailure : null);
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

    /// <summary>Reads the attributes of the element starting at <paramref name="k"/> ("&lt;frame"); returns the index after it.</summary>
    private int ScanRvaElement(string s, int k, out string? error)
    {
        _attributes.Clear();
        error = null;
        int j = k + "<frame".Length;
        if (j < s.Length && !(char.IsWhiteSpace(s[j]) || s[j] is '/' or '>'))
        {
            error = "not a <frame> element";
            return NextFrameStart(s, j);
        }

        while (true)
        {
            while (j < s.Length && char.IsWhiteSpace(s[j]))
            {
                j++;
            }

            if (j >= s.Length)
            {
                error = "truncated <frame> element (no closing '/>')";
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
                error = "truncated <frame> element (another element starts before '/>')";
                return j;
            }

            int nameStart = j;
            while (j < s.Length && (char.IsAsciiLetterOrDigit(s[j]) || s[j] is '_' or '-' or ':' or '.'))
            {
                j++;
            }

            if (j == nameStart)
            {
                error = $"attribute name expected in <frame> at \"{Snippet(s, j)}\"";
                return NextFrameStart(s, j);
            }

            string name = s[nameStart..j];
            while (j < s.Length && char.IsWhiteSpace(s[j]))
            {
                j++;
            }

            if (j >= s.Length || s[j] != '=')
            {
                error = j >= s.Length ? "truncated <frame> element" : $"'=' expected after attribute {name} in <frame>";
                return NextFrameStart(s, j);
            }

            j++;
            while (j < s.Length && char.IsWhiteSpace(s[j]))
            {
                j++;
            }

            if (j >= s.Length || s[j] is not ('"' or '\''))
            {
                error = j >= s.Length ? "truncated <frame> element" : $"quoted value expected for attribute {name} in <frame>";
                return NextFrameStart(s, j);
            }

            char quote = s[j];
            int valueStart = j + 1;
            int valueEnd = s.IndexOf(quote, valueStart);
            int nextTag = s.IndexOf('<', valueStart);
            if (valueEnd < 0 || (nextTag >= 0 && nextTag < valueEnd))
            {
                error = "truncated <frame> element (unterminated attribute value)";
                return nextTag >= 0 ? nextTag : s.Length;
            }

            if (_attributes.Count >= MaxRvaAttributes)
            {
                error = "too many attributes in <frame>";
                return NextFrameStart(s, valueEnd + 1);
            }

            _attributes.Add(new(name, s[valueStart..valueEnd]));
            j = valueEnd + 1;
        }
    }

    private static int NextFrameStart(string s, int from)
    {
        int n = from < s.Length ? s.IndexOf("<frame", from, StringComparison.Ordinal) : -1;
        return n < 0 ? s.Length : n;
    }

    private static string Snippet(string s, int at) => s.Substring(at, Math.Min(20, s.Length - at));

    private LineParse ParseSqlDumper(string line, int lead, int end, List<StackFrame> output)
    {
        int frames = 0;
        string? failure = null;
        int i = lead;
        while (i < end)
        {
            int k = line.AsSpan(i, end - i).IndexOf("Module(", StringComparison.Ordinal);
            if (k < 0)
            {
                break;
            }

            int open = i + k + "Module(".Length;
            int close = line.AsSpan(open, end - open).IndexOf(')');
            if (close < 0)
            {
                failure ??= "truncated Module(…) frame";
                break;
            }

            close += open;
            ReadOnlySpan<char> inner = line.AsSpan(open, close - open);
            int plus = inner.LastIndexOf('+');
            bool overflow = false;
            ulong offset = 0;
            if (plus > 0 && IsModuleName(inner[..plus].Trim()) && TryParseHexOffset(inner[(plus + 1)..].Trim(), out offset, out overflow) && frames < _maxFrames)
            {
                string raw = line.Substring(i + k, close + 1 - (i + k));
                output.Add(new ModuleOffsetFrame(GetModule(inner[..plus].Trim()), offset, raw, FrameProvenance.SqlDumper));
                frames++;
            }
            else
            {
                failure ??= overflow ? "offset in Module(…) does not fit in 64 bits" : "Module(…) does not hold module+hex offset";
            }

            i = close + 1;
        }

        return new LineParse(frames, null, frames == 0 ? failure : null);
    }

    private LineParse ParsePieces(string line, int lead, int end, List<StackFrame> output)
    {
        SplitPieces(line, lead, end);
        List<Range> pieces = _merged;
        if (pieces.Count == 0)
        {
            return default;
        }

        int first = 0;
        int? number = null;
        if (pieces.Count >= 2 && IsFrameNumber(line.AsSpan()[pieces[0]], out int n))
        {
            number = n;
            first = 1;
        }

        // WinDbg "k": [nn] <child-sp> <retaddr> [: args :] <call site>
        if (pieces.Count - first >= 3 && IsWinDbgAddress(line.AsSpan()[pieces[first]]) && IsWinDbgAddress(line.AsSpan()[pieces[first + 1]]))
        {
            int site = first + 2;
            if (line.AsSpan()[pieces[site]].SequenceEqual(":"))
            {
                site++;
                while (site < pieces.Count && !line.AsSpan()[pieces[site]].SequenceEqual(":"))
                {
                    site++;
                }

                site++;
            }

            if (site < pieces.Count)
            {
                int start = pieces[site].Start.Value;
                int stop = pieces[^1].End.Value;
                StackFrame? f = ParseToken(line, start, stop - start, number, FrameProvenance.WinDbg, out _);
                if (f is not null)
                {
                    output.Add(f);
                    return new LineParse(1, null, null);
                }
            }
        }

        int before = output.Count;
        List<UnparsedToken>? unparsed = null;
        string? firstFailure = null;
        int failures = 0;
        int failedIndex = -1;
        for (int p = first; p < pieces.Count; p++)
        {
            Range r = pieces[p];
            (int off, int len) = r.GetOffsetAndLength(line.Length);
            string? why = null;
            StackFrame? f = output.Count - before < _maxFrames
                ? ParseToken(line, off, len, p == first ? number : null, null, out why)
                : null;
            if (f is not null)
            {
                output.Add(f);
            }
            else
            {
                why ??= "more frames on one line than TextInputLimits.MaxFramesPerLine";
                failures++;
                if (failedIndex < 0)
                {
                    failedIndex = p;
                }

                firstFailure ??= why;
                (unparsed ??= []).Add(new UnparsedToken(line.Substring(off, len), p, why.TrimStart('!')));
            }
        }

        int frames = output.Count - before;
        if (failures == 0 && frames > 0)
        {
            return new LineParse(frames, null, null);
        }

        bool labelled = failures == 1 && failedIndex == first && frames > 0 && first == 0 && FollowedByTab(line, pieces[0]);
        if (frames > 0 && (labelled || _lenient))
        {
            return new LineParse(frames, unparsed, null);
        }

        // Not a frame line: undo.
        output.RemoveRange(before, frames);
        return new LineParse(0, null, frames > 0 ? null : RealFailure(firstFailure));
    }

    private static string? RealFailure(string? why) => why is not null && why.StartsWith('!') ? why[1..] : null;

    private static bool FollowedByTab(string line, Range piece)
    {
        int i = piece.End.Value;
        while (i < line.Length && IsSpace(line[i]))
        {
            if (line[i] == '\t')
            {
                return true;
            }

            i++;
        }

        return false;
    }

    /// <summary>
    /// Splits at whitespace outside template brackets, parentheses and backtick quotes (TAB always splits), drops the
    /// 2008 R2 junk "[ @ 0+0x0", and re-joins "mod + off" and "operator new".
    /// </summary>
    private void SplitPieces(string line, int lead, int end)
    {
        _pieces.Clear();
        _merged.Clear();
        ReadOnlySpan<char> s = line.AsSpan();
        int angle = 0, paren = 0;
        bool quote = false;
        int start = -1;
        for (int i = lead; i < end; i++)
        {
            char c = s[i];
            if (IsSpace(c))
            {
                if (start >= 0 && (c == '\t' || (angle == 0 && paren == 0 && !quote)))
                {
                    _pieces.Add(new Range(start, i));
                    start = -1;
                    angle = paren = 0;
                    quote = false;
                }

                continue;
            }

            if (start < 0)
            {
                start = i;
            }

            if (c == '`' && (i == start || s[i - 1] is ':' or '<' or ',' or ' '))
            {
                quote = true;
            }
            else if (c == '\'' && quote)
            {
                quote = false;
            }
            else if (!quote)
            {
                if (c == '<')
                {
                    if (!IsOperatorSymbol(s[start..], i - start))
                    {
                        angle++;
                    }
                }
                else if (c == '>')
                {
                    if (angle > 0 && !IsOperatorSymbol(s[start..], i - start))
                    {
                        angle--;
                    }
                }
                else if (c == '(')
                {
                    paren++;
                }
                else if (c == ')' && paren > 0)
                {
                    paren--;
                }
            }
        }

        if (start >= 0)
        {
            _pieces.Add(new Range(start, end));
        }

        for (int p = 0; p < _pieces.Count; p++)
        {
            ReadOnlySpan<char> t = s[_pieces[p]];

            // 2008 R2 TF 3656 junk: "[ @ 0+0x0"
            if (t.SequenceEqual("[") && p + 2 < _pieces.Count && s[_pieces[p + 1]].SequenceEqual("@") && IsJunkAddress(s[_pieces[p + 2]]))
            {
                p += 2;
                continue;
            }

            if (_merged.Count > 0)
            {
                Range prev = _merged[^1];
                ReadOnlySpan<char> pt = s[prev];
                if (t[0] == '+' || pt[^1] == '+' || EndsWithOperatorKeyword(pt))
                {
                    _merged[^1] = new Range(prev.Start, _pieces[p].End);
                    continue;
                }
            }

            _merged.Add(_pieces[p]);
        }
    }

    private static bool EndsWithOperatorKeyword(ReadOnlySpan<char> t) =>
        t.EndsWith("operator", StringComparison.Ordinal) && (t.Length == 8 || t[^9] == ':');

    private static bool IsJunkAddress(ReadOnlySpan<char> t)
    {
        int plus = t.IndexOf('+');
        return plus > 0 && IsAllHex(t[..plus]) && t[(plus + 1)..].StartsWith("0x", StringComparison.OrdinalIgnoreCase) && IsAllHex(t[(plus + 3)..]);
    }

    private static bool IsFrameNumber(ReadOnlySpan<char> t, out int n)
    {
        n = 0;
        return t.Length is >= 2 and <= 4 && IsAllHex(t) &&
               int.TryParse(t, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out n);
    }

    private static bool IsWinDbgAddress(ReadOnlySpan<char> t)
    {
        if (t.Length == 17 && t[8] == '`')
        {
            return IsAllHex(t[..8]) && IsAllHex(t[9..]);
        }

        return t.Length is 8 or 16 && IsAllHex(t);
    }

    /// <summary>
    /// Parses one token. A failure reason starting with '!' marks a token that looked like a frame but was malformed
    /// (reported as a line diagnostic); other reasons are plain "not a frame".
    /// </summary>
    private StackFrame? ParseToken(string line, int off, int len, int? number, FrameProvenance? provenance, out string? failure)
    {
        failure = null;
        ReadOnlySpan<char> t = line.AsSpan(off, len);

        // 0xVA
        if (t.Length > 2 && t[0] == '0' && (t[1] | 0x20) == 'x')
        {
            if (TryParseHexDigits(t[2..], out ulong va, out bool overflow))
            {
                return new VirtualAddressFrame(va, Raw(line, off, len), provenance ?? FrameProvenance.AddressText, number);
            }

            failure = overflow ? "!address does not fit in 64 bits" : "not a frame";
            return null;
        }

        // 16 hex digits, or WinDbg 8`8
        if ((t.Length == 16 && IsAllHex(t)) || (t.Length == 17 && t[8] == '`' && IsAllHex(t[..8]) && IsAllHex(t[9..])))
        {
            ulong hi = t.Length == 17 ? ulong.Parse(t[..8], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture) : 0;
            ulong lo = ulong.Parse(t.Length == 17 ? t[9..] : t, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
            ulong va = t.Length == 17 ? unchecked((hi << 32) | lo) : lo;
            return new VirtualAddressFrame(va, Raw(line, off, len), provenance ?? FrameProvenance.AddressText, number);
        }

        int bang = t.IndexOf('!');
        if (bang > 0)
        {
            ReadOnlySpan<char> mod = t[..bang].TrimEnd();
            if (!IsModuleName(mod))
            {
                failure = "not a frame";
                return null;
            }

            ReadOnlySpan<char> rest = t[(bang + 1)..].TrimStart();
            SplitDisplacement(rest, out ReadOnlySpan<char> name, out ReadOnlySpan<char> digits, out bool has0x);
            if (name.IsEmpty || !IsValidSymbolName(name))
            {
                failure = "not a frame";
                return null;
            }

            if (IsOrdinalName(name, out int ordinal))
            {
                ulong ordOffset = 0;
                if (!digits.IsEmpty && !TryParseHexDigits(digits, out ordOffset, out bool ordOverflow))
                {
                    failure = ordOverflow ? "!ordinal offset does not fit in 64 bits" : "not a frame";
                    return null;
                }

                return new OrdinalFrame(GetModule(mod), ordinal, ordOffset, Raw(line, off, len), provenance ?? SymbolProvenance, number);
            }

            if (!TryDisplacement(digits, has0x, provenance, out ulong? disp, out failure))
            {
                return null;
            }

            return new SymbolizedFrame(GetModule(mod), name.ToString(), disp, Raw(line, off, len), provenance ?? SymbolProvenance, number);
        }

        if (bang == 0)
        {
            failure = "not a frame";
            return null;
        }

        // module+offset, or a module-less symbol
        SplitDisplacement(t, out ReadOnlySpan<char> left, out ReadOnlySpan<char> offDigits, out bool off0x);
        if (!offDigits.IsEmpty && IsModuleName(left))
        {
            if (TryParseHexDigits(offDigits, out ulong offset, out bool overflow))
            {
                return new ModuleOffsetFrame(GetModule(left), offset, Raw(line, off, len), provenance ?? FrameProvenance.ModuleOffsetText, number);
            }

            failure = overflow ? "!offset does not fit in 64 bits" : "not a frame";
            return null;
        }

        if (!left.IsEmpty && left.Contains("::", StringComparison.Ordinal) && IsValidSymbolName(left))
        {
            if (!TryDisplacement(offDigits, off0x, provenance, out ulong? disp, out failure))
            {
                return null;
            }

            return new SymbolizedFrame(null, left.ToString(), disp, Raw(line, off, len), provenance ?? SymbolProvenance, number);
        }

        failure = "not a frame";
        return null;
    }

    private bool TryDisplacement(ReadOnlySpan<char> digits, bool has0x, FrameProvenance? provenance, out ulong? disp, out string? failure)
    {
        disp = null;
        failure = null;
        if (digits.IsEmpty)
        {
            return true;
        }

        bool hex = has0x || _radix == OffsetRadix.Hex || provenance == FrameProvenance.WinDbg;
        bool overflow = false;
        ulong v;
        if (hex)
        {
            if (!TryParseHexDigits(digits, out v, out overflow))
            {
                failure = overflow ? "!displacement does not fit in 64 bits" : "not a frame";
                return false;
            }
        }
        else
        {
            overflow = !ulong.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out v);
            if (overflow)
            {
                failure = IsAllDecimal(digits) ? "!displacement does not fit in 64 bits" : "not a frame";
                return false;
            }
        }

        disp = v;
        return true;
    }

    /// <summary>Splits "name+off" at the last '+' when a hex/decimal number (optionally 0x) follows it; otherwise the whole text is the name.</summary>
    private static void SplitDisplacement(ReadOnlySpan<char> t, out ReadOnlySpan<char> name, out ReadOnlySpan<char> digits, out bool has0x)
    {
        has0x = false;
        int plus = t.LastIndexOf('+');
        if (plus > 0)
        {
            ReadOnlySpan<char> after = t[(plus + 1)..].Trim();
            bool x = after.Length > 2 && after[0] == '0' && (after[1] | 0x20) == 'x';
            ReadOnlySpan<char> d = x ? after[2..] : after;
            if (!d.IsEmpty && IsAllHex(d))
            {
                name = t[..plus].TrimEnd();
                digits = d;
                has0x = x;
                return;
            }
        }

        name = t;
        digits = default;
    }

    private static bool IsOrdinalName(ReadOnlySpan<char> name, out int ordinal)
    {
        ordinal = 0;
        return name.Length > 7 && name.StartsWith("Ordinal", StringComparison.Ordinal) && IsAllDecimal(name[7..]) &&
               int.TryParse(name[7..], NumberStyles.None, CultureInfo.InvariantCulture, out ordinal);
    }

    internal static bool IsModuleName(ReadOnlySpan<char> s)
    {
        if (s.IsEmpty || s.Length > 255 || s[0] == '.' || s[^1] == '.')
        {
            return false;
        }

        foreach (char c in s)
        {
            if (!(char.IsAsciiLetterOrDigit(c) || c is '_' or '.' or '-' or '$'))
            {
                return false;
            }
        }

        return true;
    }

    private static bool IsValidSymbolName(ReadOnlySpan<char> name)
    {
        if (name.IsEmpty || name.Length > 64 * 1024 || char.IsWhiteSpace(name[0]) || char.IsWhiteSpace(name[^1]))
        {
            return false;
        }

        int i = name.IndexOfAny('!', '+', '\t');
        while (i >= 0)
        {
            if (name[i] == '\t' || !IsOperatorSymbol(name, i))
            {
                return false;
            }

            int next = name[(i + 1)..].IndexOfAny('!', '+', '\t');
            i = next < 0 ? -1 : i + 1 + next;
        }

        return true;
    }

    /// <summary>True when the character at <paramref name="i"/> belongs to an operator name (<c>operator+</c>, <c>operator&lt;&lt;</c>, <c>operator!=</c>).</summary>
    private static bool IsOperatorSymbol(ReadOnlySpan<char> s, int i)
    {
        // Operator names have at most 3 symbol characters (operator<<=, operator->*): look back no further, so a line full of
        // '<' stays linear.
        int j = i;
        int limit = Math.Max(0, i - 3);
        while (j > limit && s_operatorChars.Contains(s[j - 1]))
        {
            j--;
        }

        return s[..j].EndsWith("operator", StringComparison.Ordinal);
    }

    private static bool TryParseHexValue(string text, out ulong value)
    {
        ReadOnlySpan<char> t = text.AsSpan();
        if (t.Length > 2 && t[0] == '0' && (t[1] | 0x20) == 'x')
        {
            t = t[2..];
        }

        return TryParseHexDigits(t, out value, out _);
    }

    private static bool TryParseHexOffset(ReadOnlySpan<char> t, out ulong value, out bool overflow)
    {
        if (t.Length > 2 && t[0] == '0' && (t[1] | 0x20) == 'x')
        {
            t = t[2..];
        }

        return TryParseHexDigits(t, out value, out overflow);
    }

    private static bool TryParseHexDigits(ReadOnlySpan<char> digits, out ulong value, out bool overflow)
    {
        value = 0;
        overflow = false;
        if (digits.IsEmpty || !IsAllHex(digits))
        {
            return false;
        }

        int i = 0;
        while (i < digits.Length - 1 && digits[i] == '0')
        {
            i++;
        }

        if (digits.Length - i > 16)
        {
            overflow = true;
            return false;
        }

        ulong v = 0;
        for (; i < digits.Length; i++)
        {
            char c = digits[i];
            int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
            v = unchecked((v << 4) | (uint)d);
        }

        value = v;
        return true;
    }

    private static bool IsAllHex(ReadOnlySpan<char> s) => !s.IsEmpty && !s.ContainsAnyExcept(HexChars);

    private static bool IsAllDecimal(ReadOnlySpan<char> s) => !s.IsEmpty && !s.ContainsAnyExceptInRange('0', '9');

    private static readonly SearchValues<char> HexChars = SearchValues.Create("0123456789abcdefABCDEF");

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private static bool IsSpace(char c) => c <= ' ' ? c is ' ' or '\t' or '\v' or '\f' : c == '\u00A0';

    private static string Raw(string line, int off, int len) => off == 0 && len == line.Length ? line : line.Substring(off, len);
}
