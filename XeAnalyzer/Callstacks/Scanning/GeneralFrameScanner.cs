using System.Buffers;
using System.Globalization;

namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// The general frame grammar for one token (XE-TEXT-SHAPES §3, §4), tried in this order: a virtual address
/// (<c>0x00007FFEABD0D919</c>, 16 hex digits, WinDbg <c>00000000`77a3c2b6</c>); a module-qualified symbol
/// (<c>sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9</c>) or ordinal (<c>ntdll!Ordinal298+4A5</c>); module+offset
/// (<see cref="ModuleOffsetScanner"/>); a module-less symbol with <c>::</c> (<c>SpinlockBase::Sleep+c7</c>). Symbolized
/// displacements without <c>0x</c> are hex, except in a resolver's own output read with
/// <see cref="OffsetRadix.Decimal"/>.
/// </summary>
internal sealed class GeneralFrameScanner
{
    private static readonly SearchValues<char> s_operatorChars = SearchValues.Create("+-*/%^&|~!=<>[]");

    private readonly OffsetRadix _radix;
    private readonly ModuleNameCache _modules;
    private readonly ModuleOffsetScanner _moduleOffsets;

    public GeneralFrameScanner(OffsetRadix symbolizedRadix, ModuleNameCache modules, ModuleOffsetScanner moduleOffsets)
    {
        _radix = symbolizedRadix;
        _modules = modules;
        _moduleOffsets = moduleOffsets;
    }

    private FrameProvenance SymbolProvenance =>
        _radix == OffsetRadix.Decimal ? FrameProvenance.ResolvedOutput : FrameProvenance.SymbolizedCapture;

    /// <summary>Scans one token (no frame number) of <paramref name="line"/>.</summary>
    /// <param name="line">The line.</param>
    /// <param name="off">Start of the token.</param>
    /// <param name="len">Length of the token.</param>
    /// <param name="number">The frame number written before the token, if any.</param>
    /// <param name="provenance">The provenance the enclosing grammar imposes (WinDbg), or <see langword="null"/> for
    /// the token's own.</param>
    public TokenScan Scan(string line, int off, int len, int? number, FrameProvenance? provenance)
    {
        ReadOnlySpan<char> t = line.AsSpan(off, len);

        // 0xVA
        if (ScanText.HasHexPrefix(t))
        {
            if (ScanText.TryParseHexDigits(t[2..], out ulong va, out bool overflow))
            {
                return new VirtualAddressFrame(
                    va,
                    ScanText.Raw(line, off, len),
                    provenance ?? FrameProvenance.AddressText,
                    number
                );
            }

            return new FrameFailure(overflow ? FrameFailureReason.AddressOverflow : FrameFailureReason.NotAFrame, off);
        }

        // 16 hex digits, or WinDbg 8`8
        if (
            (t.Length == 16 && ScanText.IsAllHex(t))
            || (t.Length == 17 && t[8] == '`' && ScanText.IsAllHex(t[..8]) && ScanText.IsAllHex(t[9..]))
        )
        {
            ulong hi =
                t.Length == 17 ? ulong.Parse(t[..8], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture) : 0;
            ulong lo = ulong.Parse(
                t.Length == 17 ? t[9..] : t,
                NumberStyles.AllowHexSpecifier,
                CultureInfo.InvariantCulture
            );
            ulong va = t.Length == 17 ? unchecked((hi << 32) | lo) : lo;
            return new VirtualAddressFrame(
                va,
                ScanText.Raw(line, off, len),
                provenance ?? FrameProvenance.AddressText,
                number
            );
        }

        int bang = t.IndexOf('!');
        if (bang > 0)
        {
            return ScanModuleSymbol(line, off, len, bang, number, provenance);
        }

        if (bang == 0)
        {
            return new FrameFailure(FrameFailureReason.NotAFrame, off);
        }

        var split = NameAndDisplacement.Split(t);
        if (_moduleOffsets.TryScan(line, off, len, split, number, provenance, out TokenScan moduleOffset))
        {
            return moduleOffset;
        }

        // A module-less symbol
        ReadOnlySpan<char> left = split.Name;
        if (!left.IsEmpty && left.Contains("::", StringComparison.Ordinal) && IsValidSymbolName(left))
        {
            if (!TryDisplacement(split, provenance, off, out ulong? disp, out FrameFailure failure))
            {
                return failure;
            }

            return new SymbolizedFrame(
                null,
                left.ToString(),
                disp,
                ScanText.Raw(line, off, len),
                provenance ?? SymbolProvenance,
                number
            );
        }

        return new FrameFailure(FrameFailureReason.NotAFrame, off);
    }

