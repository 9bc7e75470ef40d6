using System.Globalization;
using System.Text;

namespace XeAnalyzer.Symbols.Undecoration;

/// <summary>
/// A recursive-descent parser of the MSVC C++ name decoration grammar producing DIA's name-only text.
/// One instance parses one name; failure is a flag (no exceptions), recursion depth and output size are capped.
/// </summary>
internal sealed class MsvcDemangler
{
    /// <summary>Deepest nesting of types, template arguments and nested symbols accepted.</summary>
    internal const int MaxDepth = 64;

    /// <summary>Longest rendered name (or type) accepted, in characters.</summary>
    internal const int MaxOutputLength = 16 * 1024;

    private const string AnonymousNamespace = "`anonymous namespace'";

    private readonly string _s;
    private int _pos;
    private int _depth;
    private bool _failed;

    // Back-reference tables: 10 names and 10 function parameter types; template argument lists get fresh ones.
    private string[] _names = new string[10];
    private int _nameCount;
    private UndecoratedType[] _params = new UndecoratedType[10];
    private int _paramCount;

    private MsvcDemangler(string s) => _s = s;

    /// <summary>Undecorates one name, or returns <see langword="null"/> when it cannot be undecorated.</summary>
    public static string? Demangle(string decorated)
    {
        if (decorated.Length == 0)
        {
            return null;
        }

        if (decorated[0] != '?')
        {
            return UndecorateCName(decorated);
        }

        var d = new MsvcDemangler(decorated);
        string? result = d.ParseTopLevelSymbol();
        return d._failed || result is null || result.Length > MaxOutputLength ? null : result;
    }

    /// <summary>
    /// Removes x86 C decorations the way DIA shows public C names: <c>_f@12</c> (stdcall), <c>@f@4</c>
    /// (fastcall), <c>f@@8</c> (vectorcall) and <c>_f</c> (cdecl) all become <c>f</c>. Other text is returned as is;
    /// a name holding <c>?</c> (not an identifier, e.g. <c>_CT??_R0PEAX@88</c>) is refused.
    /// </summary>
    internal static string? UndecorateCName(string name)
    {
        if (name.Contains('?', StringComparison.Ordinal))
        {
            // Not a C identifier (e.g. _CT??_R0PEAX@88, a catchable-type record): no decoration rule applies.
            return null;
        }

        int end = name.Length;
        int at = name.LastIndexOf('@');
        bool hasSize = false;
        if (at > 0 && at < name.Length - 1 && AllDigits(name, at + 1))
        {
            hasSize = true;
            end = at;
            if (end > 1 && name[end - 1] == '@')
            {
                // vectorcall: f@@8 (no prefix character)
                return end - 1 > 0 ? name[..(end - 1)] : null;
            }
        }

        int start = 0;
        if (name[0] == '@' && hasSize)
        {
            start = 1;
        }
        else if (name[0] == '_')
        {
            start = 1;
        }

        if (start >= end)
        {
            return name;
        }

        return name[start..end];
    }

    private static bool AllDigits(string s, int from)
    {
        for (int i = from; i < s.Length; i++)
        {
            if (!char.IsAsciiDigit(s[i]))
            {
                return false;
            }
        }

        return from < s.Length;
    }

    // ------------------------------------------------------------------ input helpers

    private bool AtEnd => _pos >= _s.Length;

    private char Peek => _pos < _s.Length ? _s[_pos] : '\0';

    private char PeekAt(int offset) => _pos + offset < _s.Length ? _s[_pos + offset] : '\0';

    private bool Consume(char c)
    {
        if (_pos < _s.Length && _s[_pos] == c)
        {
            _pos++;
            return true;
        }

        return false;
    }

    private bool Consume(string prefix)
    {
        if (string.CompareOrdinal(_s, _pos, prefix, 0, prefix.Length) == 0)
        {
            _pos += prefix.Length;
            return true;
        }

        return false;
    }

    private char Next()
    {
        if (_pos < _s.Length)
        {
            return _s[_pos++];
        }

        _failed = true;
        return '\0';
    }

    private string? Fail()
    {
        _failed = true;
        return null;
    }

    private bool Enter()
    {
        if (++_depth > MaxDepth)
        {
            _failed = true;
            return false;
        }

        return true;
    }

    private void Leave() => _depth--;

    // ------------------------------------------------------------------ symbols

    private string? ParseTopLevelSymbol()
    {
        // "??@<md5>@": a name too long for the decoration scheme, hashed; DIA has no undecoration for it.
        if (_s.StartsWith("??@", StringComparison.Ordinal))
        {
            return null;
        }

        // String literals: ??_C@_<kind><length><checksum>@<encoded bytes>@
        if (_s.StartsWith("??_C@_", StringComparison.Ordinal))
        {
            return "`string'";
        }

        _pos = 1;
        string? name = ParseSymbolName(topLevel: true);
        return _failed ? null : name;
    }

