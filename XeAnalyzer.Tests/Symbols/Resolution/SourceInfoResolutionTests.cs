using System.Buffers.Binary;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Tests.Analysis;
using XeAnalyzer.Tests.Symbols.Pdb;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>The resolver's source lines and inline frames (<see cref="CallstackResolverOptions.IncludeSourceLines"/>,
/// <see cref="CallstackResolverOptions.IncludeInlineFrames"/>).</summary>
public class SourceInfoResolutionTests
{
    private static readonly string Lines = Path.Combine(TestPaths.TestData, "lines");

    [Test]
    public void Resolve_GivesInlineFramesAsResolutionsOfTheirOwn_WithFileAndLine()
    {
        using CallstackResolver resolver = Resolver(Lines);
        FrameResolution r = resolver
            .Resolve(new XeAnalyzer.Callstacks.FrameParser().ParseLine("xelines.dll+0x1020")[0])
            .Resolution;
        Assert.That(
            (r.Function, r.SourceFile, r.SourceLine, r.IsInline),
            Is.EqualTo(("Top", @"C:\src\xelines.cpp", (int?)28, false))
        );
        Assert.That(
            r.InlineFrames.Select(f => (f.Function, f.SourceFile, f.SourceLine, f.IsInline, f.IsVerified)),
            Is.EqualTo(
                new[]
                {
                    ("xe::Leaf", @"C:\src\xelines.h", (int?)21, true, true),
                    ("Mid", @"C:\src\xelines.cpp", (int?)19, true, true),
                }
            )
        );
        Assert.That(
            r.TextWithInlineFrames,
            Is.EqualTo(
                "(Inline Function) xelines.dll!xe::Leaf+0x1 [C:\\src\\xelines.h @ 21]\n(Inline Function) "
                    + "xelines.dll!Mid+0x1 [C:\\src\\xelines.cpp @ 19]\nxelines.dll!Top+0x10 [C:\\src\\xelines.cpp @ "
                    + "28]"
            )
        );
    }

    [Test]
    public void Resolve_WithADamagedLineTable_StillResolvesTheFrame_AndReportsTheProblemOnce()
    {
        using var tmp = new TempFolder();
        File.Copy(Path.Combine(Lines, "xelines.dll"), tmp.File("xelines.dll"));
        var msf = MsfTestFile.Read(File.ReadAllBytes(Path.Combine(Lines, "xelines.pdb")));
        byte[] dbi = msf.Streams[3]!;
        int stream = BinaryPrimitives.ReadUInt16LittleEndian(dbi.AsSpan(64 + 34));
        int c13 = (int)(
            BinaryPrimitives.ReadUInt32LittleEndian(dbi.AsSpan(64 + 36))
            + BinaryPrimitives.ReadUInt32LittleEndian(dbi.AsSpan(64 + 40))
        );
        // the first subsection's length
        BinaryPrimitives.WriteUInt32LittleEndian(msf.Streams[stream].AsSpan(c13 + 4), 0x7FFFFFF0);
        File.WriteAllBytes(tmp.File("xelines.pdb"), msf.Write(4096, scatter: false));

        using CallstackResolver resolver = Resolver(tmp.Path);
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            "xelines.dll+0x1020\nxelines.dll+0x10cf",
            resolver
        );
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(new[] { "xelines.dll!Top+0x10", "xelines.dll!Count+0x2f" })
        );
        PdbBinding b = summary.Pdbs.Single();
        Assert.That(b.IsLoaded && b.IsVerified, Is.True);
        Assert.That(
            b.SourceInfoProblem,
            Does.StartWith("source lines and inline frames unavailable: ").And.Contain("debug subsection")
        );
        Assert.That(
            XeAnalyzer.Output.OutputFormats.ToText(new XeAnalyzer.Analysis.ResolutionSummaryDocument(summary)),
            Does.Contain("\n  source lines and inline frames unavailable")
        );
    }

    private static CallstackResolver Resolver(string folder) =>
        new(
            new CallstackResolverOptions
            {
                SymbolPath = SymbolPath.Parse(folder),
                Binaries = ModuleBinaries.Scan([folder]),
                Offline = true,
                IncludeSourceLines = true,
                IncludeInlineFrames = true,
            }
        );
}
