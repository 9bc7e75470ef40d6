using System.Text;
using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// What one frame address (or one in-engine symbol) resolves to: the rendered text in the resolver's
/// <see cref="FrameStyle"/>, module, function, displacement and status, or the reason it stayed unresolved. Immutable
/// and shared: the resolver computes it once per distinct address (module identity + RVA) or per distinct in-engine
/// symbol, and hands the same instance to every frame that has it. Per-frame data (raw token, frame number) stays on
/// the <see cref="StackFrame"/>; see <see cref="ResolvedFrame"/>.
/// </summary>
public sealed class FrameResolution
{
    /// <summary>A frame resolved offline whose function is <paramref name="functionLength"/> characters of
    /// <paramref name="text"/> at <paramref name="functionStart"/>.</summary>
    internal FrameResolution(
        string text,
        int functionStart,
        int functionLength,
        ModuleName? module,
        string? moduleDisplayName,
        ulong displacement,
        ulong rva,
        bool isVerified,
        PdbBinding pdb,
        IReadOnlyList<string>? tiedNames
    )
        : this(
            FrameResolutionStatus.ResolvedOffline,
            text,
            module,
            moduleDisplayName,
            null,
            displacement,
            rva,
            isVerified,
            pdb,
            tiedNames,
            UnresolvedReason.None,
            null,
            null
        )
    {
        _functionStart = functionStart;
        _functionLength = functionLength;
    }

    internal FrameResolution(
        FrameResolutionStatus status,
        string? text,
        ModuleName? module,
        string? moduleDisplayName,
        string? function,
        ulong? displacement,
        ulong? rva,
        bool isVerified,
        PdbBinding? pdb,
        IReadOnlyList<string>? tiedNames,
        UnresolvedReason reason,
        string? reasonText,
        string? reasonGroup,
        string? sourceFile = null,
        int? sourceLine = null,
        IReadOnlyList<FrameResolution>? inlineFrames = null,
        bool isInline = false
    )
    {
        Status = status;
        Text = text;
        Utf8Text = text is null ? null : Encoding.UTF8.GetBytes(text);
        Module = module;
        ModuleDisplayName = moduleDisplayName;
        _function = function;
        Displacement = displacement;
        Rva = rva;
        IsVerified = isVerified;
        Pdb = pdb;
        TiedNames = tiedNames ?? [];
        Reason = reason;
        _reasonText = reasonText;
        ReasonGroup = reasonGroup;
        SourceFile = sourceFile;
        SourceLine = sourceLine;
        InlineFrames = inlineFrames ?? [];
        HasInlineFrames = InlineFrames.Count > 0;
        IsInline = isInline;
    }

    /// <summary>In-engine, resolved offline, or unresolved.</summary>
    public FrameResolutionStatus Status { get; }

    /// <summary>Whether the frame has a symbol (in-engine or offline).</summary>
    public bool IsResolved => Status != FrameResolutionStatus.Unresolved;

    /// <summary>
    /// The frame rendered in the resolver's style (<c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9</c>), without
    /// frame number;
    /// <see langword="null"/> when unresolved (the frame is then written as captured:
    /// <see cref="ResolvedFrame.Text"/>).
    /// </summary>
    public string? Text { get; }

    /// <summary><see cref="Text"/> in UTF-8, made with it: what the resolved-stack writer copies out for each
    /// frame.</summary>
    internal byte[]? Utf8Text { get; }

    /// <summary>The module, or <see langword="null"/> when unknown (a raw address outside the module map, a module-less
    /// in-engine symbol).</summary>
    public ModuleName? Module { get; }

    /// <summary>
    /// The module file name used in <see cref="FrameStyle.Engine"/> output (<c>sqlmin.dll</c>): the name as captured
    /// when it has an extension, else the file name from the module map or the binaries folders, else
    /// <c>sqlservr.exe</c> for <c>sqlservr</c> and
    /// <c>{name}.dll</c> for any other module (every other SQL Server engine module is a DLL); <see langword="null"/>
    /// without module.
    /// </summary>
    public string? ModuleDisplayName { get; }

