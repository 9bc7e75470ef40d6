using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// Seed stack A (SEED-STACKS.md §1) captured as module+offset (RVAs from tools/fixtures/expected/stacks.tsv) resolves
/// to exactly the published in-engine text, in every style; in-engine frames pass through normalised, so both bucket
/// together.
/// </summary>
public class SeedStackTests
{
    [Test]
    public void Resolve_StackA_GivesThePublishedText_InEngineStyle()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            ResolutionFixtures.StackAModuleOffsetText(),
            resolver
        );
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(summary.ResolvedOffline, Is.EqualTo(24));
        Assert.That(summary.Unresolved, Is.Zero);
        Assert.That(summary.Unverified, Is.Zero);
    }

    [Test]
    public void Resolve_StackA_GivesDecimalDisplacements_InResolverStyle()
    {
        // The peer's form: module without .dll, displacement in decimal (0x1a9 = 425), derived here from the published
        // hex text.
        string[] expected = ResolutionFixtures.PublishedStackA.Select(ToResolverStyle).ToArray();
        Assert.That(expected[0], Is.EqualTo("sqlmin!XeSqlPkg::latch_acquired::Publish+425"));
        using CallstackResolver resolver = ResolutionFixtures.Resolver(style: FrameStyle.Resolver);
        (string output, _) = ResolutionFixtures.ResolveText(ResolutionFixtures.StackAModuleOffsetText(), resolver);
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(expected));
    }

    [Test]
    public void Resolve_StackA_InWinDbgStyle_DropsTheExtensionAndKeepsHex()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(style: FrameStyle.WinDbg);
        (string output, _) = ResolutionFixtures.ResolveText(ResolutionFixtures.StackAModuleOffsetText(), resolver);
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(
                ResolutionFixtures
                    .PublishedStackA.Select(l => l.Replace(".dll!", "!", StringComparison.Ordinal))
                    .ToArray()
            )
        );
    }

    [Test]
    public void Resolve_StackA_WithoutOffsets_WritesModuleAndFunctionOnly()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(offsets: false);
        (string output, _) = ResolutionFixtures.ResolveText(ResolutionFixtures.StackAModuleOffsetText(), resolver);
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(ResolutionFixtures.PublishedStackA.Select(l => l[..l.LastIndexOf('+')]).ToArray())
        );
    }

    [TestCase(FrameStyle.Engine)]
    [TestCase(FrameStyle.Resolver)]
    [TestCase(FrameStyle.WinDbg)]
    public void Resolve_InEngineStackA_PassesThroughAndEqualsTheOfflineResolution(FrameStyle style)
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(style: style);
        (string offline, _) = ResolutionFixtures.ResolveText(ResolutionFixtures.StackAModuleOffsetText(), resolver);
        (string inEngine, ResolutionSummary summary) = ResolutionFixtures.ResolveText(
            string.Join("\n", ResolutionFixtures.PublishedStackA),
            resolver
        );
        Assert.That(inEngine, Is.EqualTo(offline), "in-engine and offline-resolved stacks must bucket together");
        Assert.That(summary.InEngine, Is.EqualTo(24));
        Assert.That(summary.ResolvedOffline, Is.Zero);
        Assert.That(summary.Shapes.Keys, Is.EquivalentTo(new[] { StackShape.SymbolizedInEngine }));
    }

    [Test]
    public void Resolve_InEngineHexWithoutPrefix_IsReadAsHex_AndModuleLessNamesGetNoModule()
    {
        // Paul Randal's abbreviated form: module-less and module-qualified frames, hex offsets without 0x.
        string text = "XeSqlPkg::latch_suspend_end::Publish+138\nsqlTsEs.dll!CEsExec::GeneralEval+1a9";
        using CallstackResolver resolver = ResolutionFixtures.Resolver(style: FrameStyle.Resolver);
        (string output, _) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(
                new[]
                {
                    "XeSqlPkg::latch_suspend_end::Publish+" + 0x138.ToString(CultureInfo.InvariantCulture),
                    "sqlTsEs!CEsExec::GeneralEval+" + 0x1a9.ToString(CultureInfo.InvariantCulture),
                }
            )
        );
    }

    [Test]
    public void Resolve_ResolverOutputReadAsDecimal_RoundTripsToTheEngineText()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        string resolverText = string.Join("\n", ResolutionFixtures.PublishedStackA.Select(ToResolverStyle));
        (string output, _) = ResolutionFixtures.ResolveText(
            resolverText,
            resolver,
            new CallstackTextResolverOptions { SymbolizedOffsetRadix = OffsetRadix.Decimal }
        );
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
    }

    [Test]
    public void Resolve_StackWithoutModuleExtension_GetsDllInEngineStyle()
    {
        // Stack D was published as sqldk!Name (no offsets); engine style names the file as SQL Server does.
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, _) = ResolutionFixtures.ResolveText(
            "sqldk!XeSosPkg::wait_info_external::Publish\nsqlservr!SOS_Task::PushWait",
            resolver
        );
        Assert.That(
            ResolutionFixtures.Lines(output),
            Is.EqualTo(new[] { "sqldk.dll!XeSosPkg::wait_info_external::Publish", "sqlservr.exe!SOS_Task::PushWait" })
        );
    }

    [TestCase(1)]
    [TestCase(2)]
    public void Resolve_FrameNumbers_AreKeptAsTwoHexDigits(int workers)
    {
        string text = string.Join(
            "\n",
            ResolutionFixtures
                .SeedFrames("A")
                .Take(12)
                .Select(
                    (r, i) =>
                        i.ToString("x2", CultureInfo.InvariantCulture) + " " + r["module"] + ".dll+" + r["frame_rva"]
                )
        );
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string output, _) = ResolutionFixtures.ResolveText(
            text,
            resolver,
            new CallstackTextResolverOptions { Workers = workers }
        );
        string[] expected = ResolutionFixtures
            .PublishedStackA.Take(12)
            .Select((l, i) => i.ToString("x2", CultureInfo.InvariantCulture) + " " + l)
            .ToArray();
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(expected));
        Assert.That(expected[10], Does.StartWith("0a "));
    }

    private static string ToResolverStyle(string engine)
    {
        int plus = engine.LastIndexOf("+0x", StringComparison.Ordinal);
        long displacement = long.Parse(
            engine.AsSpan(plus + 3),
            NumberStyles.AllowHexSpecifier,
            CultureInfo.InvariantCulture
        );
        return engine[..plus].Replace(".dll!", "!", StringComparison.Ordinal)
            + "+"
            + displacement.ToString(CultureInfo.InvariantCulture);
    }
}
