using System.Text;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Resolution;
using XeAnalyzer.Tests.Callstacks;

namespace XeAnalyzer.Tests.Symbols.Resolution;

/// <summary>
/// The <see cref="CallstackTextResolver"/> pipeline (a parser thread, resolving threads, ordered writing) on plain
/// text, against the stack-by-stack reference: order, cancellation, failures.
/// </summary>
public class ResolvePipelineTests
{
    // 6,000 stacks of 25 frames: about ten batches, so with several workers each takes batches and writes for the
    // others.
    private static readonly string PlainText = new GeneratedInput(GeneratedInput.Shape.PlainText, 6000, 25).ReadToEnd();

    [TestCase(1)]
    [TestCase(2)]
    [TestCase(3)]
    public void Resolve_PlainText_GivesTheStackByStackOutput(int workers)
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        (string a, ResolutionSummary sa) = ResolutionFixtures.ResolveText(
            PlainText,
            resolver,
            new CallstackTextResolverOptions { Workers = workers }
        );
        (string b, ResolutionSummary sb) = ResolutionFixtures.ResolveStackByStack(PlainText, resolver);
        Assert.That(a, Is.EqualTo(b));
        Assert.That(sa.Frames, Is.EqualTo(150_000));
        Assert.That(sa.Frames, Is.EqualTo(sb.Frames));
        Assert.That(sa.ResolvedOffline, Is.EqualTo(sb.ResolvedOffline));
        Assert.That(sa.Unresolved, Is.EqualTo(sb.Unresolved));
    }

    [Test]
    public void Resolve_ToAStream_WritesTheSameUtf8AsToATextWriter_WithLongAndNonAsciiLines()
    {
        // A text line longer than the writer's buffer (written past it), non-ASCII text (a surrogate pair), and
        // ordinary stacks around them.
        string text =
            "Stack für Ω 😀\n"
            + PlainText[..20_000]
            + "\n"
            + new string('é', 400_000)
            + "\n"
            + PlainText[..5_000]
            + "\n";
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        var options = new CallstackTextResolverOptions { Limits = new TextInputLimits { MaxLineLength = 500_000 } };
        (string expected, _) = ResolutionFixtures.ResolveText(text, resolver, options);
        using var bytes = new MemoryStream();
        CallstackTextResolver.Resolve(new StringReader(text), bytes, resolver, options);
        byte[] written = bytes.ToArray();
        Assert.That(written, Is.EqualTo(new UTF8Encoding(false).GetBytes(expected)));
        Assert.That(
            written.AsSpan(0, 3).SequenceEqual(new UTF8Encoding(true).GetPreamble()),
            Is.False,
            "no byte order mark"
        );
        Assert.That(expected, Does.Contain("😀").And.Contain(new string('é', 400_000)).And.Contain("!"));
    }

    [TestCase(1)]
    [TestCase(2)]
    public void Resolve_StopsWithOperationCanceled_WhenTheTokenIsCanceledMidway(int workers)
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        using var cts = new CancellationTokenSource();
        using var input = new CancelingReader(PlainText, PlainText.Length / 2, cts);
        using var output = new StringWriter();
        Assert.That(
            () =>
                CallstackTextResolver.Resolve(
                    input,
                    output,
                    resolver,
                    new CallstackTextResolverOptions { Workers = workers },
                    cts.Token
                ),
            Throws.InstanceOf<OperationCanceledException>()
        );
        Assert.That(output.ToString().Length, Is.LessThan(PlainText.Length * 3));
    }

    [TestCase(1)]
    [TestCase(2)]
    public void Resolve_ReportsAMalformedInput_AfterWritingWhatTheStackByStackRunWrites(int workers)
    {
        using CallstackResolver resolver = ResolutionFixtures.Resolver();
        var limits = new TextInputLimits { MaxLineLength = 1000 };
        string text = PlainText + "\n" + new string('x', 2000) + "\nsqlmin.dll+0x1063\n";
        using var sequential = new StringWriter { NewLine = "\n" };
        Assert.Throws<InvalidTextInputException>(() =>
            ResolutionFixtures.ResolveStackByStack(
                text,
                sequential,
                resolver,
                new CallstackTextResolverOptions { Limits = limits }
            )
        );
        using var output = new StringWriter { NewLine = "\n" };
        InvalidTextInputException? error = Assert.Throws<InvalidTextInputException>(() =>
            CallstackTextResolver.Resolve(
                new StringReader(text),
                output,
                resolver,
                new CallstackTextResolverOptions
                {
                    Workers = workers,
                    Limits = limits,
                    InputName = "big.txt",
                }
            )
        );
        int badLine = Array.FindIndex(text.Split('\n'), l => l.Length == 2000) + 1;
        Assert.That(
            error!.Message,
            Does.Contain("big.txt")
                .And.Contain("line " + badLine.ToString(System.Globalization.CultureInfo.InvariantCulture))
        );
        Assert.That(
            output.ToString(),
            Is.EqualTo(sequential.ToString()),
            "what the stack-by-stack run wrote before the bad line is written, in order"
        );
        Assert.That(output.ToString().Length, Is.GreaterThan(PlainText.Length));
    }

    /// <summary>Cancels a token once the reader has handed out a given number of characters.</summary>
    private sealed class CancelingReader(string text, int cancelAfter, CancellationTokenSource cts) : TextReader
    {
        private readonly StringReader _inner = new(text);
        private int _read;

        public override int Read(char[] buffer, int index, int count)
        {
            int n = _inner.Read(buffer, index, Math.Min(count, 4096));
            _read += n;
            if (_read >= cancelAfter)
            {
                cts.Cancel();
            }

            return n;
        }

        public override int Read(Span<char> buffer)
        {
            char[] chunk = new char[Math.Min(buffer.Length, 4096)];
            int n = Read(chunk, 0, chunk.Length);
            chunk.AsSpan(0, n).CopyTo(buffer);
            return n;
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                _inner.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