    /// <summary>
    /// Parses <c>name@scope@...@</c> plus the type encoding when the name needs it (conversion operators, RTTI
    /// type descriptors) or when <paramref name="topLevel"/> is false (a nested symbol must be consumed whole).
    /// The leading <c>?</c> has been consumed.
    /// </summary>
    private string? ParseSymbolName(bool topLevel)
    {
        if (!Enter())
        {
            return null;
        }

        try
        {
            SpecialName special = default;
            string? unqualified;
            if (Peek == '?' && PeekAt(1) != '$')
            {
                _pos++;
                unqualified = ParseOperatorName(ref special, templateName: false);
            }
            else
            {
                unqualified = ParseUnqualifiedName(memorize: true, ref special);
            }

            if (unqualified is null || _failed)
            {
                return Fail();
            }

            if (special.Kind == SpecialKind.RttiTypeDescriptor)
            {
                // ??_R0<type>@8: "<type> `RTTI Type Descriptor'"
                UndecoratedType? t = ParseType(TypeContext.Result);
                if (t is null || !Consume('@') || !Consume('8'))
                {
                    return Fail();
                }

                return t.Render() + " `RTTI Type Descriptor'";
            }

            List<string>? scopes = ParseScopeChain();
            if (scopes is null)
            {
                return Fail();
            }

            string last = unqualified;
            if (special.Kind is SpecialKind.Constructor or SpecialKind.Destructor)
            {
                if (scopes.Count == 0)
                {
                    return Fail();
                }

                string className = scopes[0];
                last =
                    (special.Kind == SpecialKind.Destructor ? "~" : string.Empty)
                    + className
                    + special.TemplateArguments;
            }

            string qualified = Qualify(scopes, last);
            if (special.Kind == SpecialKind.Conversion || !topLevel)
            {
                UndecoratedType? result = ParseEncoding(out bool isFunction);
                if (_failed)
                {
                    return null;
                }

                if (special.Kind == SpecialKind.Conversion)
                {
                    if (!isFunction || result is null)
                    {
                        return Fail();
                    }

                    // operator bool, operator<void > void (__cdecl*)(void): the target type is the return type.
                    if (result is not FunctionType { ReturnType: { } target })
                    {
                        return Fail();
                    }

                    qualified = qualified + " " + target.Render();
                }
            }

            return qualified.Length > MaxOutputLength ? Fail() : qualified;
        }
        finally
        {
            Leave();
        }
    }

    private static string Qualify(List<string> scopes, string last)
    {
        if (scopes.Count == 0)
        {
            return last;
        }

        var sb = new StringBuilder();
        for (int i = scopes.Count - 1; i >= 0; i--)
        {
            sb.Append(scopes[i]).Append("::");
        }

        return sb.Append(last).ToString();
    }

    private enum SpecialKind
    {
        None,
        Constructor,
        Destructor,
        Conversion,
        RttiTypeDescriptor,
    }

    private struct SpecialName
    {
        public SpecialKind Kind;
        public string TemplateArguments;
    }

    /// <summary>Parses the operator or special name after <c>?</c> (the code letters <c>0</c>...<c>_R4</c>).</summary>
    private string? ParseOperatorName(ref SpecialName special, bool templateName)
    {
        char c = Next();
        switch (c)
        {
            case '0':
                special.Kind = SpecialKind.Constructor;
                return string.Empty;
            case '1':
                special.Kind = SpecialKind.Destructor;
                return string.Empty;
            case '2':
                return "operator new";
            case '3':
                return "operator delete";
            case '4':
                return "operator=";
            case '5':
                return "operator>>";
            case '6':
                return "operator<<";
            case '7':
                return "operator!";
            case '8':
                return "operator==";
            case '9':
                return "operator!=";
            case 'A':
                return "operator[]";
            case 'B':
                special.Kind = SpecialKind.Conversion;
                return "operator";
            case 'C':
                return "operator->";
            case 'D':
                return "operator*";
            case 'E':
                return "operator++";
            case 'F':
                return "operator--";
            case 'G':
                return "operator-";
            case 'H':
                return "operator+";
            case 'I':
                return "operator&";
            case 'J':
                return "operator->*";
            case 'K':
                return "operator/";
            case 'L':
                return "operator%";
            case 'M':
                return "operator<";
            case 'N':
                return "operator<=";
            case 'O':
                return "operator>";
            case 'P':
                return "operator>=";
            case 'Q':
                return "operator,";
            case 'R':
                return "operator()";
            case 'S':
                return "operator~";
            case 'T':
                return "operator^";
            case 'U':
                return "operator|";
            case 'V':
                return "operator&&";
            case 'W':
                return "operator||";
            case 'X':
                return "operator*=";
            case 'Y':
                return "operator+=";
            case 'Z':
                return "operator-=";
            case '_':
                return ParseUnderscoreOperator(ref special, templateName);
            default:
                return Fail();
        }
    }

