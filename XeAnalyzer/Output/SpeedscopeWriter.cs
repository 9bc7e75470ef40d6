using System.Text.Json;

namespace XeAnalyzer.Output;

/// <summary>
/// Writes a <see cref="CallTree"/> as a speedscope file (https://www.speedscope.app/file-format-schema.json): the distinct
/// frame names in <c>shared.frames</c> (in first-visit order of a depth-first walk, children by name), and one
/// <c>sampled</c> profile with one sample per distinct path that has self weight — frame indices root first (the
/// synthetic root omitted) — and a <c>weights</c> array of the same length holding the self weights. <c>endValue</c> is
/// the total weight. The unit is <c>none</c>, <c>bytes</c> or <c>milliseconds</c> from <see cref="CallTree.Unit"/>.
/// Only the current weights of a differential tree are written (speedscope has no differential view).
/// Property order is fixed; output is deterministic.
/// </summary>
public sealed class SpeedscopeWriter : ICallTreeWriter
{
    /// <summary>The schema URL every speedscope file names.</summary>
    public const string SchemaUrl = "https://www.speedscope.app/file-format-schema.json";

    /// <summary>Creates the writer.</summary>
    /// <param name="profileName">The profile name shown by speedscope (default "XeAnalyzer").</param>
    /// <param name="indented">Whether to indent the JSON (default <see langword="false"/>: files can be large).</param>
    public SpeedscopeWriter(string profileName = "XeAnalyzer", bool indented = false)
    {
        ArgumentNullException.ThrowIfNull(profileName);
        ProfileName = profileName;
        Indented = indented;
    }

    /// <summary>The profile name.</summary>
    public string ProfileName { get; }

    /// <summary>Whether the JSON is indented.</summary>
    public bool Indented { get; }

    /// <inheritdoc/>
    public string Format => "speedscope";

    /// <inheritdoc/>
    public string FileExtension => ".speedscope.json";

    /// <summary>The speedscope unit name of a weight unit.</summary>
    /// <param name="unit">The unit.</param>
    /// <returns><c>none</c>, <c>bytes</c> or <c>milliseconds</c>.</returns>
    public static string UnitName(WeightUnit unit) => unit switch
    {
        WeightUnit.Bytes => "bytes",
        WeightUnit.Milliseconds => "milliseconds",
        _ => "none",
    };

    /// <inheritdoc/>
    public async ValueTask WriteAsync(CallTree tree, Stream output, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(tree);
        ArgumentNullException.ThrowIfNull(output);
        var frameIndex = new Dictionary<string, int>(StringComparer.Ordinal);
        var frames = new List<string>();
        var samples = new List<int[]>();
        var weights = new List<long>();
        var path = new List<int>();
        var stack = new Stack<(CallTreeNode Node, bool Exit)>();
        stack.Push((tree.Root, false));
        while (stack.Count > 0)
        {
            (CallTreeNode node, bool exit) = stack.Pop();
            if (exit)
            {
                path.RemoveAt(path.Count - 1);
                continue;
            }

            if (node.Depth > 0)
            {
                string name = TextEscaping.Sanitize(node.Name);
                if (!frameIndex.TryGetValue(name, out int index))
                {
                    index = frames.Count;
                    frameIndex.Add(name, index);
                    frames.Add(name);
                }

                path.Add(index);
                stack.Push((node, true));
            }

            if (node.SelfWeight != 0)
            {
                samples.Add([.. path]);
                weights.Add(node.SelfWeight);
            }

            for (int i = node.Children.Count - 1; i >= 0; i--)
            {
                stack.Push((node.Children[i], false));
            }
        }

        cancellationToken.ThrowIfCancellationRequested();
        Utf8JsonWriter json = new(output, JsonOutput.Options(Indented));
        await using (json.ConfigureAwait(false))
        {
            json.WriteStartObject();
            json.WriteString("$schema", SchemaUrl);
            json.WriteString("exporter", ReportDocument.DefaultGenerator);
            json.WriteSafeString("name", ProfileName);
            json.WriteNumber("activeProfileIndex", 0);
            json.WriteStartObject("shared");
            json.WriteStartArray("frames");
            foreach (string f in frames)
            {
                json.WriteStartObject();
                json.WriteString("name", f);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteEndObject();
            json.WriteStartArray("profiles");
            json.WriteStartObject();
            json.WriteString("type", "sampled");
            json.WriteSafeString("name", ProfileName);
            json.WriteString("unit", UnitName(tree.Unit));
            json.WriteNumber("startValue", 0);
            json.WriteNumber("endValue", tree.TotalWeight);
            json.WriteStartArray("samples");
            for (int i = 0; i < samples.Count; i++)
            {
                json.WriteStartArray();
                foreach (int f in samples[i])
                {
                    json.WriteNumberValue(f);
                }

                json.WriteEndArray();
                if (json.BytesPending > 65536)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    await json.FlushAsync(cancellationToken).ConfigureAwait(false);
                }
            }

            json.WriteEndArray();
            json.WriteStartArray("weights");
            foreach (long w in weights)
            {
                json.WriteNumberValue(w);
            }

            json.WriteEndArray();
            json.WriteEndObject();
            json.WriteEndArray();
            json.WriteEndObject();
            await json.FlushAsync(cancellationToken).ConfigureAwait(false);
        }

        await output.FlushAsync(cancellationToken).ConfigureAwait(false);
    }
}
