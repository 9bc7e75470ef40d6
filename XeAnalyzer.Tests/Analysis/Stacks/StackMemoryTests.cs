using System.Text;
using XeAnalyzer.Analysis.Stacks;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.Analysis.Stacks;

/// <summary>
/// The parts that keep memory per distinct stack bounded must not change what is written: a listing streamed to its
/// output, stdout decoded as written, and a past-the-image reason made when read.
/// </summary>
public class StackMemoryTests
{
    [Test]
    public void TextWriter_StreamsAListingOfManyStacks_ToTheBytesOfTheWholeText()
    {
        // Multi-byte characters and a surrogate pair make the 64 KB hand-overs fall inside characters somewhere.
        var list = new StackList(
            5_000,
            i => new StackListItem(
                "Bucket " + i + " é",
                [new StackListFrame("sqlmin.dll!Fn" + i + "+0x1 \U0001F600"), new StackListFrame("ü" + i)]
            ),
            ["note"]
        );
        var doc = new ReportDocument(
            "T",
            [new ReportSection(string.Empty, list), new ReportSection("S", new Paragraph("after"))]
        )
        {
            Generator = null,
        };
        var writer = new TextReportWriter();
        using var streamed = new MemoryStream();
        writer.Write(doc, streamed);

        var expected = new StringBuilder("T\n===\n\n");
        for (int i = 0; i < 5_000; i++)
        {
            expected
                .Append("Bucket ")
                .Append(i)
                .Append(" é\nsqlmin.dll!Fn")
                .Append(i)
                .Append("+0x1 \U0001F600\nü")
                .Append(i)
                .Append("\n\n");
        }

        expected.Append("note\n\nS\n---\nafter\n");
        Assert.That(Encoding.UTF8.GetString(streamed.ToArray()), Is.EqualTo(expected.ToString()));
        Assert.That(writer.FormatReport(doc), Is.EqualTo(expected.ToString()));
    }

    [Test]
    public void TextWriterStream_DecodesCharactersSplitBetweenWrites()
    {
        const string text = "a é \U0001F600 ü z";
        byte[] bytes = Encoding.UTF8.GetBytes(text);
        using var sw = new StringWriter();
        using (var s = new TextWriterStream(sw))
        {
            foreach (byte b in bytes)
            {
                s.Write([b], 0, 1);
            }
        }

        Assert.That(sw.ToString(), Is.EqualTo(text));
    }

    [Test]
    public void BucketFrame_PastTheImage_ReadsTheResolversReason_AndEqualsItsWrittenOutTwin()
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver(withBuild: true);
        ResolvedFrame f = resolver.Resolve(new FrameParser().ParseLine("sqlmin.dll+0x000000000063475A")[0]);
        var frame = new BucketFrame("sqlmin.dll+0x000000000063475A", f.Resolution, s => s);
        Assert.That(
            frame.UnresolvedReason,
            Does.StartWith("RVA 0x63475a lies past the end of the image sqlmin.pdb describes (0x")
                .And.EndWith("): the PDB (or the DLL given with --binaries) is of another build")
        );
        Assert.That(frame.UnresolvedReason, Is.EqualTo(f.Resolution.ReasonText));

        var twin = new BucketFrame(
            frame.Text,
            frame.Status,
            frame.IsVerified,
            frame.Module,
            frame.Function,
            frame.UnresolvedReason
        );
        Assert.That(frame, Is.EqualTo(twin));
        Assert.That(frame.GetHashCode(), Is.EqualTo(twin.GetHashCode()));
        Assert.That(frame with { UnresolvedReason = "other" }, Is.Not.EqualTo(twin));
    }
}