    private string? ParseUnderscoreOperator(ref SpecialName special, bool templateName)
    {
        char c = Next();
        switch (c)
        {
            case '0':
                return "operator/=";
            case '1':
                return "operator%=";
            case '2':
                return "operator>>=";
            case '3':
                return "operator<<=";
            case '4':
                return "operator&=";
            case '5':
                return "operator|=";
            case '6':
                return "operator^=";
            case '7':
                return "`vftable'";
            case '8':
                return "`vbtable'";
            case '9':
                return "`vcall'";
            case 'A':
                return "`typeof'";
            case 'B':
                return "`local static guard'";
            case 'C':
                return "`string'";
            case 'D':
                return "`vbase destructor'";
            case 'E':
                return "`vector deleting destructor'";
            case 'F':
                return "`default constructor closure'";
            case 'G':
                return "`scalar deleting destructor'";
            case 'H':
                return "`vector constructor iterator'";
            case 'I':
                return "`vector destructor iterator'";
            case 'J':
                return "`vector vbase constructor iterator'";
            case 'K':
                return "`virtual displacement map'";
            case 'L':
                return "`eh vector constructor iterator'";
            case 'M':
                return "`eh vector destructor iterator'";
            case 'N':
                return "`eh vector vbase constructor iterator'";
            case 'O':
                return "`copy constructor closure'";
            case 'R':
                return templateName ? Fail() : ParseRttiName(ref special);
            case 'S':
                return "`local vftable'";
            case 'T':
                return "`local vftable constructor closure'";
            case 'U':
                return "operator new[]";
            case 'V':
                return "operator delete[]";
            case 'X':
                return "`placement delete closure'";
            case 'Y':
                return "`placement delete[] closure'";
            case '_':
                return ParseDoubleUnderscoreOperator();
            default:
                return Fail();
        }
    }

    private string? ParseDoubleUnderscoreOperator()
    {
        char c = Next();
        switch (c)
        {
            case 'A':
                return "`managed vector constructor iterator'";
            case 'B':
                return "`managed vector destructor iterator'";
            case 'C':
                return "`eh vector copy constructor iterator'";
            case 'D':
                return "`eh vector vbase copy constructor iterator'";
            case 'E':
                return ParseInitializerName("`dynamic initializer for '");
            case 'F':
                return ParseInitializerName("`dynamic atexit destructor for '");
            case 'G':
                return "`vector copy constructor iterator'";
            case 'H':
                return "`vector vbase copy constructor iterator'";
            case 'I':
                return "`managed vector copy constructor iterator'";
            case 'J':
                return "`local static thread guard'";
            case 'K':
            {
                // operator "" _suffix
                string? suffix = ParseSimpleName(memorize: false);
                return suffix is null ? null : "operator \"\" " + suffix;
            }

            case 'L':
                return "operator co_await";
            case 'M':
                return "operator<=>";
            default:
                return Fail();
        }
    }

    /// <summary><c>??__E</c>/<c>??__F</c>: a simple name or a nested decorated symbol (then <c>@</c>),
    /// quoted.</summary>
    private string? ParseInitializerName(string prefix)
    {
        string? inner;
        if (Peek == '?')
        {
            _pos++;
            inner = ParseSymbolName(topLevel: false);
            if (inner is null || !Consume('@'))
            {
                return Fail();
            }
        }
        else
        {
            inner = ParseSimpleName(memorize: true);
        }

        return inner is null ? null : prefix + inner + "''";
    }

    private string? ParseRttiName(ref SpecialName special)
    {
        char c = Next();
        switch (c)
        {
            case '0':
                special.Kind = SpecialKind.RttiTypeDescriptor;
                return "`RTTI Type Descriptor'";
            case '1':
            {
                var sb = new StringBuilder("`RTTI Base Class Descriptor at (");
                for (int i = 0; i < 4; i++)
                {
                    if (!TryParseNumber(out long n))
                    {
                        return Fail();
                    }

                    if (i > 0)
                    {
                        sb.Append(',');
                    }

                    sb.Append(n.ToString(CultureInfo.InvariantCulture));
                }

                return sb.Append(")'").ToString();
            }

            case '2':
                return "`RTTI Base Class Array'";
            case '3':
                return "`RTTI Class Hierarchy Descriptor'";
            case '4':
                return "`RTTI Complete Object Locator'";
            default:
                return Fail();
        }
    }

    /// <summary>The first fragment of a symbol name: simple name, back-reference or template instantiation.</summary>
    private string? ParseUnqualifiedName(bool memorize, ref SpecialName special)
    {
        char c = Peek;
        if (char.IsAsciiDigit(c))
        {
            _pos++;
            return LookupName(c - '0');
        }

        if (c == '?' && PeekAt(1) == '$')
        {
            _pos += 2;
            return ParseTemplateInstantiation(memorize, ref special);
        }

        return ParseSimpleName(memorize);
    }

    private string? LookupName(int index) => index < _nameCount ? _names[index] : Fail();

    private void MemorizeName(string name)
    {
        if (_nameCount >= _names.Length || name.Length == 0)
        {
            return;
        }

        for (int i = 0; i < _nameCount; i++)
        {
            if (string.Equals(_names[i], name, StringComparison.Ordinal))
            {
                return;
            }
        }

        _names[_nameCount++] = name;
    }

    /// <summary>An identifier terminated by <c>@</c>.</summary>
    private string? ParseSimpleName(bool memorize)
    {
        int at = _s.IndexOf('@', _pos);
        if (at <= _pos)
        {
            return Fail();
        }

        string name = _s[_pos..at];
        _pos = at + 1;
        if (memorize)
        {
            MemorizeName(name);
        }

        return name;
    }

