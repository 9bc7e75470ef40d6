using System.Text;
using XeAnalyzer.Symbols.Undecoration;

namespace XeAnalyzer.Tests.Symbols.Undecoration;

/// <summary>
/// Identity oracle without the shared vectors: <c>TestData/undname/clang-corpus.tsv</c> holds the decorated names
/// clang-14 gave the symbols of <c>tools/undname/corpus.cpp</c> (x64 and x86 MSVC targets) with llvm-undname-14's full
/// undecoration, recorded by <c>tools/undname/build-corpus.sh</c>. llvm-undname has no name-only mode, so
/// <see cref="LlvmToNameOnly"/> cuts its output to name-only, and <see cref="Canonical"/> removes on BOTH sides the
/// spelling differences between llvm-undname and the Microsoft undecorator (spaces, keywords); the DIA spelling itself
/// is checked by <see cref="MsvcNameUndecoratorFormatTests"/>. Names llvm-undname cannot cut this way are listed in
/// <see cref="s_handChecked"/> with a hand-checked expectation and the reason.
/// </summary>
[TestFixture]
public sealed class MsvcNameUndecoratorCorpusTests
{
    private static readonly string[] s_callingConventions =
    [
        " __cdecl ",
        " __stdcall ",
        " __fastcall ",
        " __thiscall ",
        " __vectorcall ",
        " __clrcall ",
    ];

    /// <summary>
    /// Names whose llvm-undname text the simple normaliser cannot cut to name-only; expected values checked by hand
    /// against the llvm-undname text shown in the comment.
    /// </summary>
    private static readonly Dictionary<string, (string Expected, string Reason)> s_handChecked = new(
        StringComparer.Ordinal
    )
    {
        // llvm: int (*g_array)[8]
        ["?g_array@@3PAY07HA"] = ("g_array", "the variable's name sits inside its declarator"),
        // llvm: int (__cdecl *g_fn_ptr)(int)
        ["?g_fn_ptr@@3P6AHH@ZA"] = ("g_fn_ptr", "the variable's name sits inside its declarator"),
        ["?g_fn_ptr@@3P6AHH@ZEA"] = ("g_fn_ptr", "the variable's name sits inside its declarator"),
        // llvm: public: static int (__cdecl **Holder<int (__cdecl *)(void)>::s_value)(void)
        ["?s_value@?$Holder@P6AHXZ@@2PAP6AHXZA"] = (
            "Holder<int (__cdecl*)(void)>::s_value",
            "the variable's name sits inside its declarator"
        ),
        ["?s_value@?$Holder@P6AHXZ@@2PEAP6AHXZEA"] = (
            "Holder<int (__cdecl*)(void)>::s_value",
            "the variable's name sits inside its declarator"
        ),
        ["?s_value@?$Holder@P6AXHPAD@Z@@2PAP6AXHPAD@ZA"] = (
            "Holder<void (__cdecl*)(int,char *)>::s_value",
            "the variable's name sits inside its declarator"
        ),
        ["?s_value@?$Holder@P6AXHPEAD@Z@@2PEAP6AXHPEAD@ZEA"] = (
            "Holder<void (__cdecl*)(int,char * __ptr64)>::s_value",
            "the variable's name sits inside its declarator"
        ),
        // llvm: int __cdecl ByAddress<&int g_value>(void); ByReference<int g_value>
        ["??$ByAddress@$1?g_value@@3HA@@YAHXZ"] = (
            "ByAddress<&g_value>",
            "llvm prints the referenced variable's declaration; name-only prints its name"
        ),
        ["??$ByReference@$E?g_value@@3HA@@YAHXZ"] = (
            "ByReference<g_value>",
            "llvm prints the referenced variable's declaration; name-only prints its name"
        ),
    };

