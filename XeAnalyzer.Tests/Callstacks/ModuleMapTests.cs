using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Tests.Callstacks;

/// <summary><c>sys.dm_os_loaded_modules</c> lists: XE-TEXT-SHAPES.md §9.2, accepted and rejected examples.</summary>
public class ModuleMapTests
{
    private static ModuleMap Parse(string text) => ModuleMap.Parse(new StringReader(text));

    [Test]
    public void Load_ReadsFixture_WithHeaderCrLfBackTickAndResources()
    {
        ModuleMap map = ModuleMap.Load(StackTextReaderTests.Fixture("loaded_modules_crlf.txt"));
        Assert.That(
            map.Modules.Select(m => m.Name.Key),
            Is.EqualTo(new[] { "sqldk", "sqlservr", "sqllang", "sqlmin", "kernel32", "ntdll" })
        );
        Assert.That(map.SkippedEntries, Is.EqualTo(1));

        // The documented range: sqllang spans 0x00007FFACB6F0000–0x00007FFAD089FFFF (up to sqlmin's base).
        LoadedModule sqllang = map.Modules.Single(m => m.Name.Key == "sqllang");
        Assert.That(sqllang.BaseAddress, Is.EqualTo(0x00007FFACB6F0000UL));
        Assert.That(sqllang.EndAddress, Is.EqualTo(0x00007FFAD089FFFFUL));
        Assert.That(sqllang.LineNumber, Is.EqualTo(5));

        LoadedModule sqldk = map.Modules[0];
        Assert.That(sqldk.BaseAddress, Is.EqualTo(0x0000000100400000UL));
        Assert.That(sqldk.Path, Is.EqualTo(@"c:\mssql\binn\sqldk.dll"));
        Assert.That(map.Modules[^1].EndAddress, Is.EqualTo(ulong.MaxValue));
        Assert.That(map.Modules.Single(m => m.Name.Key == "kernel32").Name.Name, Is.EqualTo("KERNEL32.DLL"));
    }

    [TestCase("c:\\mssql\\binn\\sqldk.dll 00000001`00400000", 0x0000000100400000UL)]
    [TestCase("sqldk.dll 0000000100400000", 0x0000000100400000UL)]
    [TestCase("sqldk.dll 0x0000000100400000", 0x0000000100400000UL)]
    [TestCase(
        "C:\\Program Files\\Microsoft SQL Server\\MSSQL14.SQL2017\\MSSQL\\Binn\\sqllang.dll\t0x00007FFACB6F0000",
        0x00007FFACB6F0000UL
    )]
    [TestCase("  C:\\WINDOWS\\SYSTEM32\\ntdll.DLL\t\t0x00007FFB63130000  ", 0x00007FFB63130000UL)]
    [TestCase("sqlservr.EXE    7FF72FF00000", 0x00007FF72FF00000UL)]
    public void Parse_AcceptsDocumentedLineForms(string line, ulong baseAddress)
    {
        ModuleMap map = Parse("name\tbase_address\n" + line + "\n");
        Assert.That(map.Modules.Single().BaseAddress, Is.EqualTo(baseAddress));
    }

    [TestCase("hello wor1213ld", "hex")]
    [TestCase("C:\\Windows\\System32\\KERNELBASE.dll\t0x00007FFEC0700000 0x7FFEC0700000", "two")]
    [TestCase("C:\\Windows\\System32\\KERNELBASE.dll\t0x0xaaa", "hex")]
    [TestCase("sqldk.dll 0xZZZ", "hex")]
    [TestCase("sqldk.dll 0x1FFFFFFFFFFFFFFFF", "64 bits")]
    [TestCase("sqldk.dll", "<module path>")]
    [TestCase("sqldk.dll 0001`0000`0000", "back-tick")]
    [TestCase("sqldk.dll\t0x1\textra.dll\t0x2", "extra fields")]
    public void Parse_RejectsMalformedLine_WithLineNumber(string badLine, string expectedPart)
    {
        var ex = Assert.Throws<InvalidTextInputException>(() =>
            Parse("C:\\WINDOWS\\SYSTEM32\\ntdll.dll\t0x00007FFB63130000\n" + badLine + "\n")
        );
        Assert.That(ex!.Line, Is.EqualTo(2));
        Assert.That(ex.Detail, Does.Contain(expectedPart));
        Assert.That(ex.Detail, Does.Contain("expected"));
    }

    [Test]
    public void Parse_RejectsDuplicateBase_NamingBothLines()
    {
        var ex = Assert.Throws<InvalidTextInputException>(() => Parse("a.dll 0x10000\nb.dll 0x20000\nc.dll 0x10000\n"));
        Assert.That(ex!.Line, Is.EqualTo(3));
        Assert.That(ex.Detail, Does.Contain("line 1"));
    }

    [Test]
    public void TryResolve_FindsTheOneRangeHoldingAnAddress()
    {
        ModuleMap map = Parse("a.dll 0x10000\nb.exe 0x20000\nc.dll 0x30000\nd.rll 0x28000\n");
        Assert.That(map.TryResolve(0x0FFFF, out _, out _), Is.False);
        Assert.That(map.TryResolve(0x10000, out LoadedModule? m, out ulong rva), Is.True);
        Assert.That((m!.Name.Key, rva), Is.EqualTo(("a", 0UL)));
        Assert.That(map.TryResolve(0x1FFFF, out m, out rva), Is.True);
        Assert.That((m!.Name.Key, rva), Is.EqualTo(("a", 0xFFFFUL)));

        // The .rll is left out, so b.exe runs up to c.dll's base.
        Assert.That(map.TryResolve(0x28010, out m, out rva), Is.True);
        Assert.That((m!.Name.Key, rva), Is.EqualTo(("b", 0x8010UL)));
        Assert.That(map.TryResolve(ulong.MaxValue, out m, out rva), Is.True);
        Assert.That((m!.Name.Key, rva), Is.EqualTo(("c", ulong.MaxValue - 0x30000)));
    }

    [Test]
    public void TryResolve_TurnsVirtualAddressFrameIntoModuleOffset()
    {
        ModuleMap map = ModuleMap.Load(StackTextReaderTests.Fixture("loaded_modules_crlf.txt"));
        var va = (VirtualAddressFrame)new FrameParser().ParseLine("0a 0x00007FFAD08A1234").Single();
        Assert.That(map.TryResolve(va, out ModuleOffsetFrame? f), Is.True);
        Assert.That(f!.ModuleName.Key, Is.EqualTo("sqlmin"));
        Assert.That(f.Offset, Is.EqualTo(0x1234UL));
        Assert.That(f.FrameNumber, Is.EqualTo(10));
        Assert.That(f.Raw, Is.EqualTo("0x00007FFAD08A1234"));
    }

    [Test]
    public void Parse_ReturnsEmptyMap_ForHeaderOnly()
    {
        ModuleMap map = Parse("name\tbase_address\r\n\r\n");
        Assert.That(map.Modules, Is.Empty);
        Assert.That(map.TryResolve(0x1000, out _, out _), Is.False);
    }
}
