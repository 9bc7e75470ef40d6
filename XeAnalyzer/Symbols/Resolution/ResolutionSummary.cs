using System.Globalization;
using System.Text;
using System.Text.Json;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Unresolved frames that share a reason (<see cref="FrameResolution.ReasonGroup"/>), with the first one met.</summary>
/// <param name="Reason">The reason kind.</param>
/// <param name="Description">The shared reason (<c>no PDB for sqldk.pdb 1D3FA75E-B355-40E2-87B2-E012D69785DF/2</c>).</param>
/// <param name="Count">How many frames (occurrences, not distinct addresses).</param>
/// <param name="FirstExample">The first such frame as captured.</param>
/// <param name="FirstReason">The first frame's own reason (with its address, e.g. <c>no module for 0x00007FF6E0000000</c>).</param>
/// <param name="FirstLine">The input line of the first frame (0 when unknown).</param>
/// <param name="SearchLog">For a missing or damaged PDB: what was searched and why each candidate was rejected; otherwise empty.</param>
public sealed record UnresolvedGroup(UnresolvedReason Reason, string Description, long Count, string FirstExample, string FirstReason, long FirstLine, IReadOnlyList<string> SearchLog);

/// <summary>
/// What resolving one input did: stacks by shape, frames by status, unresolved frames grouped by reason, the PDBs searched and used,
/// hints about trace flags 3656/2592, and warnings. Immutable; made by <see cref="ResolutionSummaryBuilder"/>.
/// </summary>
public sealed class ResolutionSummary
{
    internal ResolutionSummary(
        string? inputName,
        long stacks,
        IReadOnlyDictionary<StackShape, long> shapes,
        long frames,
        long inEngine,
        long resolvedOffline,
        long unresolved,
        long unverified,
        IReadOnlyList<UnresolvedGroup> groups,
        IReadOnlyList<PdbBinding> pdbs,
        IReadOnlyList<string> hints,
        IReadOnlyList<string> warnings)
    {
        InputName = inputName;
        Stacks = stacks;
        Shapes = shapes;
        Frames = frames;
        InEngine = inEngine;
        ResolvedOffline = resolvedOffline;
        Unresolved = unresolved;
        Unverified = unverified;
        UnresolvedGroups = groups;
        Pdbs = pdbs;
        Hints = hints;
        Warnings = warnings;
    }

    /// <summary>The input's name (file path, or <c>-</c> for standard input), or <see langword="null"/>.</summary>
    public string? InputName { get; }

    /// <summary>How many stacks (histogram slots, event callstacks, text stacks).</summary>
    public long Stacks { get; }

    /// <summary>Stacks by shape (shapes with no stack are left out), in <see cref="StackShape"/> order.</summary>
    public IReadOnlyDictionary<StackShape, long> Shapes { get; }

    /// <summary>How many frames (occurrences).</summary>
    public long Frames { get; }

    /// <summary>Frames the capture already held symbolized (normalised only).</summary>
    public long InEngine { get; }

    /// <summary>Frames resolved offline.</summary>
    public long ResolvedOffline { get; }

    /// <summary>Frames left unresolved (written as captured).</summary>
    public long Unresolved { get; }

    /// <summary>Frames resolved offline through a PDB matched by name only (nothing identified the build).</summary>
    public long Unverified { get; }

    /// <summary>Unresolved frames grouped by reason, most frequent first (ties by description, ordinal).</summary>
    public IReadOnlyList<UnresolvedGroup> UnresolvedGroups { get; }

    /// <summary>The PDBs looked up (found, damaged or missing).</summary>
    public IReadOnlyList<PdbBinding> Pdbs { get; }

    /// <summary>Advice drawn from the input's shape (trace flags 3656 and 2592, PDBs missing from Binn).</summary>
    public IReadOnlyList<string> Hints { get; }

    /// <summary>Problems with the input or the setup (raw addresses without module map, an unused module map, malformed frames, …).</summary>
    public IReadOnlyList<string> Warnings { get; }

    /// <summary>The summary as text lines (no line breaks inside), for a console.</summary>
    /// <returns>The lines.</returns>
    public IReadOnlyList<string> ToTextLines()
    {
        IFormatProvider ic = CultureInfo.InvariantCulture;
        var lines = new List<string>();
        string shapes = Shapes.Count == 0 ? string.Empty : " (" + string.Join(", ", Shapes.Select(kv => string.Create(ic, $"{kv.Value} {ShapeText(kv.Key)}"))) + ")";
        lines.Add(string.Create(ic,
            $"{InputName ?? "input"}: {Stacks} stack(s){shapes}; {Frames} frame(s): {InEngine} symbolized in-engine, {ResolvedOffline} resolved offline ({Unverified} unverified), {Unresolved} unresolved"));
        foreach (UnresolvedGroup g in UnresolvedGroups)
        {
            string line = g.FirstLine > 0 ? string.Create(ic, $", line {g.FirstLine}") : string.Empty;
            lines.Add(string.Create(ic, $"unresolved: {g.Count} frame(s): {g.Description} (first: {g.FirstExample}{line})"));
            foreach (string s in g.SearchLog.Take(6))
            {
                lines.Add("  searched: " + s);
            }

            if (g.SearchLog.Count > 6)
            {
                lines.Add(string.Create(ic, $"  searched: … {g.SearchLog.Count - 6} more"));
            }
        }

        foreach (PdbBinding p in Pdbs.Where(p => p.IsLoaded))
        {
            lines.Add("pdb: " + p + " (" + SourceText(p.IdentitySource) + ") " + p.Path + (p.IsVerified ? string.Empty : " [unverified: matched by name only]"));
            if (p.SourceInfoProblem is string source)
            {
                lines.Add("  " + source);
            }
        }

        lines.AddRange(Hints.Select(h => "hint: " + h));
        lines.AddRange(Warnings.Select(w => "warning: " + w));
        return lines.AsReadOnly();
    }

