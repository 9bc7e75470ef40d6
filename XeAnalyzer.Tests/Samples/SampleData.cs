using System.Globalization;
using System.Text.RegularExpressions;
using XeAnalyzer.Events;
using XeAnalyzer.Xel;

namespace XeAnalyzer.Tests.Samples;

/// <summary>
/// Access to the committed samples of <c>sample-xel/</c> for the tests: the capture of a set (read with
/// <see cref="XelReader"/> only), its loaded-modules sidecar, the generator's documented figures, and the fixture frame
/// RVAs of <c>tools/fixtures/expected/stacks.tsv</c>. Everything here is parsed independently of the generator's code.
/// </summary>
internal static partial class SampleData
{
    public const string Latch = "latch_nesting_full";
    public const string Memory = "cci_insert_memory";
    public const string Waits = "blob_storage_waits";
    public const string RingBuffer = "ring_buffer_waits";
    public const string SystemHealth = "system_health_stacks";

    /// <summary>sample-xel/ring_buffer_waits/ring_buffer_waits.ring_buffer.xml: sample 5's events as ring_buffer target
    /// XML.</summary>
    public static string RingBufferXmlPath =>
        Path.Combine(TestPaths.Samples, RingBuffer, RingBuffer + ".ring_buffer.xml");

    /// <summary>sample-xel/latch_nesting_full_counter/latch_nesting_full.event_counter.xml: the event_counter target of
    /// SEED-STACKS §1.</summary>
    public static string EventCounterPath =>
        Path.Combine(TestPaths.Samples, "latch_nesting_full_counter", "latch_nesting_full.event_counter.xml");

    /// <summary>sample-xel/latch_nesting_full_histogram/latch_nesting_full.histogram.xml: the callstack histogram
    /// (module+offset frames).</summary>
    public static string CallstackHistogramPath =>
        Path.Combine(TestPaths.Samples, "latch_nesting_full_histogram", "latch_nesting_full.histogram.xml");

    /// <summary>The memory_clerk_name histogram of sample 2 (page_freed of session 64).</summary>
    public static string ClerkHistogramPath =>
        Path.Combine(
            TestPaths.Samples,
            "cci_insert_memory_histogram",
            "cci_insert_memory.page_freed.memory_clerk_name.histogram.xml"
        );

    /// <summary>The wait_type histogram of sample 3 (slot values are map keys).</summary>
    public static string WaitTypeHistogramPath =>
        Path.Combine(TestPaths.Samples, "blob_storage_waits_histogram", "blob_storage_waits.wait_type.histogram.xml");

    /// <summary>The sys.dm_xe_map_values rows that go with <see cref="WaitTypeHistogramPath"/>.</summary>
    public static string MapValuesPath =>
        Path.Combine(TestPaths.Samples, "blob_storage_waits_histogram", "blob_storage_waits.map_values.tsv");

    /// <summary><c>sample-xel/expected/&lt;name&gt;</c>.</summary>
    public static string Expected(string name) => Path.Combine(TestPaths.Samples, "expected", name);

    [GeneratedRegex(@"^(?<set>.+)_0_(?<ft>[0-9]{18})\.xel$")]
    public static partial Regex RolloverName();

    /// <summary>The single <c>&lt;set&gt;_0_&lt;FILETIME&gt;.xel</c> file of a sample set.</summary>
    public static string CapturePath(string set)
    {
        string dir = Path.Combine(TestPaths.Samples, set);
        Assert.That(Directory.Exists(dir), Is.True, "missing sample folder " + dir + " (run tools/samples/build.sh)");
        string[] files = Directory.GetFiles(dir, set + "_0_*.xel");
        Assert.That(files, Has.Length.EqualTo(1), "expected one rollover file of " + set + " in " + dir);
        return files[0];
    }

    /// <summary>The sidecar beside the capture: <c>&lt;set-name&gt;.modules.txt</c>.</summary>
    public static string SidecarPath(string set) => Path.Combine(TestPaths.Samples, set, set + ".modules.txt");

    /// <summary>Reads every event of the set's capture, in file order.</summary>
    public static List<XEvent> ReadAll(string set) => [.. XelReader.ReadEvents(CapturePath(set))];

    /// <summary><c>sample-xel/expected/&lt;set&gt;.figures.tsv</c> as name → value.</summary>
    public static Dictionary<string, string> Figures(string set)
    {
        string path = Path.Combine(TestPaths.Samples, "expected", set + ".figures.tsv");
        string[] lines = File.ReadAllLines(path);
        Assert.That(lines[0], Is.EqualTo("name\tvalue\tmeaning"), path);
        return lines
            .Skip(1)
            .Where(l => l.Length > 0)
            .Select(l => l.Split('\t'))
            .ToDictionary(c => c[0], c => c[1], StringComparer.Ordinal);
    }

    /// <summary>An integer figure.</summary>
    public static long Figure(Dictionary<string, string> figures, string name) =>
        long.Parse(figures[name], NumberStyles.None, CultureInfo.InvariantCulture);

