namespace XeAnalyzer.IO;

/// <summary>
/// Where the bytes under a <see cref="SpanReader"/> came from when an offset into them is not a file offset (a PDB's
/// MSF stream scattered over blocks): it turns an offset of its own into the malformed-input exception naming the file
/// and the byte offset.
/// </summary>
internal interface ISpanOrigin
{
    /// <summary>The exception for malformed data at <paramref name="offset"/> (an offset of this origin) in the part
    /// named <paramref name="description"/>.</summary>
    /// <param name="offset">The offset within the origin.</param>
    /// <param name="description">What the bytes are (for the message).</param>
    /// <param name="expected">What was expected there.</param>
    /// <returns>The exception to throw.</returns>
    XeFormatException Error(long offset, string description, string expected);
}
