using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>
/// The "never crash" sweep: every committed text fixture, truncated and mutated with a fixed seed, must either parse or
/// fail with <see cref="InvalidTextInputException"/> (never another exception, a hang or an unbounded allocation).
/// </summary>
public class NeverCrashTests
{
    private const int MutationsPerFixture = 400;
    private static readonly string[] s_inserts =
    [
        "<",
        ">",
        "&",
        "&lt;",
        "\"",
        "'",
        "\n",
        "\r",
        "+",
        "!",
        "0x",
        "`",
        "::",
        "<frame ",
        "/>",
        "]]>",
        "<![CDATA[",
        "\0",
        "\uFFFF",
        "\uD800",
        ",",
        "\t",
        "Module(",
        "[ @ ",
    ];

    private static IEnumerable<string> Fixtures() =>
        [
            "histogram_module_offset_crlf.xml",
            "histogram_callstack_rva.xml",
            "ring_buffer_callstack.xml",
            "several_histograms.txt",
            "sqldumper_stack.txt",
            "loaded_modules_crlf.txt",
            "sqlbuildinfo_sample.json",
        ];

    [TestCaseSource(nameof(Fixtures))]
    public void Parsers_ThrowOnlyInvalidTextInput_ForMutatedFixture(string name)
    {
        string original = File.ReadAllText(StackTextReaderTests.Fixture(name));
        var rng = new Random(name.Length * 7919);
        for (int i = 0; i < MutationsPerFixture; i++)
        {
            string text = Mutate(original, rng);
            Check(() => StackTextReader.Parse(text), name, i, text);
            Check(() => _ = TargetDataReader.Read(new StringReader(text)).Count(), name, i, text);
            Check(() => ModuleMap.Parse(new StringReader(text)), name, i, text);
            Check(() => SqlBuildCatalog.Read(new StringReader(text)), name, i, text);
            Check(
                () =>
                    StackTextReader.Parse(
                        text,
                        new StackTextReaderOptions
                        {
                            FramesOnSingleLine = true,
                            SymbolizedOffsetRadix = OffsetRadix.Decimal,
                        }
                    ),
                name,
                i,
                text
            );
        }
    }

    [TestCase('<')]
    [TestCase('!')]
    [TestCase('+')]
    [TestCase('`')]
    [TestCase('(')]
    [TestCase(' ')]
    public void Parse_StaysLinear_OnLongLineOfOneCharacter(char c)
    {
        // Pathological lines (2 million characters) are read whole, into one line each (their speed is measured by the
        // benchmarks).
        string line = "sqlmin!Foo::operator" + new string(c, 2_000_000) + "+0x1";
        IReadOnlyList<Callstack> stacks = StackTextReader.Parse(line + "\n" + line.Replace(' ', '<'));
        Assert.That(stacks.Single().Lines, Has.Length.EqualTo(2));
    }

    private static void Check(Action parse, string name, int i, string text)
    {
        try
        {
            parse();
        }
        catch (InvalidTextInputException) { }
        catch (Exception ex)
        {
            Assert.Fail(
                $"{name} mutation {i}: {ex.GetType().Name}: {ex.Message}\n{ex.StackTrace}\n--- input ---\n{text}"
            );
        }
    }

    private static string Mutate(string s, Random rng)
    {
        var chars = new System.Text.StringBuilder(s);
        int edits = rng.Next(1, 6);
        for (int e = 0; e < edits && chars.Length > 0; e++)
        {
            int at = rng.Next(chars.Length);
            switch (rng.Next(4))
            {
                case 0:
                    chars.Length = at;
                    break;
                case 1:
                    chars[at] = (char)rng.Next(0, 0x3000);
                    break;
                case 2:
                    chars.Insert(at, s_inserts[rng.Next(s_inserts.Length)]);
                    break;
                default:
                    chars.Remove(at, Math.Min(rng.Next(1, 20), chars.Length - at));
                    break;
            }
        }

        return chars.ToString();
    }
}
