using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.TargetData;

/// <summary>Options for <see cref="TargetDataReader"/>.</summary>
internal sealed class TargetDataReaderOptions
{
    /// <summary>The defaults: no file name, <see cref="TextInputLimits.Default"/>.</summary>
    public static TargetDataReaderOptions Default { get; } = new();

    /// <summary>The input's file name, used in error messages; <see langword="null"/> for a stream or pasted
    /// text.</summary>
    public string? FilePath { get; init; }

    /// <summary>Caps on line length, value length, XML depth and counts.</summary>
    public TextInputLimits Limits { get; init; } = TextInputLimits.Default;

    /// <summary>
    /// Whether plain-text values bypass the XML reader's text scan (see <see cref="XmlValueLifter"/>); on by default.
    /// Off only to check, in tests, that it changes nothing.
    /// </summary>
    internal bool LiftValues { get; init; } = true;
}

/// <summary>
/// Streams Extended Events target data (the <c>target_data</c> XML of <c>sys.dm_xe_session_targets</c>, ring-buffer and
/// histogram captures, <c>event_data</c> rows): histogram/bucketizer slots, ring_buffer and pair_matching events,
/// event_counter counts and event_file entries. The input may hold several roots with free text between them, may be
/// HTML-escaped as a whole (<c>&amp;lt;HistogramTarget …&amp;gt;</c>), may use CR LF or LF and may start with a BOM.
/// Nothing is loaded whole: each root is read with an
/// <see cref="System.Xml.XmlReader"/> (DTDs prohibited, no resolver) and text outside roots line by line.
/// </summary>
internal static class TargetDataReader
{
    /// <summary>Streams the elements of a target-data input.</summary>
    /// <param name="input">The text; not disposed.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults.</param>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    /// <returns>Elements in input order: for each root a <see cref="TargetStart"/>, its items, then a
    /// <see cref="TargetEnd"/>; free text as <see cref="TargetFreeText"/>.</returns>
    /// <exception cref="InvalidTextInputException">Malformed XML, a DTD, an over-long line or value, or a bad number,
    /// with the line.</exception>
    public static IEnumerable<TargetDataElement> Read(
        TextReader input,
        TargetDataReaderOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(input);
        options ??= TargetDataReaderOptions.Default;
        return Iterate(
            new TextSource(input, options.FilePath, options.Limits, ownsReader: false, liftValues: options.LiftValues),
            cancellationToken
        );
    }

    /// <summary>Streams the elements of a target-data file (UTF-8 unless a BOM says otherwise); the file is opened
    /// shared and closed when the enumeration ends.</summary>
    /// <param name="path">The file.</param>
    /// <param name="options">Options, or <see langword="null"/> for the defaults;
    /// <see cref="TargetDataReaderOptions.FilePath"/> defaults to <paramref name="path"/>.</param>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    /// <returns>Elements in input order.</returns>
    /// <exception cref="InvalidTextInputException">Malformed input, with the file and line.</exception>
    public static IEnumerable<TargetDataElement> ReadFile(
        string path,
        TargetDataReaderOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        options ??= TargetDataReaderOptions.Default;
        return IterateFile(path, options, cancellationToken);
    }

    private static IEnumerable<TargetDataElement> IterateFile(
        string path,
        TargetDataReaderOptions options,
        CancellationToken cancellationToken
    )
    {
        using StreamReader reader = TextInput.OpenText(path);
        foreach (
            TargetDataElement e in Iterate(
                new TextSource(
                    reader,
                    options.FilePath ?? path,
                    options.Limits,
                    ownsReader: false,
                    liftValues: options.LiftValues
                ),
                cancellationToken
            )
        )
        {
            yield return e;
        }
    }

    private static IEnumerable<TargetDataElement> Iterate(TextSource source, CancellationToken cancellationToken)
    {
        using (source)
        {
            int targetIndex = 0;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                ScanKind kind = source.Next();
                if (kind == ScanKind.End)
                {
                    yield break;
                }

                if (kind == ScanKind.Text)
                {
                    if (!string.IsNullOrWhiteSpace(source.Text))
                    {
                        yield return new TargetFreeText(source.ItemLine, source.Text);
                    }

                    continue;
                }

                foreach (TargetDataElement e in TargetXmlParser.ParseRoot(source, targetIndex++, cancellationToken))
                {
                    yield return e;
                }
            }
        }
    }
}