    /// <summary>After <c>?$</c>: <c>name@args@</c> parsed in a fresh back-reference context.</summary>
    private string? ParseTemplateInstantiation(bool memorize, ref SpecialName special)
    {
        if (!Enter())
        {
            return null;
        }

        string[] outerNames = _names;
        int outerNameCount = _nameCount;
        UndecoratedType[] outerParams = _params;
        int outerParamCount = _paramCount;
        _names = new string[10];
        _nameCount = 0;
        _params = new UndecoratedType[10];
        _paramCount = 0;
        string result;
        try
        {
            string? name;
            SpecialName innerSpecial = default;
            if (Peek == '?')
            {
                _pos++;
                name = ParseOperatorName(ref innerSpecial, templateName: true);
            }
            else
            {
                name = ParseSimpleName(memorize: true);
            }

            if (name is null)
            {
                return Fail();
            }

            string? args = ParseTemplateArguments();
            if (args is null)
            {
                return Fail();
            }

            if (innerSpecial.Kind is SpecialKind.Constructor or SpecialKind.Destructor)
            {
                // ??$?0...: a constructor template; the class name is only known from the scope chain.
                special.Kind = innerSpecial.Kind;
                special.TemplateArguments = args;
                return string.Empty;
            }

            if (innerSpecial.Kind == SpecialKind.Conversion)
            {
                special.Kind = SpecialKind.Conversion;
            }

            result = name + args;
        }
        finally
        {
            _names = outerNames;
            _nameCount = outerNameCount;
            _params = outerParams;
            _paramCount = outerParamCount;
            Leave();
        }

        if (memorize)
        {
            MemorizeName(result);
        }

        return result;
    }

    /// <summary>Template arguments up to the terminating <c>@</c>, rendered <c>&lt;a,b&gt;</c> (<c>&lt;a,b&lt;c&gt;
    /// &gt;</c>).</summary>
    private string? ParseTemplateArguments()
    {
        var sb = new StringBuilder("<");
        bool first = true;
        while (!Consume('@'))
        {
            if (AtEnd || _failed)
            {
                return Fail();
            }

            string? arg = ParseTemplateArgument();
            if (arg is null)
            {
                return Fail();
            }

            if (arg.Length == 0)
            {
                continue; // empty parameter pack
            }

            if (!first)
            {
                sb.Append(',');
            }

            sb.Append(arg);
            first = false;
            if (sb.Length > MaxOutputLength)
            {
                return Fail();
            }
        }

        if (sb[^1] == '>')
        {
            sb.Append(' ');
        }

        return sb.Append('>').ToString();
    }

    private string? ParseTemplateArgument()
    {
        if (Consume("$$V") || Consume("$$Z") || Consume("$S"))
        {
            return string.Empty;
        }

        if (Peek == '$' && PeekAt(1) != '$')
        {
            _pos++;
            char kind = Next();
            switch (kind)
            {
                case '0':
                    return TryParseNumber(out long value) ? value.ToString(CultureInfo.InvariantCulture) : Fail();
                case '1':
                {
                    if (Consume('@'))
                    {
                        return "NULL";
                    }

                    string? sym = ParseNestedSymbol();
                    return sym is null ? null : "&" + sym;
                }

                case 'E':
                    return ParseNestedSymbol();
                case '2':
                {
                    // floating point: mantissa then exponent
                    if (!TryParseNumber(out long mantissa) || !TryParseNumber(out long exponent))
                    {
                        return Fail();
                    }

                    return mantissa.ToString(CultureInfo.InvariantCulture)
                        + "e"
                        + exponent.ToString(CultureInfo.InvariantCulture);
                }

                case 'D':
                    return TryParseNumber(out long tp)
                        ? "`template-parameter-" + tp.ToString(CultureInfo.InvariantCulture) + "'"
                        : Fail();
                case 'Q':
                    return TryParseNumber(out long ntp)
                        ? "`non-type-template-parameter-" + ntp.ToString(CultureInfo.InvariantCulture) + "'"
                        : Fail();
                case 'F':
                case 'G':
                {
                    int count = kind == 'F' ? 2 : 3;
                    var sb = new StringBuilder("{");
                    for (int i = 0; i < count; i++)
                    {
                        if (!TryParseNumber(out long n))
                        {
                            return Fail();
                        }

                        if (i > 0)
                        {
                            sb.Append(',');
                        }

                        sb.Append(n.ToString(CultureInfo.InvariantCulture));
                    }

                    return sb.Append('}').ToString();
                }

                case 'H':
                case 'I':
                case 'J':
                {
                    string? sym = ParseNestedSymbol();
                    if (sym is null)
                    {
                        return null;
                    }

                    int count = kind - 'G';
                    var sb = new StringBuilder("{").Append(sym);
                    for (int i = 0; i < count; i++)
                    {
                        if (!TryParseNumber(out long n))
                        {
                            return Fail();
                        }

                        sb.Append(',').Append(n.ToString(CultureInfo.InvariantCulture));
                    }

                    return sb.Append('}').ToString();
                }

                case 'M':
                {
                    // C++17 auto non-type parameter: the type, then the value argument.
                    if (ParseType(TypeContext.TemplateArgument) is null)
                    {
                        return Fail();
                    }

                    return ParseTemplateArgument();
                }

                default:
                    return Fail();
            }
        }

        if (Consume("$$Y"))
        {
            // alias template name
            SpecialName ignored = default;
            string? alias = ParseUnqualifiedName(memorize: true, ref ignored);
            List<string>? scopes = alias is null ? null : ParseScopeChain();
            return scopes is null ? Fail() : Qualify(scopes, alias!);
        }

        UndecoratedType? type = ParseType(TypeContext.TemplateArgument);
        return type?.Render();
    }