    /// <summary>Writes the summary as JSON (UTF-8, indented; property names camelCase).</summary>
    /// <param name="stream">The destination; not closed.</param>
    public void WriteJson(Stream stream)
    {
        ArgumentNullException.ThrowIfNull(stream);
        using var w = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true });
        WriteJson(w);
    }

    /// <summary>Writes the summary as one JSON object.</summary>
    /// <param name="w">The writer.</param>
    public void WriteJson(Utf8JsonWriter w)
    {
        ArgumentNullException.ThrowIfNull(w);
        w.WriteStartObject();
        w.WriteString("input", InputName);
        w.WriteNumber("stacks", Stacks);
        w.WriteStartObject("shapes");
        foreach (KeyValuePair<StackShape, long> kv in Shapes)
        {
            w.WriteNumber(JsonName(kv.Key.ToString()), kv.Value);
        }

        w.WriteEndObject();
        w.WriteNumber("frames", Frames);
        w.WriteNumber("inEngine", InEngine);
        w.WriteNumber("resolvedOffline", ResolvedOffline);
        w.WriteNumber("unresolved", Unresolved);
        w.WriteNumber("unverified", Unverified);
        w.WriteStartArray("unresolvedGroups");
        foreach (UnresolvedGroup g in UnresolvedGroups)
        {
            w.WriteStartObject();
            w.WriteString("reason", JsonName(g.Reason.ToString()));
            w.WriteString("description", g.Description);
            w.WriteNumber("count", g.Count);
            w.WriteString("firstExample", g.FirstExample);
            w.WriteString("firstReason", g.FirstReason);
            w.WriteNumber("firstLine", g.FirstLine);
            w.WriteStartArray("searchLog");
            foreach (string s in g.SearchLog)
            {
                w.WriteStringValue(s);
            }

            w.WriteEndArray();
            w.WriteEndObject();
        }

        w.WriteEndArray();
        w.WriteStartArray("pdbs");
        foreach (PdbBinding p in Pdbs)
        {
            w.WriteStartObject();
            w.WriteString("name", p.PdbName);
            w.WriteString("identity", p.Identity?.ToString());
            w.WriteString("identitySource", JsonName(p.IdentitySource.ToString()));
            w.WriteBoolean("loaded", p.IsLoaded);
            w.WriteBoolean("verified", p.IsVerified);
            w.WriteString("path", p.Path);
            w.WriteString("problem", p.Problem);
            if (p.SourceInfoProblem is string source)
            {
                w.WriteString("sourceInfoProblem", source);
            }

            w.WriteEndObject();
        }

        w.WriteEndArray();
        WriteStrings(w, "hints", Hints);
        WriteStrings(w, "warnings", Warnings);
        w.WriteEndObject();
        w.Flush();
    }

    /// <summary>The JSON form as a string.</summary>
    /// <returns>The JSON.</returns>
    public string ToJson()
    {
        using var ms = new MemoryStream();
        WriteJson(ms);
        return Encoding.UTF8.GetString(ms.ToArray());
    }

    /// <summary>How a shape reads in text (<c>module+offset</c>, <c>symbolized in-engine</c>).</summary>
    /// <param name="shape">The shape.</param>
    /// <returns>The text.</returns>
    public static string ShapeText(StackShape shape) => shape switch
    {
        StackShape.NoFrames => "without frames",
        StackShape.SymbolizedInEngine => "symbolized in-engine",
        StackShape.ModuleOffset => "module+offset",
        StackShape.RawAddresses => "raw addresses",
        StackShape.Ordinals => "with ordinals",
        StackShape.CallstackRva => "callstack_rva",
        _ => "mixed",
    };

    private static string SourceText(PdbIdentitySource s) => s switch
    {
        PdbIdentitySource.Frame => "identity from the callstack_rva frames",
        PdbIdentitySource.SymbolMetadata => "identity from CSV symbol metadata",
        PdbIdentitySource.Binary => "identity from the DLL's RSDS record",
        PdbIdentitySource.BuildCatalog => "identity from the build catalog",
        _ => "no identity",
    };

    private static void WriteStrings(Utf8JsonWriter w, string name, IReadOnlyList<string> items)
    {
        w.WriteStartArray(name);
        foreach (string s in items)
        {
            w.WriteStringValue(s);
        }

        w.WriteEndArray();
    }

    private static string JsonName(string pascal) => char.ToLowerInvariant(pascal[0]) + pascal[1..];
}