    /// <summary>The function name: the PDB procedure name, or the public name undecorated to DIA's name-only form; the
    /// in-engine symbol as captured.</summary>
    public string? Function =>
        _function ??= _functionLength >= 0 ? Text!.Substring(_functionStart, _functionLength) : null;

    // A frame resolved offline keeps its function as a range of Text, cut out on first use (most frames are only ever
    // written).
    private string? _function;
    private readonly int _functionStart;
    private readonly int _functionLength = -1;

    /// <summary>The displacement from the function start, or <see langword="null"/> when unknown (an in-engine frame
    /// written without offset).</summary>
    public ulong? Displacement { get; }

    /// <summary>The RVA in the module, when known (offline frames, and unresolved frames whose module was
    /// identified).</summary>
    public ulong? Rva { get; }

    /// <summary>
    /// <see langword="true"/> for in-engine frames and for frames resolved through a PDB whose GUID and age were
    /// checked against the build's identity; <see langword="false"/> for frames resolved through a PDB matched by name
    /// only (nothing identified the build) and for unresolved frames.
    /// </summary>
    public bool IsVerified { get; }

    /// <summary>The PDB used (or looked for), or <see langword="null"/> for in-engine frames and frames whose module is
    /// unknown.</summary>
    public PdbBinding? Pdb { get; }

    /// <summary>Every name at the symbol's address when identical-code folding gave it several (the chosen
    /// <see cref="Function"/> first); empty otherwise.</summary>
    public IReadOnlyList<string> TiedNames { get; }

    /// <summary>Why the frame is unresolved; <see cref="UnresolvedReason.None"/> when resolved.</summary>
    public UnresolvedReason Reason { get; }

    /// <summary>
    /// The reason as a short sentence (<c>no PDB for sqldk.pdb 1D3FA75E-B355-40E2-87B2-E012D69785DF/2</c>, <c>no module
    /// for 0x00007FF6E0000000</c>,
    /// <c>RVA 0x800 before the first symbol of sqlmin.pdb</c>); <see langword="null"/> when resolved.
    /// </summary>
    public string? ReasonText =>
        _reasonText ?? (ReasonOfRva is RvaReasonText t && Rva is ulong rva ? t.Text(rva) : null);

    private readonly string? _reasonText;

    /// <summary>
    /// The reason of a frame whose reason names its own RVA and is otherwise shared (an RVA past the end of the image):
    /// made when read, so very many such frames do not each hold a sentence.
    /// </summary>
    internal RvaReasonText? ReasonOfRva { get; init; }

    /// <summary>The text unresolved frames are grouped by in summaries (the reason without the frame's own address);
    /// <see langword="null"/> when resolved.</summary>
    public string? ReasonGroup { get; }

    /// <summary>
    /// The frame as a stack shows it (stack buckets, <c>export --resolve</c>): <see cref="Text"/> when resolved; when
    /// unresolved,
    /// <c>module+0x</c> and the 16-hex-digit RVA when the module is known (in <paramref name="style"/>), else the raw
    /// address (<c>0x</c> + 16 hex digits) of a raw-address frame, else the frame as captured.
    /// </summary>
    /// <param name="frame">The frame this resolution is of.</param>
    /// <param name="style">The style of the module name.</param>
    /// <returns>The text.</returns>
    public string DisplayText(StackFrame frame, FrameStyle style)
    {
        ArgumentNullException.ThrowIfNull(frame);
        if (Text is string t)
        {
            return t;
        }

        if (ModuleDisplayName is string display && Rva is ulong rva)
        {
            return FrameText.StyledModule(display, style)
                + "+0x"
                + rva.ToString("X16", System.Globalization.CultureInfo.InvariantCulture);
        }

        return frame is VirtualAddressFrame va
            ? "0x" + va.Address.ToString("X16", System.Globalization.CultureInfo.InvariantCulture)
            : frame.Raw;
    }

