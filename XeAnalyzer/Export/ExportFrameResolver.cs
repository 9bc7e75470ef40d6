using System.Globalization;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Export;

/// <summary>What <c>export --resolve</c> resolved: distinct frames resolved and kept raw, the latter by
/// reason.</summary>
/// <param name="Resolved">Distinct frames resolved.</param>
/// <param name="UnresolvedByReason">Distinct frames kept as captured, by reason (most first).</param>
internal sealed record ExportResolution(long Resolved, IReadOnlyList<KeyValuePair<string, long>> UnresolvedByReason)
{
    /// <summary>Distinct frames kept as captured.</summary>
    public long Unresolved => UnresolvedByReason.Sum(kv => kv.Value);
}

/// <summary>
/// Resolves the frames of <c>export --resolve</c>: one <see cref="ResolverSession"/> per module map of the inputs of
/// the
/// <see cref="CaptureSource"/> (an input's, or a file's own; chosen by the one rule of
/// <see cref="CaptureSource.Open"/>), each distinct address or text stack once per file, written as stack buckets write
/// frames (<see cref="FrameResolution.DisplayText"/>; with inline frames first when the resolver asks for them).
/// </summary>
internal sealed class ExportFrameResolver
{
    private const int MaxCachedStacks = 65_536;

    private readonly Dictionary<string, ResolverSession> _sessions = new(StringComparer.Ordinal);
    private readonly ResolverSession _fallback;
    private readonly FrameStyle _style;
    private readonly Dictionary<string, long> _unresolved = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string[]> _texts = new(StringComparer.Ordinal);
    private readonly StackTextParser _parser = new();
    private long _resolved;

    public ExportFrameResolver(CallstackResolver resolver, CaptureSource source)
    {
        _style = resolver.Options.Style;
        _fallback = resolver.CreateSession();
        foreach (CaptureInput input in source.Inputs)
        {
            // A file with a module list of its own (a rollover set that spans a restart) is resolved through it.
            var byMap = new Dictionary<ModuleMapBinding, ResolverSession>(ReferenceEqualityComparer.Instance);
            for (int i = 0; i < input.Files.Count; i++)
            {
                ModuleMapBinding map = input.FileModuleMaps[i];
                if (!byMap.TryGetValue(map, out ResolverSession? session))
                {
                    session = resolver.CreateSession(map.Map);
                    byMap.Add(map, session);
                }

                _sessions[input.Files[i]] = session;
            }
        }
    }

    public ExportResolution Summary =>
        new(_resolved, [.. _unresolved.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal)]);

    /// <summary>The text of one raw return address of a capture file (called once per distinct address and
    /// file).</summary>
    public string Resolve(string captureFile, ulong address)
    {
        FrameResolution r = Session(captureFile).ResolveAddress(address);
        Count(r);
        return r.TextWithInlineFrames
            ?? r.DisplayText(
                new VirtualAddressFrame(
                    address,
                    "0x" + address.ToString("X16", CultureInfo.InvariantCulture),
                    FrameProvenance.Binary
                ),
                _style
            );
    }

    /// <summary>The frame texts of a stack held as text (target-data XML), each distinct stack of a file resolved
    /// once.</summary>
    public IReadOnlyList<string> ResolveText(string captureFile, string stackText)
    {
        string key = captureFile + "\0" + stackText;
        if (_texts.TryGetValue(key, out string[]? known))
        {
            return known;
        }

        ResolvedCallstack resolved = Session(captureFile).Resolve(_parser.Parse(stackText, 4096, out _));
        string[] texts = new string[resolved.Frames.Length];
        for (int i = 0; i < texts.Length; i++)
        {
            ResolvedFrame f = resolved.Frames[i];
            Count(f.Resolution);
            texts[i] = f.Resolution.TextWithInlineFrames ?? f.Resolution.DisplayText(f.Frame, _style);
        }

        if (_texts.Count >= MaxCachedStacks)
        {
            _texts.Clear();
        }

        _texts.Add(key, texts);
        return texts;
    }

    private ResolverSession Session(string file) => _sessions.TryGetValue(file, out ResolverSession? s) ? s : _fallback;

    private void Count(FrameResolution r)
    {
        if (r.IsResolved)
        {
            _resolved++;
            return;
        }

        string group = r.ReasonGroup ?? "unresolved";
        _unresolved[group] = _unresolved.GetValueOrDefault(group) + 1;
    }
}