    /// <summary>A nested decorated symbol in a template argument (<c>?x@@3HA</c>), rendered name only.</summary>
    private string? ParseNestedSymbol()
    {
        if (!Consume('?'))
        {
            return Fail();
        }

        return ParseSymbolName(topLevel: false);
    }

    /// <summary>Scope fragments up to the terminating <c>@</c>, innermost first.</summary>
    private List<string>? ParseScopeChain()
    {
        var scopes = new List<string>(4);
        while (!Consume('@'))
        {
            if (AtEnd || _failed || scopes.Count > 256)
            {
                Fail();
                return null;
            }

            string? piece = ParseScopePiece();
            if (piece is null)
            {
                Fail();
                return null;
            }

            scopes.Add(piece);
        }

        return scopes;
    }

    private string? ParseScopePiece()
    {
        char c = Peek;
        if (char.IsAsciiDigit(c))
        {
            _pos++;
            return LookupName(c - '0');
        }

        if (c != '?')
        {
            return ParseSimpleName(memorize: true);
        }

        char c1 = PeekAt(1);
        if (c1 == '$')
        {
            _pos += 2;
            SpecialName ignored = default;
            return ParseTemplateInstantiation(memorize: true, ref ignored);
        }

        if (c1 == '?')
        {
            // a nested decorated symbol (the function holding a local static): `f'
            _pos += 2;
            string? inner = ParseSymbolName(topLevel: false);
            return inner is null ? null : "`" + inner + "'";
        }

        if (c1 == 'A' && PeekAt(2) == '0' && PeekAt(3) == 'x')
        {
            // ?A0x1234abcd@: anonymous namespace
            _pos += 2;
            int at = _s.IndexOf('@', _pos);
            if (at < 0)
            {
                return Fail();
            }

            _pos = at + 1;
            MemorizeName(AnonymousNamespace);
            return AnonymousNamespace;
        }

        if (c1 == 'Q')
        {
            // ?Q<name>@: an interface name in brackets
            _pos += 2;
            string? name = ParseSimpleName(memorize: true);
            return name is null ? null : "[" + name + "]";
        }

        // ?<number>: a numbered (local) scope
        _pos++;
        if (!TryParseNumber(out long scope) || scope < 0)
        {
            return Fail();
        }

        return "`" + scope.ToString(CultureInfo.InvariantCulture) + "'";
    }

    /// <summary>
    /// An encoded number: <c>0</c>-<c>9</c> mean 1-10, otherwise hex digits <c>A</c>-<c>P</c> ended by <c>@</c>;
    /// a leading <c>?</c> negates.
    /// </summary>
    private bool TryParseNumber(out long value)
    {
        value = 0;
        bool negative = Consume('?');
        char c = Peek;
        if (char.IsAsciiDigit(c))
        {
            _pos++;
            value = c - '0' + 1;
        }
        else
        {
            int digits = 0;
            ulong v = 0;
            while (true)
            {
                char h = Next();
                if (h == '@')
                {
                    break;
                }

                if (h < 'A' || h > 'P' || digits >= 16)
                {
                    _failed = true;
                    return false;
                }

                v = unchecked((v << 4) | (uint)(h - 'A'));
                digits++;
            }

            value = unchecked((long)v);
        }

        if (negative)
        {
            value = unchecked(-value);
        }

        return true;
    }

    // ------------------------------------------------------------------ encodings (what follows the name)

    /// <summary>
    /// Parses the type encoding after a symbol's name. Returns a function's return type (for conversion operators)
    /// and consumes a variable's type, a vftable's "for" list or an RTTI marker.
    /// </summary>
    private UndecoratedType? ParseEncoding(out bool isFunction)
    {
        isFunction = false;
        char c = Peek;
        if (c >= '0' && c <= '4')
        {
            // variables: <storage><type><cv>
            _pos++;
            UndecoratedType? t = ParseType(TypeContext.Result);
            if (t is null)
            {
                return null;
            }

            ParsePointerModifiers();
            ParseCv();
            return t;
        }

        if (c == '5')
        {
            // local static guard: a number may follow
            _pos++;
            if (!AtEnd && Peek != '@')
            {
                TryParseNumber(out _);
            }

            return new NamedType(string.Empty);
        }

        if (c is '6' or '7')
        {
            // vftable / vbtable: <cv> then "for" names, each ending in @, then @
            _pos++;
            ParsePointerModifiers();
            ParseCv();
            while (!Consume('@'))
            {
                if (AtEnd || _failed)
                {
                    Fail();
                    return null;
                }

                SpecialName ignored = default;
                string? name = ParseUnqualifiedName(memorize: true, ref ignored);
                if (name is null || ParseScopeChain() is null)
                {
                    return null;
                }
            }

            return new NamedType(string.Empty);
        }

        if (c == '8')
        {
            _pos++;
            return new NamedType(string.Empty);
        }

        if (c == '9')
        {
            _pos++;
            return new NamedType(string.Empty);
        }

        isFunction = true;
        return ParseFunctionEncoding();
    }