    private static IEnumerable<TestCaseData> CorpusRows()
    {
        string path = Path.Combine(TestPaths.TestData, "undname", "clang-corpus.tsv");
        foreach (string line in File.ReadLines(path))
        {
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }

            string[] parts = line.Split('\t');
            yield return new TestCaseData(parts[0], parts[1], parts[2]).SetArgDisplayNames(parts[0], parts[1]);
        }
    }

    [TestCaseSource(nameof(CorpusRows))]
    public void UndecorateNameOnly_MatchesLlvmUndnameIdentity_ForClangCorpusName(
        string target,
        string decorated,
        string llvm
    )
    {
        Assert.That(target, Is.AnyOf("x86_64", "i686"));
        bool ok = MsvcNameUndecorator.TryUndecorate(decorated, out string ours);
        if (llvm.StartsWith("error:", StringComparison.Ordinal))
        {
            // llvm-undname rejects C names; those follow the x86 C-name rule, checked by hand in the format tests.
            Assert.That(decorated, Does.Not.StartWith("?"), "llvm-undname failed on a C++ name");
            Assert.That(ok, Is.True);
            return;
        }

        Assert.That(ok, Is.True, "TryUndecorate failed");
        if (s_handChecked.TryGetValue(decorated, out (string Expected, string Reason) hand))
        {
            Assert.That(ours, Is.EqualTo(hand.Expected), hand.Reason);
            return;
        }

        Assert.That(Canonical(ours), Is.EqualTo(Canonical(LlvmToNameOnly(llvm))), "llvm-undname: " + llvm);
    }

    [Test]
    public void CorpusFile_HasBothTargetsAndTheRulesCovered_WhenRegenerated()
    {
        var rows = CorpusRows().Select(r => (string)r.Arguments[1]!).ToList();
        Assert.That(rows, Has.Count.GreaterThan(250));
        Assert.That(rows, Does.Contain("?SpinToAcquireWithExponentialBackoff@?$Spinlock@$0IP@$06$00@@SAH_K@Z"));
        Assert.That(rows, Does.Contain("_StdcallExport@8"));
        Assert.That(rows, Does.Contain("@FastcallExport@8"));
        foreach (string decorated in s_handChecked.Keys)
        {
            Assert.That(rows, Does.Contain(decorated), "hand-checked name no longer in the corpus");
        }
    }

    /// <summary>
    /// Cuts llvm-undname's full text to name-only: string literals become <c>`string'</c>; <c>[thunk]:</c>, access
    /// specifiers, <c>static</c>/<c>virtual</c> are dropped; <c>`adjustor{n}'</c> and a trailing <c>{for `X'}</c> are
    /// dropped; the parameter list (the last balanced parenthesised group, after trailing qualifiers) is cut; the
    /// return type is cut at the first space-delimited calling convention, or for data at the last space outside
    /// <c>&lt;&gt;</c>, <c>()</c> and backticks. Backtick-quoted nested declarations (holding a calling convention) are
    /// cut the same way first; an RTTI type descriptor keeps its type (<c>Base1 `RTTI Type Descriptor'</c>).
    /// </summary>
    internal static string LlvmToNameOnly(string llvm)
    {
        string s = llvm;
        if (
            s.StartsWith('"')
            || s.StartsWith("L\"", StringComparison.Ordinal)
            || s.StartsWith("u\"", StringComparison.Ordinal)
            || s.StartsWith("U\"", StringComparison.Ordinal)
            || s.StartsWith("u8\"", StringComparison.Ordinal)
        )
        {
            return "`string'";
        }

        s = CutNested(s);
        s = StripPrefix(s, "[thunk]: ");
        s = StripPrefix(s, "[thunk]:");
        foreach (string p in new[] { "public: ", "protected: ", "private: ", "static ", "virtual " })
        {
            s = StripPrefix(s, p);
        }

        int adjustor = s.IndexOf("`adjustor{", StringComparison.Ordinal);
        if (adjustor >= 0)
        {
            int end = s.IndexOf("}'", adjustor, StringComparison.Ordinal);
            s = s.Remove(adjustor, end + 2 - adjustor);
        }

        if (s.EndsWith("'}", StringComparison.Ordinal))
        {
            int forAt = s.LastIndexOf("{for `", StringComparison.Ordinal);
            if (forAt > 0)
            {
                s = s[..forAt];
            }
        }

        int cc = -1;
        int ccLength = 0;
        foreach (string c in s_callingConventions)
        {
            int at = s.IndexOf(c, StringComparison.Ordinal);
            if (at >= 0 && (cc < 0 || at < cc))
            {
                cc = at;
                ccLength = c.Length;
            }
        }

        if (cc >= 0)
        {
            s = s[(cc + ccLength)..];
            s = CutParameters(s);
        }
        else if (!s.EndsWith("`RTTI Type Descriptor'", StringComparison.Ordinal))
        {
            // data: "int *Holder<int>::s_value" -> the last word, without the pointer declarator glued to it
            s = AfterLastTopLevelSpace(CutParameters(s)).TrimStart('*', '&');
        }

        return s;
    }

    private static string StripPrefix(string s, string prefix) =>
        s.StartsWith(prefix, StringComparison.Ordinal) ? s[prefix.Length..] : s;

    private static string CutParameters(string s)
    {
        for (int round = 0; round < 4; round++)
        {
            foreach (string q in new[] { " const", " volatile", " __ptr64", " &&", " &", " __restrict" })
            {
                if (s.EndsWith(q, StringComparison.Ordinal))
                {
                    s = s[..^q.Length];
                }
            }

            if (!s.EndsWith(')'))
            {
                return s;
            }

            int depth = 0;
            int open = -1;
            for (int i = s.Length - 1; i >= 0; i--)
            {
                if (s[i] == ')')
                {
                    depth++;
                }
                else if (s[i] == '(' && --depth == 0)
                {
                    open = i;
                    break;
                }
            }

            if (open < 0)
            {
                return s;
            }

            s = s[..open];

            // A function returning a function pointer: "Get(int) const)(void)" leaves an unmatched ")" behind.
            if (s.Count(c => c == ')') > s.Count(c => c == '(') && s.EndsWith(')'))
            {
                s = s[..^1];
                continue;
            }

            return s;
        }

        return s;
    }

    private static string AfterLastTopLevelSpace(string s)
    {
        int angle = 0;
        int paren = 0;
        int tick = 0;
        int last = -1;
        for (int i = 0; i < s.Length; i++)
        {
            switch (s[i])
            {
                case '<':
                    angle++;
                    break;
                case '>':
                    angle--;
                    break;
                case '(':
                    paren++;
                    break;
                case ')':
                    paren--;
                    break;
                case '`':
                    tick++;
                    break;
                case '\'':
                    tick--;
                    break;
                case ' ' when angle == 0 && paren == 0 && tick == 0:
                    last = i;
                    break;
            }
        }

        return last < 0 ? s : s[(last + 1)..];
    }

    /// <summary>Replaces each backtick-quoted nested declaration (one holding a parenthesis) by its name-only
    /// cut.</summary>
    private static string CutNested(string s)
    {
        var sb = new StringBuilder();
        int i = 0;
        while (i < s.Length)
        {
            if (s[i] != '`')
            {
                sb.Append(s[i++]);
                continue;
            }

            int depth = 0;
            int j = i;
            for (; j < s.Length; j++)
            {
                if (s[j] == '`')
                {
                    depth++;
                }
                else if (s[j] == '\'' && --depth == 0)
                {
                    break;
                }
            }

            if (j >= s.Length)
            {
                sb.Append(s[i..]);
                break;
            }

            string inner = s[(i + 1)..j];
            bool declaration = s_callingConventions.Any(c => inner.Contains(c, StringComparison.Ordinal));
            sb.Append('`').Append(declaration ? LlvmToNameOnly(inner) : inner).Append('\'');
            i = j + 1;
        }

        return sb.ToString();
    }

    /// <summary>
    /// Spelling-neutral form for the identity comparison: drops <c>class</c>/<c>struct</c>/<c>union</c>/<c>enum</c>
    /// keywords and <c>__ptr64</c>, writes llvm's <c>`... dtor'</c> as <c>`... destructor'</c>, and removes every space
    /// not between two identifier characters (llvm writes <c>&lt;a, b&gt;&gt;</c> and <c>char *const</c>, Microsoft
    /// <c>&lt;a,b&gt; &gt;</c> and <c>char * const</c>).
    /// </summary>
    internal static string Canonical(string s)
    {
        foreach (string k in new[] { "class ", "struct ", "union ", "enum " })
        {
            s = RemoveKeyword(s, k);
        }

        s = s.Replace("__ptr64", string.Empty, StringComparison.Ordinal)
            .Replace(" dtor'", " destructor'", StringComparison.Ordinal);
        var sb = new StringBuilder(s.Length);
        for (int i = 0; i < s.Length; i++)
        {
            if (s[i] == ' ')
            {
                bool keep = sb.Length > 0 && IsIdent(sb[^1]) && i + 1 < s.Length && IsIdent(s[i + 1]);
                if (!keep)
                {
                    continue;
                }
            }

            sb.Append(s[i]);
        }

        return sb.ToString();
    }

    private static bool IsIdent(char c) => char.IsAsciiLetterOrDigit(c) || c == '_' || c == '$';

    private static string RemoveKeyword(string s, string keyword)
    {
        int at = 0;
        while ((at = s.IndexOf(keyword, at, StringComparison.Ordinal)) >= 0)
        {
            if (at == 0 || !IsIdent(s[at - 1]))
            {
                s = s.Remove(at, keyword.Length);
            }
            else
            {
                at += keyword.Length;
            }
        }

        return s;
    }
}
