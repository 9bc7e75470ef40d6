using System.Globalization;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>An unresolved frame's reason: the frame's RVA between a shared beginning and end. Immutable.</summary>
/// <param name="Before">The text before the RVA.</param>
/// <param name="After">The text after the RVA.</param>
/// <param name="Group">The reason without the RVA, by which summaries group frames.</param>
internal sealed record RvaReasonText(string Before, string After, string Group)
{
    /// <summary>The reason of the frame at <paramref name="rva"/> (<c>0x</c> and lower-case hex digits).</summary>
    public string Text(ulong rva) => Before + "0x" + rva.ToString("x", CultureInfo.InvariantCulture) + After;
}