    /// <summary>Parses a TSV file with a header into rows keyed by column name.</summary>
    public static List<Dictionary<string, string>> Tsv(string path)
    {
        string[] lines = File.ReadAllLines(path);
        string[] header = lines[0].Split('\t');
        var rows = new List<Dictionary<string, string>>();
        foreach (string line in lines.Skip(1).Where(l => l.Length > 0 && !l.StartsWith('#')))
        {
            string[] c = line.Split('\t');
            Assert.That(c, Has.Length.EqualTo(header.Length), path + ": " + line);
            rows.Add(header.Select((h, i) => (h, c[i])).ToDictionary(x => x.h, x => x.Item2, StringComparer.Ordinal));
        }

        return rows;
    }

    /// <summary>A fixture frame: module as stacks.tsv names it, function, published offset, RVA in the synthetic
    /// DLL.</summary>
    public sealed record FixtureFrame(string Module, string Function, string Offset, ulong Rva)
    {
        /// <summary>The module's file name (<c>sqlmin.dll</c>, <c>KERNEL32.DLL</c>).</summary>
        public string ModuleFile => Module.Contains('.', StringComparison.Ordinal) ? Module : Module + ".dll";
    }

    /// <summary>The seed stacks of <c>tools/fixtures/expected/stacks.tsv</c>, by id, leaf first.</summary>
    public static Dictionary<string, List<FixtureFrame>> FixtureStacks()
    {
        var result = new Dictionary<string, List<FixtureFrame>>(StringComparer.Ordinal);
        foreach (
            Dictionary<string, string> r in Tsv(
                Path.Combine(TestPaths.RepoRoot, "tools", "fixtures", "expected", "stacks.tsv")
            )
        )
        {
            bool foreign = r["function"] == "-";
            ulong rva = Hex(foreign ? r["offset"] : r["frame_rva"]);
            if (!result.TryGetValue(r["stack"], out List<FixtureFrame>? list))
            {
                list = [];
                result.Add(r["stack"], list);
            }

            list.Add(new FixtureFrame(r["module"], r["function"], r["offset"], rva));
        }

        return result;
    }

    /// <summary>Parses <c>0x</c>-prefixed hex.</summary>
    public static ulong Hex(string s)
    {
        Assert.That(s, Does.StartWith("0x"));
        return ulong.Parse(s.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
    }

    /// <summary>A <c>sys.dm_os_loaded_modules</c> sidecar: file name and base, with the documented range
    /// rule.</summary>
    public sealed class Modules
    {
        private readonly List<(string Name, string Path, ulong Base)> _sorted;

        public Modules(string path)
        {
            string[] lines = File.ReadAllLines(path);
            Assert.That(lines[0], Is.EqualTo("name\tbase_address"), path + ": header");
            Entries =
            [
                .. lines
                    .Skip(1)
                    .Select(l => l.Split('\t'))
                    .Select(c => (Name: c[0][(c[0].LastIndexOf('\\') + 1)..], Path: c[0], Base: Hex(c[1]))),
            ];
            _sorted = [.. Entries.OrderBy(e => e.Base)];
        }

        /// <summary>The lines in file order.</summary>
        public List<(string Name, string Path, ulong Base)> Entries { get; }

        /// <summary>The lowest base: addresses below it are in no module.</summary>
        public ulong LowestBase => _sorted[0].Base;

        /// <summary>The base of a module by file name (case-insensitive).</summary>
        public ulong BaseOf(string fileName) =>
            Entries.Single(e => string.Equals(e.Name, fileName, StringComparison.OrdinalIgnoreCase)).Base;

        /// <summary>The module whose range (its base up to the next higher base − 1; the last one to the top) holds
        /// <paramref name="va"/>, or null.</summary>
        public (string Name, ulong Rva)? Find(ulong va)
        {
            for (int i = _sorted.Count - 1; i >= 0; i--)
            {
                if (va >= _sorted[i].Base)
                {
                    return (_sorted[i].Name, va - _sorted[i].Base);
                }
            }

            return null;
        }

        /// <summary>A raw address as SQL Server renders a histogram frame without trace flag 3656.</summary>
        public string ModuleOffset(ulong va) =>
            Find(va) is (string name, ulong rva)
                ? name + "+0x" + rva.ToString("X16", CultureInfo.InvariantCulture)
                : "0x" + va.ToString("X16", CultureInfo.InvariantCulture);
    }

    /// <summary>SizeOfImage of a committed symbols-cache DLL, from its store folder name
    /// (<c>&lt;TimeDateStamp:X8&gt;&lt;SizeOfImage:x&gt;</c>).</summary>
    public static ulong SizeOfImage(string dll)
    {
        string[] dirs = Directory.GetDirectories(Path.Combine(TestPaths.SymbolsCache, dll));
        Assert.That(dirs, Has.Length.EqualTo(1), dll + " in symbols-cache");
        string key = Path.GetFileName(dirs[0]);
        return ulong.Parse(key.AsSpan(8), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
    }

    /// <summary>Events in true order: timestamp, then event_sequence.</summary>
    public static List<XEvent> TrueOrder(IEnumerable<XEvent> events) =>
        [.. events.OrderBy(e => e.Timestamp).ThenBy(e => e.GetAction("event_sequence").AsUInt64())];
}
