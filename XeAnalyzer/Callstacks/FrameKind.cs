namespace XeAnalyzer.Callstacks;

/// <summary>What a parsed frame holds, and so what a resolver must do with it.</summary>
public enum FrameKind
{
    /// <summary>A module and a hex offset from its base (an RVA): <c>sqldk.dll+0x00000000000FD919</c>,
    /// <c>sqldk+40609</c>, <c>Module(sqldk+11D96)</c>.</summary>
    ModuleOffset,

    /// <summary>A raw virtual address (<c>0x00007FFEABD0D919</c>): needs a module list
    /// (<c>sys.dm_os_loaded_modules</c>) from the same process lifetime.</summary>
    VirtualAddress,

    /// <summary>Already symbolized text (TF 3656 in-engine symbols, or a resolver's output):
    /// <c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9</c>.</summary>
    Symbolized,

    /// <summary>An export ordinal with a hex offset (<c>sqldk.dll!Ordinal947+0x25f</c>): needs the image's export
    /// table.</summary>
    Ordinal,

    /// <summary>A SQL Server 2022+ <c>callstack_rva</c> frame carrying the PDB name, GUID, age and RVA.</summary>
    Rva,
}

/// <summary>The input shape a frame came from; together with <see cref="StackFrame.Raw"/> it records how the offset was
/// read.</summary>
internal enum FrameProvenance
{
    /// <summary>Module+offset capture text (DMV, ring buffer, histogram): offset hex, with or without
    /// <c>0x</c>.</summary>
    ModuleOffsetText,

    /// <summary>A raw virtual address in text (<c>0x…</c>, 16 hex digits, or WinDbg's
    /// <c>00007ff8`30d4cda4</c>).</summary>
    AddressText,

    /// <summary>In-engine symbolization (trace flag 3656) or hand-copied symbolic frames: the displacement is hex, with
    /// or without <c>0x</c>.</summary>
    SymbolizedCapture,

    /// <summary>
    /// Already-resolved output of a resolver (microsoft/SQLCallStackResolver style, chosen with
    /// <see cref="OffsetRadix.Decimal"/>): the displacement is decimal unless written with <c>0x</c>.
    /// </summary>
    ResolvedOutput,

    /// <summary>A <c>callstack_rva</c> <c>&lt;frame … /&gt;</c> element or its text.</summary>
    CallstackRvaXml,

    /// <summary>A SQLDumper / dump text line: <c>Module(KERNELBASE+000000000009CDA4)</c>.</summary>
    SqlDumper,

    /// <summary>A WinDbg <c>k</c> line (the call-site column): offsets <c>+0x…</c> hex.</summary>
    WinDbg,

    /// <summary>Decoded from a binary capture (<c>.xel</c>) rather than text.</summary>
    Binary,
}

/// <summary>The radix of a symbolized frame's displacement written without <c>0x</c>.</summary>
internal enum OffsetRadix
{
    /// <summary>Hexadecimal: every capture shape (TF 3656 output, <c>+c7</c>, <c>+138</c>).</summary>
    Hex,

    /// <summary>Decimal: only already-resolved output of microsoft/SQLCallStackResolver
    /// (<c>sqldk!…::AllocatePagesWithFailureMode+644</c>).</summary>
    Decimal,
}
