using System.Globalization;

namespace XeAnalyzer.Callstacks;

/// <summary>
/// One parsed callstack frame. The concrete type (see <see cref="Kind"/>) says what it holds; every frame keeps the
/// token it was parsed from (<see cref="Raw"/>) and the input shape (<see cref="Provenance"/>), so it can be echoed
/// unchanged and its offset radix is never guessed again. Frames are immutable.
/// </summary>
public abstract class StackFrame
{
    private protected StackFrame(ModuleName? module, string raw, FrameProvenance provenance, int? frameNumber)
    {
        ArgumentNullException.ThrowIfNull(raw);
        Module = module;
        Raw = raw;
        Provenance = provenance;
        _frameNumber = frameNumber is int n
            ? (n >= 0 ? n : throw new ArgumentOutOfRangeException(nameof(frameNumber), n, "must not be negative"))
            : -1;
    }

    /// <summary>What the frame holds.</summary>
    public abstract FrameKind Kind { get; }

    /// <summary>The token exactly as it appeared in the input (trimmed), without a leading frame number.</summary>
    public string Raw { get; }

    /// <summary>The input shape the frame came from.</summary>
    internal FrameProvenance Provenance { get; }

    /// <summary>
    /// The frame number the input gave: a leading <c>00 </c>/<c>0a </c> (hex) in text, or the <c>id</c> attribute
    /// (decimal) of a
    /// <c>callstack_rva</c> frame; <see langword="null"/> when the input had none.
    /// </summary>
    public int? FrameNumber => _frameNumber >= 0 ? _frameNumber : null;

    /// <summary>Whether <see cref="FrameNumber"/> is set.</summary>
    internal bool HasFrameNumber => _frameNumber >= 0;

    private readonly int _frameNumber;

    /// <summary>The module, or <see langword="null"/> when the frame names none (a raw address, a module-less symbol,
    /// an unresolvable <c>callstack_rva</c> frame).</summary>
    public ModuleName? Module { get; }

    /// <summary>Returns <see cref="Raw"/>.</summary>
    public override string ToString() => Raw;

    private protected static string Hex(ulong v) => "0x" + v.ToString("X", CultureInfo.InvariantCulture);
}

/// <summary>A module and a hex offset from its base: <c>sqldk.dll+0x00000000000FD919</c>, <c>sqldk+40609</c>,
/// <c>Module(sqldk+0000000000011D96)</c>.</summary>
internal sealed class ModuleOffsetFrame : StackFrame
{
    /// <summary>Creates the frame.</summary>
    /// <param name="module">The module.</param>
    /// <param name="offset">The offset from the module base (an RVA).</param>
    /// <param name="raw">The token as written.</param>
    /// <param name="provenance">The input shape.</param>
    /// <param name="frameNumber">The input's frame number, if any.</param>
    public ModuleOffsetFrame(
        ModuleName module,
        ulong offset,
        string raw,
        FrameProvenance provenance = FrameProvenance.ModuleOffsetText,
        int? frameNumber = null
    )
        : base(module ?? throw new ArgumentNullException(nameof(module)), raw, provenance, frameNumber)
    {
        Offset = offset;
    }

    /// <inheritdoc/>
    public override FrameKind Kind => FrameKind.ModuleOffset;

    /// <summary>The module (never <see langword="null"/>).</summary>
    public ModuleName ModuleName => Module!;

    /// <summary>The offset from the module base, read as hex: the RVA to look up.</summary>
    public ulong Offset { get; }

    /// <summary>Returns a normal form, <c>sqldk.dll+0xFD919</c>.</summary>
    public string ToNormalString() => ModuleName.Name + "+" + Hex(Offset);
}

/// <summary>A raw virtual address: <c>0x00007FFEABD0D919</c>.</summary>
internal sealed class VirtualAddressFrame : StackFrame
{
    /// <summary>Creates the frame.</summary>
    /// <param name="address">The virtual address.</param>
    /// <param name="raw">The token as written.</param>
    /// <param name="provenance">The input shape.</param>
    /// <param name="frameNumber">The input's frame number, if any.</param>
    public VirtualAddressFrame(
        ulong address,
        string raw,
        FrameProvenance provenance = FrameProvenance.AddressText,
        int? frameNumber = null
    )
        : base(null, raw, provenance, frameNumber) => Address = address;

    /// <inheritdoc/>
    public override FrameKind Kind => FrameKind.VirtualAddress;

    /// <summary>The virtual address in the captured process.</summary>
    public ulong Address { get; }
}

/// <summary>
/// An already symbolized frame: <c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9</c>, module-less
/// <c>XeSqlPkg::latch_suspend_end::Publish+138</c>, or a bare <c>SpinlockBase::Backoff</c>.
/// </summary>
internal sealed class SymbolizedFrame : StackFrame
{
    /// <summary>Creates the frame.</summary>
    /// <param name="module">The module, or <see langword="null"/> for a module-less frame.</param>
    /// <param name="symbol">The function name as written (templates, spaces and backticks included).</param>
    /// <param name="displacement">The displacement from the function start, or <see langword="null"/> when the text had
    /// none.</param>
    /// <param name="raw">The token as written.</param>
    /// <param name="provenance">The input shape (<see cref="FrameProvenance.SymbolizedCapture"/> or
    /// <see cref="FrameProvenance.ResolvedOutput"/>).</param>
    /// <param name="frameNumber">The input's frame number, if any.</param>
    public SymbolizedFrame(
        ModuleName? module,
        string symbol,
        ulong? displacement,
        string raw,
        FrameProvenance provenance = FrameProvenance.SymbolizedCapture,
        int? frameNumber = null
    )
        : base(module, raw, provenance, frameNumber)
    {
        ArgumentException.ThrowIfNullOrEmpty(symbol);
        Symbol = symbol;
        Displacement = displacement;
    }