    private UndecoratedType? ParseFunctionEncoding()
    {
        // C++/CLI and extern "C" prefixes
        if (Consume("$$J0") || Consume("$$F") || Consume("$$H"))
        {
            // nothing to render
        }

        bool member;
        char c = Next();
        if (c == '$')
        {
            char t = Next();
            switch (t)
            {
                case '0':
                case '1':
                case '2':
                case '3':
                case '4':
                case '5':
                    if (!TryParseNumber(out _) || !TryParseNumber(out _))
                    {
                        return null;
                    }

                    member = true;
                    break;
                case 'R':
                    Next(); // access
                    for (int i = 0; i < 4; i++)
                    {
                        if (!TryParseNumber(out _))
                        {
                            return null;
                        }
                    }

                    member = true;
                    break;
                case 'B':
                {
                    // vcall thunk: $B<offset>A
                    if (!TryParseNumber(out _))
                    {
                        return null;
                    }

                    Consume('A');
                    return new NamedType(string.Empty);
                }

                default:
                    _failed = true;
                    return null;
            }
        }
        else if (c is 'Y' or 'Z')
        {
            member = false;
        }
        else if (c >= 'A' && c <= 'X')
        {
            int k = (c - 'A') / 2 % 4; // 0 plain, 1 static, 2 virtual, 3 adjustor thunk
            member = k != 1;
            if (k == 3 && !TryParseNumber(out _))
            {
                return null;
            }
        }
        else
        {
            Fail();
            return null;
        }

        string thisQualifiers = string.Empty;
        if (member)
        {
            ParsePointerModifiers();
            thisQualifiers = ParseCv();
        }

        return ParseFunctionTypeTail(thisQualifiers);
    }

    /// <summary>Calling convention, return type, parameters and throw specification.</summary>
    private FunctionType? ParseFunctionTypeTail(string thisQualifiers)
    {
        string cc = ParseCallingConvention();
        if (_failed)
        {
            return null;
        }

        UndecoratedType? returnType = null;
        if (!Consume('@'))
        {
            returnType = ParseType(TypeContext.Result);
            if (returnType is null)
            {
                return null;
            }
        }

        string? parameters = ParseParameterList();
        if (parameters is null)
        {
            return null;
        }

        // throw specification: Z (none) or _E (noexcept)
        if (!Consume('Z') && !Consume("_E"))
        {
            if (!AtEnd)
            {
                Fail();
                return null;
            }
        }

        var f = new FunctionType(returnType, cc, parameters, thisQualifiers.Length > 0 ? thisQualifiers : string.Empty);
        if (f.Weight > MaxOutputLength)
        {
            _failed = true;
            return null;
        }

        return f;
    }

    private string ParseCallingConvention()
    {
        char c = Next();
        switch (c)
        {
            case 'A':
            case 'B':
                return "__cdecl";
            case 'C':
            case 'D':
                return "__pascal";
            case 'E':
            case 'F':
                return "__thiscall";
            case 'G':
            case 'H':
                return "__stdcall";
            case 'I':
            case 'J':
                return "__fastcall";
            case 'K':
            case 'L':
                return string.Empty;
            case 'M':
            case 'N':
                return "__clrcall";
            case 'O':
            case 'P':
                return "__eabi";
            case 'Q':
                return "__vectorcall";
            case 'S':
                return "__swift_1";
            case 'T':
                return "__swift_2";
            case 'W':
                return "__swift_3";
            default:
                _failed = true;
                return string.Empty;
        }
    }

    private string? ParseParameterList()
    {
        if (Consume('X'))
        {
            return "void";
        }

        var sb = new StringBuilder();
        while (true)
        {
            if (_failed || AtEnd)
            {
                return Fail();
            }

            if (Consume('@'))
            {
                break;
            }

            if (Peek == 'Z')
            {
                // variadic: Z ends the list ("...")
                _pos++;
                if (sb.Length > 0)
                {
                    sb.Append(',');
                }

                sb.Append("...");
                break;
            }

            UndecoratedType? p;
            char c = Peek;
            if (char.IsAsciiDigit(c))
            {
                _pos++;
                int index = c - '0';
                if (index >= _paramCount)
                {
                    return Fail();
                }

                p = _params[index];
            }
            else
            {
                int start = _pos;
                p = ParseType(TypeContext.Parameter);
                if (p is null)
                {
                    return Fail();
                }

                if (_pos - start > 1 && _paramCount < _params.Length)
                {
                    _params[_paramCount++] = p;
                }
            }

            if (sb.Length > 0)
            {
                sb.Append(',');
            }

            p.Render(sb, string.Empty);
            if (sb.Length > MaxOutputLength)
            {
                return Fail();
            }
        }

        return sb.ToString();
    }

