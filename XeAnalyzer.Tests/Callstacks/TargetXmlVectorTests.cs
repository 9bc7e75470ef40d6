using System.Globalization;
using System.Text.RegularExpressions;
using XeAnalyzer.Callstacks;
using XeAnalyzer.TargetData;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary>
/// The real SQL Server 2016 captures in ../shared/vectors/target-xml, checked against the peer's resolved output
/// (<c>Slot_N [count:C]:</c> headers, one resolved line per frame).
/// </summary>
public partial class TargetXmlVectorTests
{
    private sealed record ResolvedSlot(int Number, ulong Count, List<string> Frames);

    [GeneratedRegex(@"^Slot_(\d+)\s+\[count:(\d+)\]:\s*$")]
    private static partial Regex SlotHeader();

    private static List<ResolvedSlot> ReadResolved(string path)
    {
        var slots = new List<ResolvedSlot>();
        foreach (string line in File.ReadLines(path))
        {
            Match m = SlotHeader().Match(line);
            if (m.Success)
            {
                slots.Add(
                    new ResolvedSlot(
                        int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture),
                        ulong.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture),
                        []
                    )
                );
            }
            else if (slots.Count > 0 && !string.IsNullOrWhiteSpace(line))
            {
                slots[^1].Frames.Add(line.Trim());
            }
        }

        return slots;
    }

    /// <summary>The module of a resolved line (<c>sqldk!Foo</c> → <c>sqldk</c>), or of an echoed unresolved
    /// frame.</summary>
    private static string ResolvedModuleKey(string line)
    {
        int bang = line.IndexOf('!', StringComparison.Ordinal);
        string module = bang > 0 ? line[..bang] : line[..line.IndexOf('+', StringComparison.Ordinal)];
        return ModuleName.Create(module).Key;
    }

    [TestCase("lock_hash")]
    [TestCase("memobj")]
    public void ReadStacks_KeepsEverySlotCountAndFrame_OfHistogramVector(string name)
    {
        string xml = TestPaths.RequireVector("target-xml", name + "_histogram.xml");
        List<ResolvedSlot> resolved = ReadResolved(TestPaths.RequireVector("target-xml", name + "_resolved.txt"));

        using StackTextReader reader = StackTextReader.OpenFile(xml);
        List<Callstack> stacks = reader.ReadStacks().ToList();

        Assert.That(stacks, Has.Count.EqualTo(resolved.Count));
        for (int i = 0; i < stacks.Count; i++)
        {
            Callstack s = stacks[i];
            ResolvedSlot r = resolved[i];
            Assert.That(s.Header!.SlotNumber, Is.EqualTo(r.Number), $"slot {i}");
            Assert.That(s.Header.SlotCount, Is.EqualTo(r.Count), $"slot {i} count");
            Assert.That(s.Frames.Length, Is.EqualTo(r.Frames.Count), $"slot {i} frames");
            Assert.That(s.Lines.All(l => l.HasFrames && l.Frames.Count == 1), Is.True, $"slot {i}: one frame per line");
            for (int f = 0; f < s.Frames.Length; f++)
            {
                var frame = (ModuleOffsetFrame)s.Frames[f];
                Assert.That(frame.ModuleName.Key, Is.EqualTo(ResolvedModuleKey(r.Frames[f])), $"slot {i} frame {f}");
            }
        }

        Assert.That(stacks.Select(s => s.Header!.Target).Distinct().Count(), Is.EqualTo(1));
    }

    [Test]
    public void ReadStacks_ReadsRingBufferVector_AndKeepsUnresolvableModulesVerbatim()
    {
        string xml = TestPaths.RequireVector("target-xml", "oom_ring_buffer.xml");
        string[] resolved = File.ReadAllLines(TestPaths.RequireVector("target-xml", "oom_resolved.txt"))
            .Where(l => l.Length > 0)
            .ToArray();

        List<Callstack> stacks = StackTextReader.Parse(File.ReadAllText(xml)).ToList();
        Assert.That(stacks, Has.Count.EqualTo(6));
        Assert.That(
            stacks.All(s => s.Header!.Event!.Name == "error_reported" && s.Header.Field!.Name == "callstack"),
            Is.True
        );
        Assert.That(stacks.All(s => s.Header!.Event!.FindField("error_number")!.ValueText == "701"), Is.True);

        Callstack first = stacks[0];
        Assert.That(first.Frames.Length, Is.EqualTo(resolved.Length));
        for (int f = 0; f < resolved.Length; f++)
        {
            Assert.That(first.Frames[f].Module!.Key, Is.EqualTo(ResolvedModuleKey(resolved[f])), $"frame {f}");
            if (!resolved[f].Contains('!', StringComparison.Ordinal))
            {
                // The peer could not resolve the natively compiled procedure's frames and echoed them: so do we keep
                // them.
                Assert.That(first.Frames[f].Raw, Is.EqualTo(resolved[f]), $"frame {f}");
            }
        }
    }

    [Test]
    public void Read_ReadsEveryHistogramSlot_OfMemObjVector_ThroughTargetDataReader()
    {
        string xml = TestPaths.RequireVector("target-xml", "memobj_histogram.xml");
        List<ResolvedSlot> resolved = ReadResolved(TestPaths.RequireVector("target-xml", "memobj_resolved.txt"));
        List<TargetDataElement> items = TargetDataReader.ReadFile(xml).ToList();
        List<HistogramSlot> slots = items.OfType<HistogramSlot>().ToList();
        Assert.That(slots.Select(s => s.Count), Is.EqualTo(resolved.Select(r => r.Count)));
        var end = (TargetEnd)items[^1];
        Assert.That(end.ItemCount, Is.EqualTo(195));
        Assert.That(end.MayHaveMergedValues, Is.False);
    }

    [Test]
    public void Parse_LockHashBaseAddressVector()
    {
        ModuleMap map = ModuleMap.Load(TestPaths.RequireVector("target-xml", "lock_hash_base_addresses.txt"));

        // 155 lines: 149 .dll and 1 .exe kept; 5 .RLL resources and 1 .drv left out.
        Assert.That(map.Modules, Has.Count.EqualTo(150));
        Assert.That(map.SkippedEntries, Is.EqualTo(6));
        LoadedModule sqllang = map.Modules.Single(m => m.Name.Key == "sqllang");
        Assert.That(sqllang.BaseAddress, Is.EqualTo(0x00007FFEA9660000UL));
        Assert.That(
            sqllang.Path,
            Is.EqualTo(@"C:\Program Files\Microsoft SQL Server\MSSQL13.SQL2016\MSSQL\Binn\sqllang.dll")
        );

        Assert.That(map.TryResolve(0x00007FFEA9660000UL + 0x4108F1, out LoadedModule? m, out ulong rva), Is.True);
        Assert.That(m!.Name.Key, Is.EqualTo("sqllang"));
        Assert.That(rva, Is.EqualTo(0x4108F1UL));

        LoadedModule sqlservr = map.Modules.Single(x => x.Name.Key == "sqlservr");
        Assert.That(sqlservr.BaseAddress, Is.EqualTo(0x00007FF6E0900000UL));
        for (int i = 1; i < map.Modules.Count; i++)
        {
            Assert.That(map.Modules[i - 1].EndAddress, Is.EqualTo(map.Modules[i].BaseAddress - 1));
        }

        Assert.That(map.Modules[^1].EndAddress, Is.EqualTo(ulong.MaxValue));
    }
}