    /// <inheritdoc/>
    public override FrameKind Kind => FrameKind.Symbolized;

    /// <summary>The function name as written.</summary>
    public string Symbol { get; }

    /// <summary>
    /// The displacement from the function start, already converted with the right radix (hex for captures,
    /// decimal for <see cref="FrameProvenance.ResolvedOutput"/> unless written with <c>0x</c>); <see langword="null"/>
    /// when absent.
    /// </summary>
    public ulong? Displacement { get; }
}

/// <summary>An export ordinal with a hex offset: <c>sqldk.dll!Ordinal947+0x25f</c>,
/// <c>ntdll!Ordinal298+00000000000004A5</c>.</summary>
internal sealed class OrdinalFrame : StackFrame
{
    /// <summary>Creates the frame.</summary>
    /// <param name="module">The module.</param>
    /// <param name="ordinal">The export ordinal (written in decimal).</param>
    /// <param name="offset">The offset from the export (written in hex).</param>
    /// <param name="raw">The token as written.</param>
    /// <param name="provenance">The input shape.</param>
    /// <param name="frameNumber">The input's frame number, if any.</param>
    public OrdinalFrame(
        ModuleName module,
        int ordinal,
        ulong offset,
        string raw,
        FrameProvenance provenance = FrameProvenance.SymbolizedCapture,
        int? frameNumber = null
    )
        : base(module ?? throw new ArgumentNullException(nameof(module)), raw, provenance, frameNumber)
    {
        Ordinal = ordinal;
        Offset = offset;
    }

    /// <inheritdoc/>
    public override FrameKind Kind => FrameKind.Ordinal;

    /// <summary>The module (never <see langword="null"/>).</summary>
    public ModuleName ModuleName => Module!;

    /// <summary>The export ordinal.</summary>
    public int Ordinal { get; }

    /// <summary>The offset from the exported function, hex in the input.</summary>
    public ulong Offset { get; }
}

/// <summary>
/// A SQL Server 2022+ <c>callstack_rva</c> frame (<c>&lt;frame id="02" pdb="SqlDK.pdb" age="2" guid="…"
/// module="sqldk.dll" rva="0x40609" address="0x100440609"/&gt;</c>). A full frame carries the PDB name,
/// <see cref="PdbIdentity"/> and RVA. An abbreviated frame (<c>name</c> + <c>address</c> only) gets its RVA from the
/// base (address − rva) of an earlier full frame of the same module, and that frame's PDB and identity. A frame that
/// cannot be completed (<c>&lt;frame id="31" address="0xA000" /&gt;</c>) is kept with <see cref="CanResolve"/> false.
/// </summary>
internal sealed class RvaFrame : StackFrame
{
    /// <summary>Creates the frame.</summary>
    /// <param name="module">The module (<c>module</c> or <c>name</c> attribute), if any.</param>
    /// <param name="pdbName">The PDB file name (<c>SqlDK.pdb</c>), if known.</param>
    /// <param name="identity">The PDB GUID and age, if known.</param>
    /// <param name="rva">The RVA, if known.</param>
    /// <param name="address">The virtual address, if given.</param>
    /// <param name="isAbbreviated"><see langword="true"/> when the input frame had no <c>rva</c> and the RVA (if any)
    /// was derived from an earlier frame.</param>
    /// <param name="raw">The frame markup as written.</param>
    /// <param name="frameNumber">The <c>id</c> attribute (decimal), if any.</param>
    public RvaFrame(
        ModuleName? module,
        string? pdbName,
        PdbIdentity? identity,
        ulong? rva,
        ulong? address,
        bool isAbbreviated,
        string raw,
        int? frameNumber = null
    )
        : base(module, raw, FrameProvenance.CallstackRvaXml, frameNumber)
    {
        PdbName = pdbName;
        Identity = identity;
        Rva = rva;
        Address = address;
        IsAbbreviated = isAbbreviated;
    }

    /// <inheritdoc/>
    public override FrameKind Kind => FrameKind.Rva;

    /// <summary>The PDB file name as written (<c>SqlDK.pdb</c>), or <see langword="null"/>.</summary>
    public string? PdbName { get; }

    /// <summary>The PDB GUID and age, or <see langword="null"/>.</summary>
    public PdbIdentity? Identity { get; }

    /// <summary>The relative virtual address, or <see langword="null"/>.</summary>
    public ulong? Rva { get; }

    /// <summary>The virtual address, when the frame had one.</summary>
    public ulong? Address { get; }

    /// <summary><see langword="true"/> for a frame given as <c>name</c>/<c>module</c> + <c>address</c> only.</summary>
    public bool IsAbbreviated { get; }

    /// <summary><see langword="true"/> when the PDB name, identity and RVA are all known, so the frame can be looked
    /// up.</summary>
    public bool CanResolve => PdbName is not null && Identity.HasValue && Rva.HasValue;

    /// <summary>
    /// The normal form used to group frames: <c>{GUID 32 hex upper}{age}+0x{rva}</c> after the frame number, as in
    /// <c>02 6A1934433512464B8B8ED905AD930EE62+0x40609</c>; <see langword="null"/> when <see cref="CanResolve"/> is
    /// false.
    /// </summary>
    public string? ToNormalString()
    {
        if (!CanResolve)
        {
            return null;
        }

        string key =
            Identity!.Value.Guid.ToString("N").ToUpperInvariant()
            + Identity.Value.Age.ToString(CultureInfo.InvariantCulture)
            + "+0x"
            + Rva!.Value.ToString("x", CultureInfo.InvariantCulture);
        return FrameNumber is int n ? n.ToString("x2", CultureInfo.InvariantCulture) + " " + key : key;
    }
}