    // ------------------------------------------------------------------ types

    private enum TypeContext
    {
        Result,
        Parameter,
        TemplateArgument,
        Pointee,
    }

    private UndecoratedType? ParseType(TypeContext context)
    {
        if (!Enter())
        {
            return null;
        }

        try
        {
            UndecoratedType? t = ParseTypeCore(context);
            if (t is not null && t.Weight > MaxOutputLength)
            {
                Fail();
                return null;
            }

            return _failed ? null : t;
        }
        finally
        {
            Leave();
        }
    }

    private UndecoratedType? ParseTypeCore(TypeContext context)
    {
        char c = Next();
        switch (c)
        {
            case 'C':
                return new NamedType("signed char");
            case 'D':
                return new NamedType("char");
            case 'E':
                return new NamedType("unsigned char");
            case 'F':
                return new NamedType("short");
            case 'G':
                return new NamedType("unsigned short");
            case 'H':
                return new NamedType("int");
            case 'I':
                return new NamedType("unsigned int");
            case 'J':
                return new NamedType("long");
            case 'K':
                return new NamedType("unsigned long");
            case 'M':
                return new NamedType("float");
            case 'N':
                return new NamedType("double");
            case 'O':
                return new NamedType("long double");
            case 'X':
                return new NamedType("void");
            case 'T':
            case 'U':
            case 'V':
                return ParseClassType();
            case 'W':
            {
                // enum: W<underlying type digit><name>
                if (!char.IsAsciiDigit(Next()))
                {
                    Fail();
                    return null;
                }

                return ParseClassType();
            }

            case 'Y':
                return ParseArrayType();
            case '_':
                return ParseExtendedType();
            case 'P':
            case 'Q':
            case 'R':
            case 'S':
                return ParsePointer(c, "*");
            case 'A':
            case 'B':
                return ParsePointer(c, "&");
            case '?':
            {
                // a cv-qualified result or template argument: ?A<type>, ?B<type> (const)...
                string cv = ParseCv();
                UndecoratedType? inner = ParseType(context);
                if (inner is null)
                {
                    return null;
                }

                return cv.Length == 0 ? inner : AddCv(inner, cv);
            }

            case '$':
                return ParseDollarType(context);
            default:
                Fail();
                return null;
        }
    }

    private UndecoratedType? ParseDollarType(TypeContext context)
    {
        if (!Consume('$'))
        {
            Fail();
            return null;
        }

        char c = Next();
        switch (c)
        {
            case 'T':
                return new NamedType("std::nullptr_t");
            case 'Q':
                return ParsePointer('A', "&&");
            case 'R':
                return ParsePointer('B', "&&");
            case 'A':
            {
                // function type: $$A6<function type> or $$A8<class>@<this cv><function type>
                char k = Next();
                if (k == '6')
                {
                    return ParseFunctionTypeTail(string.Empty);
                }

                if (k == '8')
                {
                    if (ParseQualifiedTypeName() is null)
                    {
                        return null;
                    }

                    ParsePointerModifiers();
                    string thisCv = ParseCv();
                    return ParseFunctionTypeTail(thisCv);
                }

                Fail();
                return null;
            }

            case 'B':
            {
                // array or other type used directly as a template argument
                return ParseType(context);
            }

            case 'C':
            {
                // $$C<cv><type>: a cv-qualified type in a template argument
                string cv = ParseCv();
                UndecoratedType? inner = ParseType(context);
                if (inner is null)
                {
                    return null;
                }

                return new CvQualifiedType(inner, cv);
            }

            default:
                Fail();
                return null;
        }
    }

    private NamedType? ParseExtendedType()
    {
        char c = Next();
        switch (c)
        {
            case 'D':
                return new NamedType("__int8");
            case 'E':
                return new NamedType("unsigned __int8");
            case 'F':
                return new NamedType("__int16");
            case 'G':
                return new NamedType("unsigned __int16");
            case 'H':
                return new NamedType("__int32");
            case 'I':
                return new NamedType("unsigned __int32");
            case 'J':
                return new NamedType("__int64");
            case 'K':
                return new NamedType("unsigned __int64");
            case 'L':
                return new NamedType("__int128");
            case 'M':
                return new NamedType("unsigned __int128");
            case 'N':
                return new NamedType("bool");
            case 'Q':
                return new NamedType("char8_t");
            case 'S':
                return new NamedType("char16_t");
            case 'U':
                return new NamedType("char32_t");
            case 'W':
                return new NamedType("wchar_t");
            default:
                Fail();
                return null;
        }
    }

    /// <summary>A class, struct, union or enum name; the keyword is dropped (DIA's name-only behaviour).</summary>
    private NamedType? ParseClassType()
    {
        string? name = ParseQualifiedTypeName();
        return name is null ? null : new NamedType(name);
    }

    private string? ParseQualifiedTypeName()
    {
        SpecialName ignored = default;
        string? first = ParseUnqualifiedName(memorize: true, ref ignored);
        if (first is null)
        {
            return Fail();
        }

        List<string>? scopes = ParseScopeChain();
        return scopes is null ? null : Qualify(scopes, first);
    }

