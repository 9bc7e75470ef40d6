using XeAnalyzer.Callstacks;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// Frames of another build of a module must not pick up the name of the last public of the PDB at hand:
/// nearest-preceding-public lookup has no upper bound, so the resolver checks the RVA against the image the PDB
/// describes.
/// </summary>
public class BeyondImageTests
{
    [Test]
    public void Resolve_LeavesFrameUnresolved_WhenRvaLiesPastTheImageOfTheMatchedBuild()
    {
        // The fixture sqlmin.dll image is far smaller than 0x63475A (a real SQL Server 2016 sqlmin offset from
        // lock_hash).
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: true);
        ResolvedFrame f = resolver.Resolve(new FrameParser().ParseLine("sqlmin.dll+0x000000000063475A")[0]);
        Assert.That(f.Resolution.Status, Is.EqualTo(FrameResolutionStatus.Unresolved));
        Assert.That(f.Resolution.Reason, Is.EqualTo(UnresolvedReason.BeyondImage));
        Assert.That(
            f.Resolution.ReasonText,
            Does.Contain("0x63475a").And.Contain("sqlmin.pdb").And.Contain("another build")
        );
    }

    [Test]
    public void Resolve_StillResolvesTheLastFunction_WhenRvaIsInsideTheImage()
    {
        // RowsetBulk::InsertRow+0x23a9 is one of the largest offsets of the seed stacks and lies inside the fixture
        // image.
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: true);
        string text = ResolutionFixtures.StackAModuleOffsetText();
        (string output, ResolutionSummary summary) = ResolutionFixtures.ResolveText(text, resolver);
        Assert.That(ResolutionFixtures.Lines(output), Is.EqualTo(ResolutionFixtures.PublishedStackA));
        Assert.That(summary.Unresolved, Is.EqualTo(0));
    }
}
