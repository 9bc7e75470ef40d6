namespace XeAnalyzer.IO;

/// <summary>Which malformed-input exception a reader raises.</summary>
internal enum FormatKind
{
    Xel,
    Pdb,
    Pe,
}

internal static class FormatErrors
{
    public static XeFormatException Create(FormatKind kind, string? file, long? offset, string detail) =>
        kind switch
        {
            FormatKind.Xel => new InvalidXelDataException(file, offset, detail),
            FormatKind.Pdb => new InvalidPdbDataException(file, offset, detail),
            _ => new InvalidPeDataException(file, offset, detail),
        };
}