    private ArrayType? ParseArrayType()
    {
        if (!TryParseNumber(out long dims) || dims <= 0 || dims > 32)
        {
            Fail();
            return null;
        }

        var sb = new StringBuilder();
        for (long i = 0; i < dims; i++)
        {
            if (!TryParseNumber(out long n))
            {
                return null;
            }

            sb.Append('[').Append(n.ToString(CultureInfo.InvariantCulture)).Append(']');
        }

        // The element may carry a cv prefix (?B).
        UndecoratedType? element = ParseType(TypeContext.Pointee);
        if (element is PointerType pointer)
        {
            // DIA drops the element pointer's own cv: Y00Q6AXXZ is "void (*[1])(void)", not "(*const [1])".
            element = pointer.WithoutQualifiers();
        }

        return element is null ? null : new ArrayType(element, sb.ToString());
    }

    /// <summary>
    /// A pointer or reference after its letter: <c>P</c>/<c>A</c> plain, <c>Q</c> const, <c>R</c>/<c>B</c> volatile,
    /// <c>S</c> const volatile; then modifiers, then the pointee's cv (or <c>6</c>/<c>8</c> for functions).
    /// </summary>
    private PointerType? ParsePointer(char letter, string op)
    {
        string pointerCv = letter switch
        {
            'Q' => "const",
            'R' or 'B' => "volatile",
            'S' => "const volatile",
            _ => string.Empty,
        };
        if (op == "&&" && letter == 'B')
        {
            pointerCv = "volatile";
        }

        string modifiers = ParsePointerModifiers();
        char c = Peek;
        if (c == '6')
        {
            _pos++;
            FunctionType? f = ParseFunctionTypeTail(string.Empty);
            return f is null ? null : new PointerType(f, op, modifiers, pointerCv);
        }

        if (c == '8')
        {
            // pointer to member function: 8<class>@<this modifiers+cv><function>
            _pos++;
            string? cls = ParseQualifiedTypeName();
            if (cls is null)
            {
                return null;
            }

            ParsePointerModifiers();
            string thisCv = ParseCv();
            FunctionType? f = ParseFunctionTypeTail(thisCv);
            return f is null ? null : new PointerType(f, cls + "::" + op, modifiers, pointerCv);
        }

        // pointee cv: A none, B const, C volatile, D const volatile; Q..T pointers to data members with a class name.
        string pointeeCv;
        string memberOf = string.Empty;
        char q = Next();
        switch (q)
        {
            case 'A':
                pointeeCv = string.Empty;
                break;
            case 'B':
                pointeeCv = "const";
                break;
            case 'C':
                pointeeCv = "volatile";
                break;
            case 'D':
                pointeeCv = "const volatile";
                break;
            case 'Q':
            case 'R':
            case 'S':
            case 'T':
            {
                pointeeCv = q switch
                {
                    'R' => "const",
                    'S' => "volatile",
                    'T' => "const volatile",
                    _ => string.Empty,
                };
                string? cls = ParseQualifiedTypeName();
                if (cls is null)
                {
                    return null;
                }

                memberOf = cls + "::";
                break;
            }

            default:
                Fail();
                return null;
        }

        UndecoratedType? pointee = ParseType(TypeContext.Pointee);
        if (pointee is null)
        {
            return null;
        }

        if (pointeeCv.Length > 0)
        {
            pointee = AddCv(pointee, pointeeCv);
        }

        return new PointerType(pointee, memberOf + op, modifiers, pointerCv);
    }

    /// <summary>Qualifies a pointee: named types get " const"; pointers carry their own qualifiers already.</summary>
    private static UndecoratedType AddCv(UndecoratedType t, string cv) =>
        t switch
        {
            NamedType n => new NamedType(n.Text + " " + cv),
            _ => t,
        };

    /// <summary>Pointer modifiers: <c>E</c> __ptr64, <c>F</c> __unaligned, <c>I</c> __restrict; rendered
    /// space-separated.</summary>
    private string ParsePointerModifiers()
    {
        string result = string.Empty;
        while (true)
        {
            char c = Peek;
            string? m = c switch
            {
                'E' => "__ptr64",
                'F' => "__unaligned",
                'I' => "__restrict",
                'G' => "&",
                'H' => "&&",
                _ => null,
            };
            if (m is null)
            {
                return result;
            }

            _pos++;
            if (c is 'G' or 'H')
            {
                continue; // ref-qualifiers of member functions: not part of the name
            }

            result = result.Length == 0 ? m : result + " " + m;
        }
    }

    /// <summary>cv qualifier letter: <c>A</c> none, <c>B</c> const, <c>C</c> volatile, <c>D</c> const
    /// volatile.</summary>
    private string ParseCv()
    {
        char c = Next();
        switch (c)
        {
            case 'A':
                return string.Empty;
            case 'B':
                return "const";
            case 'C':
                return "volatile";
            case 'D':
                return "const volatile";
            default:
                _failed = true;
                return string.Empty;
        }
    }
}
