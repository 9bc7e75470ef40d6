using System.Globalization;
using System.Text;
using XeAnalyzer.Cli;
using XeAnalyzer.Events;
using XeAnalyzer.Tests.Samples;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Reporting;

/// <summary>Shared pieces of the report and batch tests: running the CLI in-process, batch input folders, reading
/// outputs back.</summary>
internal static class ReportTestSupport
{
    /// <summary>The symbol options that resolve the samples offline: the committed store, the DLLs for verified
    /// identities.</summary>
    public static string[] SymbolArgs =>
        ["--symbols", TestPaths.SymbolsCache, "--binaries", TestPaths.SymbolsCache, "--offline"];

    /// <summary>Copies a sample set's capture and sidecar into <paramref name="folder"/> (same names).</summary>
    public static string CopySample(string set, string folder)
    {
        Directory.CreateDirectory(folder);
        string capture = SampleData.CapturePath(set);
        string target = Path.Combine(folder, Path.GetFileName(capture));
        File.Copy(capture, target);
        File.Copy(SampleData.SidecarPath(set), Path.Combine(folder, set + ".modules.txt"));
        return target;
    }

    /// <summary>
    /// Writes a variant of a sample with the library's writer: its events with index % <paramref name="modulus"/> != 0
    /// (every event when the modulus is 0), under a new rollover name <c>&lt;name&gt;_0_&lt;FILETIME&gt;.xel</c>, with
    /// the sample's sidecar as
    /// <c>&lt;name&gt;.modules.txt</c>.
    /// </summary>
    public static string WriteVariant(string set, string folder, string name, int modulus)
    {
        Directory.CreateDirectory(folder);
        string source = SampleData.CapturePath(set);
        XeSchema schema = XelReader.ReadSchema(source);
        string target = Path.Combine(folder, name + "_0_133601526724170000.xel");
        using (
            XelWriter w = XelWriter.Create(
                target,
                schema,
                new XelWriterOptions
                {
                    StartTimeUtc = new DateTime(2024, 5, 14, 9, 31, 12, DateTimeKind.Utc),
                    Partitions = 1,
                }
            )
        )
        {
            int i = 0;
            foreach (XEvent e in XelReader.ReadEvents(source))
            {
                if (modulus == 0 || i++ % modulus != 0)
                {
                    w.Write(e);
                }
            }
        }

        File.Copy(SampleData.SidecarPath(set), Path.Combine(folder, name + ".modules.txt"));
        return target;
    }

    /// <summary>A batch input: the three sample captures (in sub-folders), two written variants and the two histogram
    /// XML files.</summary>
    public static void MakeBatchInput(string root)
    {
        CopySample(SampleData.Latch, Path.Combine(root, "latch"));
        CopySample(SampleData.Memory, Path.Combine(root, "memory"));
        CopySample(SampleData.Waits, Path.Combine(root, "waits"));
        WriteVariant(SampleData.Latch, Path.Combine(root, "variants"), "latch_every_other", 2);
        WriteVariant(SampleData.Waits, Path.Combine(root, "variants"), "waits_copy", 0);
        string xml = Path.Combine(root, "xml");
        Directory.CreateDirectory(xml);
        foreach (
            string f in Directory.GetFiles(Path.Combine(TestPaths.Samples, "latch_nesting_full_histogram"), "*.xml")
        )
        {
            File.Copy(f, Path.Combine(xml, Path.GetFileName(f)));
        }
    }

    /// <summary>Every file under a folder: relative path ('/' separators) → bytes.</summary>
    public static SortedDictionary<string, byte[]> Snapshot(string root)
    {
        var files = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (string f in Directory.EnumerateFiles(root, "*", SearchOption.AllDirectories))
        {
            files[Path.GetRelativePath(root, f).Replace('\\', '/')] = File.ReadAllBytes(f);
        }

        return files;
    }

    /// <summary>Asserts two snapshots hold the same files with the same bytes, naming the first difference.</summary>
    public static void AssertSame(SortedDictionary<string, byte[]> a, SortedDictionary<string, byte[]> b)
    {
        Assert.That(b.Keys, Is.EqualTo(a.Keys), "the same file names");
        foreach ((string name, byte[] bytes) in a)
        {
            Assert.That(b[name].AsSpan().SequenceEqual(bytes), Is.True, "byte-identical: " + name);
        }
    }

    /// <summary>Parses RFC 4180 CSV (quoted fields, doubled quotes, LF or CRLF records).</summary>
    public static List<string[]> ParseCsv(string text)
    {
        var records = new List<string[]>();
        var fields = new List<string>();
        var field = new StringBuilder();
        bool quoted = false,
            any = false;
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            if (quoted)
            {
                if (c == '"')
                {
                    if (i + 1 < text.Length && text[i + 1] == '"')
                    {
                        field.Append('"');
                        i++;
                    }
                    else
                    {
                        quoted = false;
                    }
                }
                else
                {
                    field.Append(c);
                }

                continue;
            }

            switch (c)
            {
                case '"':
                    Assert.That(field.Length, Is.Zero, "a quote inside an unquoted field at " + i);
                    quoted = true;
                    any = true;
                    break;
                case ',':
                    fields.Add(field.ToString());
                    field.Clear();
                    any = true;
                    break;
                case '\r':
                    break;
                case '\n':
                    fields.Add(field.ToString());
                    records.Add([.. fields]);
                    fields.Clear();
                    field.Clear();
                    any = false;
                    break;
                default:
                    field.Append(c);
                    any = true;
                    break;
            }
        }

        Assert.That(quoted, Is.False, "unterminated quoted field");
        if (any || field.Length > 0)
        {
            fields.Add(field.ToString());
            records.Add([.. fields]);
        }

        return records;
    }
}
