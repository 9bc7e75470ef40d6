using System.Globalization;

namespace XeAnalyzer.Events;

/// <summary>
/// The meaning of a <c>wait_result</c> value: SQLOS reports the outcome of a wait with the Win32 wait return codes
/// (documented for <c>WaitForSingleObject</c>): 0 WAIT_OBJECT_0 (signaled), 0x80 WAIT_ABANDONED, 0x102 WAIT_TIMEOUT,
/// 0xFFFFFFFF WAIT_FAILED. Other values have no known meaning and are shown as the number alone.
/// </summary>
internal static class WaitResults
{
    /// <summary>The field that holds the codes (<c>sqlos.wait_completed</c>'s).</summary>
    public const string FieldName = "wait_result";

    /// <summary>Whether a field holds wait return codes: <see cref="FieldName"/>, not a map (whose values are text
    /// already).</summary>
    /// <param name="field">The field.</param>
    /// <returns>True for a <c>wait_result</c> field.</returns>
    public static bool IsCodeField(XeColumn field)
    {
        ArgumentNullException.ThrowIfNull(field);
        return field.Kind == XeColumnKind.Field && !field.IsMap && field.Name == FieldName;
    }

    /// <summary>The name of a code, or <see langword="null"/> for an unknown one.</summary>
    /// <param name="code">The value of <c>wait_result</c>.</param>
    /// <returns><c>signaled</c>, <c>WAIT_ABANDONED</c>, <c>WAIT_TIMEOUT</c>, <c>WAIT_FAILED</c> or null.</returns>
    public static string? Name(ulong code) =>
        code switch
        {
            0 => "signaled",
            0x80 => "WAIT_ABANDONED",
            0x102 => "WAIT_TIMEOUT",
            0xFFFFFFFF => "WAIT_FAILED",
            _ => null,
        };

    /// <summary>A value as shown: <c>258 (WAIT_TIMEOUT)</c>, or the text alone when it is no known code.</summary>
    /// <param name="text">The value as rendered (decimal).</param>
    /// <returns>The label.</returns>
    public static string Label(string text) => Meaning(text) is string name ? text + " (" + name + ")" : text;

    /// <summary>The name of a value as rendered, or <see langword="null"/> when it is no known code.</summary>
    /// <param name="text">The value as rendered (decimal).</param>
    /// <returns>The name (<see cref="Name"/>) or null.</returns>
    public static string? Meaning(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        return ulong.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out ulong code)
            ? Name(code)
            : null;
    }
}