    /// <summary>
    /// The source file of the frame's address, from a private PDB's line table (or, for an inline frame, the inline
    /// site's annotations), when <see cref="CallstackResolverOptions.IncludeSourceLines"/> is set;
    /// <see langword="null"/> otherwise and for public PDBs. Written as the PDB stores it (usually a full path; control
    /// characters escaped).
    /// </summary>
    public string? SourceFile { get; }

    /// <summary>The source line that goes with <see cref="SourceFile"/>, or <see langword="null"/>.</summary>
    public int? SourceLine { get; }

    /// <summary>
    /// The functions inlined at the frame's address, innermost first, each a resolution of its own with
    /// <see cref="IsInline"/> set and its <see cref="Text"/> prefixed <c>(Inline Function) </c>; written before the
    /// frame. Empty unless
    /// <see cref="CallstackResolverOptions.IncludeInlineFrames"/> is set and the PDB has inline sites there.
    /// </summary>
    public IReadOnlyList<FrameResolution> InlineFrames { get; }

    /// <summary>Whether <see cref="InlineFrames"/> holds any.</summary>
    internal bool HasInlineFrames { get; }

    /// <summary>Whether this is one of another frame's <see cref="InlineFrames"/>.</summary>
    public bool IsInline { get; }

    /// <summary>
    /// The frame's inline frames (innermost first) and the frame itself, one per line (LF): what the frame expands to
    /// with
    /// <c>--inlines</c> when one string must hold it (a Parquet list element). Equals <see cref="Text"/> without inline
    /// frames.
    /// </summary>
    public string? TextWithInlineFrames =>
        InlineFrames.Count == 0 || Text is null
            ? Text
            : string.Join('\n', InlineFrames.Select(f => f.Text).Append(Text));

    /// <summary>Returns <see cref="Text"/>, or the reason for an unresolved frame.</summary>
    public override string ToString() => Text ?? "(unresolved: " + ReasonText + ")";
}

/// <summary>The PDB a module was bound to: its name, identity, where the identity came from, and the lookup's
/// outcome.</summary>
public sealed class PdbBinding
{
    internal PdbBinding(string pdbName, PdbIdentity? identity, PdbIdentitySource identitySource)
    {
        PdbName = pdbName;
        Identity = identity;
        IdentitySource = identitySource;
    }

    /// <summary>The PDB file name looked for (<c>sqlmin.pdb</c>).</summary>
    public string PdbName { get; }

    /// <summary>The GUID and age required, or <see langword="null"/> when nothing identified the build.</summary>
    public PdbIdentity? Identity { get; }

    /// <summary>Where <see cref="Identity"/> came from.</summary>
    internal PdbIdentitySource IdentitySource { get; }

    /// <summary>The PDB file opened, or <see langword="null"/> when none was found or it could not be read (set once
    /// the lookup ran).</summary>
    public string? Path { get; internal set; }

    /// <summary>The GUID and age read from the file opened, or <see langword="null"/>.</summary>
    public PdbIdentity? FileIdentity { get; internal set; }

    /// <summary>Whether the file's identity was checked against <see cref="Identity"/> (false for a name-only
    /// match).</summary>
    public bool IsVerified { get; internal set; }

    /// <summary>Whether the PDB was found and its symbols read.</summary>
    public bool IsLoaded { get; internal set; }

    /// <summary>
    /// Why source lines or inline frames could not be read from this PDB (its line table, inline sites or string table
    /// are damaged), or
    /// <see langword="null"/>. Its frames are then resolved without them.
    /// </summary>
    public string? SourceInfoProblem { get; internal set; }

    /// <summary>Why the PDB is not usable (not found, damaged), or <see langword="null"/>.</summary>
    public string? Problem { get; internal set; }

    /// <summary>What the lookup tried, in order (from <see cref="Store.PdbLookupResult.Reasons"/>), plus read
    /// errors.</summary>
    public IReadOnlyList<string> SearchLog { get; internal set; } = [];

    /// <summary>Returns <c>name GUID/age</c>.</summary>
    public override string ToString() => Identity is PdbIdentity id ? PdbName + " " + id.ToString() : PdbName;
}
