using System.Text.Json;

namespace XeAnalyzer.Output;

/// <summary>
/// Writes the flame graph of a document (format <c>speedscope</c>, the <see cref="DocumentView.Figure"/> view: its
/// first
/// <see cref="FlameGraph"/>'s <see cref="CallTree"/>; the profile is named after the document's title) as a speedscope
/// file (https://www.speedscope.app/file-format-schema.json): the distinct frame names in <c>shared.frames</c> (in
/// first-visit order of a depth-first walk, children by name), and one
/// <c>sampled</c> profile with one sample per distinct path that has self weight — frame indices root first (the
/// synthetic root omitted) — and a <c>weights</c> array of the same length holding the self weights. <c>endValue</c> is
/// the total weight. The unit is <c>none</c>, <c>bytes</c> or <c>milliseconds</c> from <see cref="CallTree.Unit"/>.
/// Only the current weights of a differential tree are written (speedscope has no differential view).
/// Property order is fixed; output is deterministic.
/// </summary>
internal sealed class SpeedscopeWriter : IReportWriter
{
    /// <summary>The schema URL every speedscope file names.</summary>
    public const string SchemaUrl = "https://www.speedscope.app/file-format-schema.json";

    /// <summary>Creates the writer.</summary>
    /// <param name="indented">Whether to indent the JSON (default <see langword="false"/>: files can be large).</param>
    public SpeedscopeWriter(bool indented = false)
    {
        Indented = indented;
    }

    /// <summary>Whether the JSON is indented.</summary>
    public bool Indented { get; }

    /// <inheritdoc/>
    public string Format => "speedscope";

    /// <inheritdoc/>
    public string FileExtension => ".speedscope.json";

    /// <inheritdoc/>
    public DocumentView View => DocumentView.Figure;

    /// <summary>The speedscope unit name of a weight unit.</summary>
    /// <param name="unit">The unit.</param>
    /// <returns><c>none</c>, <c>bytes</c>, <c>milliseconds</c> or <c>microseconds</c>.</returns>
    public static string UnitName(WeightUnit unit) =>
        unit switch
        {
            WeightUnit.Bytes => "bytes",
            WeightUnit.Milliseconds => "milliseconds",
            WeightUnit.Microseconds => "microseconds",
            _ => "none",
        };

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The document has no flame graph.</exception>
    public void Write(ReportDocument document, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(document);
        ArgumentNullException.ThrowIfNull(output);
        CallTree tree = FlameGraph.Find(document).Tree;
        string profileName = document.Title.Length > 0 ? document.Title : "XeAnalyzer";
        // Names sanitising changes are few; the rest are compared as they are.
        var sanitized = new Dictionary<int, string>();
        for (int i = 1; i < tree.NodeCount; i++)
        {
            string name = TextEscaping.Sanitize(tree.NameOf(i));
            if (!ReferenceEquals(name, tree.NameOf(i)))
            {
                sanitized.Add(i, name);
            }
        }

        string FrameName(int i) => sanitized.TryGetValue(i, out string? name) ? name : tree.NameOf(i);

        // Each node first points at the first-visited node of its frame name.
        var frameOf = new int[tree.NodeCount];
        int[] byName = tree.NodesByName(FrameName, static _ => true);
        for (int k = 0; k < byName.Length; )
        {
            int first = byName[k];
            for (
                ;
                k < byName.Length && string.Equals(FrameName(byName[k]), FrameName(first), StringComparison.Ordinal);
                k++
            )
            {
                frameOf[byName[k]] = first;
            }
        }

        cancellationToken.ThrowIfCancellationRequested();
        using (var json = new Utf8JsonWriter(output, JsonOutput.Options(Indented)))
        {
            json.WriteStartObject();
            json.WriteString("$schema", SchemaUrl);
            json.WriteString("exporter", ReportDocument.DefaultGenerator);
            json.WriteSafeString("name", profileName);
            json.WriteNumber("activeProfileIndex", 0);
            json.WriteStartObject("shared");
            json.WriteStartArray("frames");
            // Frames are numbered in first-visit order of the depth-first walk (the tree's order): a node that first
            // visits its name takes the next number, the others the number of that first node.
            int frames = 0;
            for (int i = 1; i < tree.NodeCount; i++)
            {
                if (frameOf[i] != i)
                {
                    frameOf[i] = frameOf[frameOf[i]];
                    continue;
                }

                frameOf[i] = frames++;
                json.WriteStartObject();
                json.WriteString("name", FrameName(i));
                json.WriteEndObject();
                json.FlushIfLarge(cancellationToken);
            }

            json.WriteEndArray();
            json.WriteEndObject();
            json.WriteStartArray("profiles");
            json.WriteStartObject();
            json.WriteString("type", "sampled");
            json.WriteSafeString("name", profileName);
            json.WriteString("unit", UnitName(tree.Unit));
            json.WriteNumber("startValue", 0);
            json.WriteNumber("endValue", tree.TotalWeight);
            json.WriteStartArray("samples");
            var path = new List<int>();
            for (int i = 0; i < tree.NodeCount; i++)
            {
                if (tree.SelfWeightOf(i) == 0)
                {
                    continue;
                }

                path.Clear();
                for (int n = i; n > 0; n = tree.ParentOf(n))
                {
                    path.Add(frameOf[n]);
                }

                json.WriteStartArray();
                for (int k = path.Count - 1; k >= 0; k--)
                {
                    json.WriteNumberValue(path[k]);
                }

                json.WriteEndArray();
                json.FlushIfLarge(cancellationToken);
            }

            json.WriteEndArray();
            json.WriteStartArray("weights");
            for (int i = 0; i < tree.NodeCount; i++)
            {
                if (tree.SelfWeightOf(i) != 0)
                {
                    json.WriteNumberValue(tree.SelfWeightOf(i));
                    json.FlushIfLarge(cancellationToken);
                }
            }

            json.WriteEndArray();
            json.WriteEndObject();
            json.WriteEndArray();
            json.WriteEndObject();
            json.Flush();
        }

        output.Flush();
    }
}
