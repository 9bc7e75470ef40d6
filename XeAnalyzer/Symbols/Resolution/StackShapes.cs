using System.Collections.Immutable;
using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>Classifies a stack by what its frames were as captured.</summary>
internal static class StackShapes
{
    /// <summary>
    /// The shape of a stack: one frame kind throughout gives that kind; symbolized frames with module+offset frames of
    /// non-SQL Server modules only (ntdll, KERNEL32: SQL Server has no PDB for them in Binn) count as
    /// <see cref="StackShape.SymbolizedInEngine"/>; ordinal frames with symbolized frames (and such module+offset
    /// frames) as <see cref="StackShape.Ordinals"/>; anything else is
    /// <see cref="StackShape.Mixed"/>.
    /// </summary>
    /// <param name="frames">The stack's frames.</param>
    /// <returns>The shape.</returns>
    public static StackShape Classify(ImmutableArray<StackFrame> frames)
    {
        if (frames.IsDefaultOrEmpty)
        {
            return StackShape.NoFrames;
        }

        int symbolized = 0,
            engineOffsets = 0,
            otherOffsets = 0,
            addresses = 0,
            ordinals = 0,
            rvas = 0;
        foreach (StackFrame f in frames)
        {
            switch (f)
            {
                case SymbolizedFrame:
                    symbolized++;
                    break;
                case ModuleOffsetFrame m when FrameText.IsSqlEngineModule(m.ModuleName):
                    engineOffsets++;
                    break;
                case ModuleOffsetFrame:
                    otherOffsets++;
                    break;
                case VirtualAddressFrame:
                    addresses++;
                    break;
                case OrdinalFrame:
                    ordinals++;
                    break;
                default:
                    rvas++;
                    break;
            }
        }

        int n = frames.Length;
        if (rvas == n)
        {
            return StackShape.CallstackRva;
        }

        if (addresses == n)
        {
            return StackShape.RawAddresses;
        }

        if (engineOffsets + otherOffsets == n)
        {
            return StackShape.ModuleOffset;
        }

        if (addresses == 0 && rvas == 0 && engineOffsets == 0)
        {
            return ordinals > 0 ? StackShape.Ordinals : StackShape.SymbolizedInEngine;
        }

        return StackShape.Mixed;
    }
}