    /// <summary><c>mod!Symbol+disp</c> or <c>mod!OrdinalN+off</c>.</summary>
    private TokenScan ScanModuleSymbol(
        string line,
        int off,
        int len,
        int bang,
        int? number,
        FrameProvenance? provenance
    )
    {
        ReadOnlySpan<char> t = line.AsSpan(off, len);
        ReadOnlySpan<char> mod = t[..bang].TrimEnd();
        if (!ScanText.IsModuleName(mod))
        {
            return new FrameFailure(FrameFailureReason.NotAFrame, off);
        }

        var split = NameAndDisplacement.Split(t[(bang + 1)..].TrimStart());
        ReadOnlySpan<char> name = split.Name;
        if (name.IsEmpty || !IsValidSymbolName(name))
        {
            return new FrameFailure(FrameFailureReason.NotAFrame, off);
        }

        if (IsOrdinalName(name, out int ordinal))
        {
            ulong ordOffset = 0;
            if (!split.Digits.IsEmpty && !ScanText.TryParseHexDigits(split.Digits, out ordOffset, out bool ordOverflow))
            {
                return new FrameFailure(
                    ordOverflow ? FrameFailureReason.OrdinalOffsetOverflow : FrameFailureReason.NotAFrame,
                    off
                );
            }

            return new OrdinalFrame(
                _modules.Get(mod),
                ordinal,
                ordOffset,
                ScanText.Raw(line, off, len),
                provenance ?? SymbolProvenance,
                number
            );
        }

        if (!TryDisplacement(split, provenance, off, out ulong? disp, out FrameFailure failure))
        {
            return failure;
        }

        return new SymbolizedFrame(
            _modules.Get(mod),
            name.ToString(),
            disp,
            ScanText.Raw(line, off, len),
            provenance ?? SymbolProvenance,
            number
        );
    }

    private bool TryDisplacement(
        NameAndDisplacement split,
        FrameProvenance? provenance,
        int position,
        out ulong? disp,
        out FrameFailure failure
    )
    {
        disp = null;
        failure = default;
        ReadOnlySpan<char> digits = split.Digits;
        if (digits.IsEmpty)
        {
            return true;
        }

        bool hex = split.HasHexPrefix || _radix == OffsetRadix.Hex || provenance == FrameProvenance.WinDbg;
        ulong v;
        if (hex)
        {
            if (!ScanText.TryParseHexDigits(digits, out v, out bool overflow))
            {
                failure = new FrameFailure(
                    overflow ? FrameFailureReason.DisplacementOverflow : FrameFailureReason.NotAFrame,
                    position
                );
                return false;
            }
        }
        else if (!ulong.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out v))
        {
            failure = new FrameFailure(
                ScanText.IsAllDecimal(digits) ? FrameFailureReason.DisplacementOverflow : FrameFailureReason.NotAFrame,
                position
            );
            return false;
        }

        disp = v;
        return true;
    }

    private static bool IsOrdinalName(ReadOnlySpan<char> name, out int ordinal)
    {
        ordinal = 0;
        return name.Length > 7
            && name.StartsWith("Ordinal", StringComparison.Ordinal)
            && ScanText.IsAllDecimal(name[7..])
            && int.TryParse(name[7..], NumberStyles.None, CultureInfo.InvariantCulture, out ordinal);
    }

    private static bool IsValidSymbolName(ReadOnlySpan<char> name)
    {
        if (name.IsEmpty || name.Length > 64 * 1024 || char.IsWhiteSpace(name[0]) || char.IsWhiteSpace(name[^1]))
        {
            return false;
        }

        int i = name.IndexOfAny('!', '+', '\t');
        while (i >= 0)
        {
            if (name[i] == '\t' || !IsOperatorSymbol(name, i))
            {
                return false;
            }

            int next = name[(i + 1)..].IndexOfAny('!', '+', '\t');
            i = next < 0 ? -1 : i + 1 + next;
        }

        return true;
    }

    /// <summary>True when the character at <paramref name="i"/> belongs to an operator name (<c>operator+</c>,
    /// <c>operator&lt;&lt;</c>, <c>operator!=</c>).</summary>
    public static bool IsOperatorSymbol(ReadOnlySpan<char> s, int i)
    {
        // Operator names have at most 3 symbol characters (operator<<=, operator->*): look back no further, so a line
        // full of '<' stays linear.
        int j = i;
        int limit = Math.Max(0, i - 3);
        while (j > limit && s_operatorChars.Contains(s[j - 1]))
        {
            j--;
        }

        return s[..j].EndsWith("operator", StringComparison.Ordinal);
    }
}
