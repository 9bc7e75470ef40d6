using System.Globalization;

namespace XeAnalyzer;

/// <summary>
/// Base class of every exception XeAnalyzer throws for malformed input (a damaged capture, PDB, PE image or text
/// input). The message always names the file (when known), the byte offset or line, and what was expected there.
/// Bugs in XeAnalyzer itself surface as ordinary exceptions, never as this type, so the exception type says whose fault
/// it is.
/// </summary>
public abstract class XeFormatException : IOException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="filePath">The input file, or <see langword="null"/> when the input was not a file.</param>
    /// <param name="offset">Byte offset of the problem from the start of the file, when known.</param>
    /// <param name="line">1-based line number of the problem in a text input, when known.</param>
    /// <param name="detail">What was found and what was expected.</param>
    /// <param name="innerException">The underlying exception, if any.</param>
    protected XeFormatException(
        string? filePath,
        long? offset,
        int? line,
        string detail,
        Exception? innerException = null
    )
        : base(Compose(filePath, offset, line, detail), innerException)
    {
        FilePath = filePath;
        Offset = offset;
        Line = line;
        Detail = detail;
    }

    /// <summary>The input file, or <see langword="null"/> when the input was not a file (a stream, standard
    /// input).</summary>
    public string? FilePath { get; }

    /// <summary>Byte offset of the problem from the start of the file, when known.</summary>
    public long? Offset { get; }

    /// <summary>1-based line number of the problem in a text input, when known.</summary>
    public int? Line { get; }

    /// <summary>What was found and what was expected, without the location prefix.</summary>
    public string Detail { get; }

    private static string Compose(string? filePath, long? offset, int? line, string detail)
    {
        string where = filePath ?? "<input>";
        if (offset is long o)
        {
            where += string.Create(CultureInfo.InvariantCulture, $": byte offset {o} (0x{o:X})");
        }

        if (line is int l)
        {
            where += string.Create(CultureInfo.InvariantCulture, $": line {l}");
        }

        return where + ": " + detail;
    }
}

/// <summary>A <c>.xel</c> capture is malformed: bad magic, a damaged buffer or metadata, or a record that runs past its
/// buffer.</summary>
public sealed class InvalidXelDataException : XeFormatException
{
    /// <summary>Creates the exception; see <see cref="XeFormatException"/> for the parameters.</summary>
    /// <param name="filePath">The capture file, when known.</param>
    /// <param name="offset">Byte offset of the problem in the file, when known.</param>
    /// <param name="detail">What was found and what was expected.</param>
    /// <param name="innerException">The underlying exception, if any.</param>
    public InvalidXelDataException(string? filePath, long? offset, string detail, Exception? innerException = null)
        : base(filePath, offset, null, detail, innerException) { }
}

/// <summary>A PDB file is malformed or of a kind that cannot be read (truncated, MSFZ, CAB-compressed, wrong
/// magic).</summary>
public sealed class InvalidPdbDataException : XeFormatException
{
    /// <summary>Creates the exception; see <see cref="XeFormatException"/> for the parameters.</summary>
    /// <param name="filePath">The PDB file, when known.</param>
    /// <param name="offset">Byte offset of the problem in the file (or stream, as the detail says), when known.</param>
    /// <param name="detail">What was found and what was expected.</param>
    /// <param name="innerException">The underlying exception, if any.</param>
    public InvalidPdbDataException(string? filePath, long? offset, string detail, Exception? innerException = null)
        : base(filePath, offset, null, detail, innerException) { }
}

/// <summary>A PE image (DLL/EXE) is malformed or is not a PE image at all.</summary>
public sealed class InvalidPeDataException : XeFormatException
{
    /// <summary>Creates the exception; see <see cref="XeFormatException"/> for the parameters.</summary>
    /// <param name="filePath">The image file, when known.</param>
    /// <param name="offset">Byte offset of the problem in the file, when known.</param>
    /// <param name="detail">What was found and what was expected.</param>
    /// <param name="innerException">The underlying exception, if any.</param>
    public InvalidPeDataException(string? filePath, long? offset, string detail, Exception? innerException = null)
        : base(filePath, offset, null, detail, innerException) { }
}

/// <summary>A text input (target XML, module list, build catalog, frame text) is malformed at a given line.</summary>
public sealed class InvalidTextInputException : XeFormatException
{
    /// <summary>Creates the exception; see <see cref="XeFormatException"/> for the parameters.</summary>
    /// <param name="filePath">The text file, when known.</param>
    /// <param name="line">1-based line of the problem, when known.</param>
    /// <param name="detail">What was found and what was expected.</param>
    /// <param name="innerException">The underlying exception, if any.</param>
    public InvalidTextInputException(string? filePath, int? line, string detail, Exception? innerException = null)
        : base(filePath, null, line, detail, innerException) { }
}

/// <summary>
/// The one rule for "this file could not be read": a <see cref="XeFormatException"/> (malformed content) or an I/O or
/// access failure. Places that turn a bad file into a reported problem (a damaged PDB, an unusable candidate) ask here,
/// so the family is caught the same way everywhere (the library, and the CLI when it turns a failure into an exit
/// code); any other exception is a bug in XeAnalyzer and is left to surface.
/// </summary>
public static class InputFailure
{
    /// <summary>Whether <paramref name="ex"/> means the input could not be read (as opposed to a bug).</summary>
    public static bool IsReadFailure(Exception ex) =>
        ex is XeFormatException or IOException or UnauthorizedAccessException;

    /// <summary>
    /// What went wrong, for a message that already names the file: the byte offset or line and the detail of a
    /// <see cref="XeFormatException"/>, or the message of any other failure.
    /// </summary>
    public static string Describe(Exception ex)
    {
        ArgumentNullException.ThrowIfNull(ex);
        if (ex is not XeFormatException f)
        {
            return ex.Message;
        }

        string where = f.Offset is long o
            ? string.Create(CultureInfo.InvariantCulture, $"byte offset {o} (0x{o:X}): ")
            : string.Empty;
        if (f.Line is int l)
        {
            where += string.Create(CultureInfo.InvariantCulture, $"line {l}: ");
        }

        return where + f.Detail;
    }
}
