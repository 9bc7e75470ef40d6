namespace XeAnalyzer.Events;

/// <summary>
/// The Extended Events base types (the object index of a <c>package0</c> type RID). Values not listed here can occur in
/// files; they are decoded by their size (fixed-size as unsigned integers, variable-size as binary data).
/// </summary>
public enum XeBaseType
{
    /// <summary>No type (a default value).</summary>
    None = 0,

    /// <summary><c>int8</c>: signed 8-bit integer.</summary>
    Int8 = 1,

    /// <summary><c>int16</c>: signed 16-bit integer.</summary>
    Int16 = 2,

    /// <summary><c>int32</c>: signed 32-bit integer.</summary>
    Int32 = 3,

    /// <summary><c>int64</c>: signed 64-bit integer.</summary>
    Int64 = 4,

    /// <summary><c>uint8</c>: unsigned 8-bit integer.</summary>
    UInt8 = 5,

    /// <summary><c>uint16</c>: unsigned 16-bit integer.</summary>
    UInt16 = 6,

    /// <summary><c>uint32</c>: unsigned 32-bit integer.</summary>
    UInt32 = 7,

    /// <summary><c>uint64</c>: unsigned 64-bit integer.</summary>
    UInt64 = 8,

    /// <summary><c>float32</c>: IEEE single.</summary>
    Float32 = 9,

    /// <summary><c>float64</c>: IEEE double.</summary>
    Float64 = 10,

    /// <summary><c>cpu_cycle</c>: a 64-bit cycle counter.</summary>
    CpuCycle = 11,

    /// <summary><c>filetime</c>: a 64-bit Windows FILETIME (100 ns since 1601-01-01 UTC).</summary>
    FileTime = 12,

    /// <summary><c>ptr</c>: a pointer (4 or 8 bytes, the file's pointer size).</summary>
    Pointer = 13,

    /// <summary><c>guid_ptr</c>: a pointer to a GUID (in static attributes: the GUID itself).</summary>
    GuidPointer = 16,

    /// <summary><c>ansi_string</c>: variable-length 8-bit text.</summary>
    AnsiString = 19,

    /// <summary><c>unicode_string</c>: variable-length UTF-16LE text (length in bytes).</summary>
    UnicodeString = 20,

    /// <summary><c>guid</c>: a 16-byte GUID in <c>new Guid(byte[])</c> byte order.</summary>
    Guid = 21,

    /// <summary><c>binary_data</c>: variable-length bytes.</summary>
    BinaryData = 22,

    /// <summary><c>callstack</c>: raw return addresses (pointer-sized), leaf first.</summary>
    Callstack = 23,

    /// <summary><c>activity_id</c>: a GUID followed by a 32-bit sequence number.</summary>
    ActivityId = 24,

    /// <summary><c>activity_id_xfer</c>: a transfer activity id, laid out as <see cref="ActivityId"/>.</summary>
    ActivityIdTransfer = 25,

    /// <summary><c>boolean</c>: one byte, non-zero is true.</summary>
    Boolean = 26,

    /// <summary><c>xml</c>: variable-length UTF-16LE XML text.</summary>
    Xml = 27,
}

/// <summary>Facts about the base types: standard names and sizes.</summary>
internal static class XeBaseTypes
{
    /// <summary>The standard <c>package0</c> type name of <paramref name="baseType"/> (for example <c>uint64</c>), or
    /// <c>type_N</c> for an unknown one.</summary>
    /// <param name="baseType">The base type.</param>
    /// <returns>The name.</returns>
    public static string GetStandardName(XeBaseType baseType) =>
        baseType switch
        {
            XeBaseType.Int8 => "int8",
            XeBaseType.Int16 => "int16",
            XeBaseType.Int32 => "int32",
            XeBaseType.Int64 => "int64",
            XeBaseType.UInt8 => "uint8",
            XeBaseType.UInt16 => "uint16",
            XeBaseType.UInt32 => "uint32",
            XeBaseType.UInt64 => "uint64",
            XeBaseType.Float32 => "float32",
            XeBaseType.Float64 => "float64",
            XeBaseType.CpuCycle => "cpu_cycle",
            XeBaseType.FileTime => "filetime",
            XeBaseType.Pointer => "ptr",
            XeBaseType.GuidPointer => "guid_ptr",
            XeBaseType.AnsiString => "ansi_string",
            XeBaseType.UnicodeString => "unicode_string",
            XeBaseType.Guid => "guid",
            XeBaseType.BinaryData => "binary_data",
            XeBaseType.Callstack => "callstack",
            XeBaseType.ActivityId => "activity_id",
            XeBaseType.ActivityIdTransfer => "activity_id_xfer",
            XeBaseType.Boolean => "boolean",
            XeBaseType.Xml => "xml",
            _ => "type_" + ((int)baseType).ToString(System.Globalization.CultureInfo.InvariantCulture),
        };

    /// <summary>
    /// The size SQL Server declares for <paramref name="baseType"/> in <c>package0</c>: a byte count for fixed-size
    /// types, 0 for variable-length ones (strings, <c>guid</c>, binary data, callstacks, XML).
    /// </summary>
    /// <param name="baseType">The base type.</param>
    /// <param name="pointerSize">The pointer size of the capture (4 or 8).</param>
    /// <returns>The size in bytes, or 0 for variable length.</returns>
    public static int GetStandardSize(XeBaseType baseType, int pointerSize = 8) =>
        baseType switch
        {
            XeBaseType.Int8 or XeBaseType.UInt8 or XeBaseType.Boolean => 1,
            XeBaseType.Int16 or XeBaseType.UInt16 => 2,
            XeBaseType.Int32 or XeBaseType.UInt32 or XeBaseType.Float32 => 4,
            XeBaseType.Int64 or XeBaseType.UInt64 or XeBaseType.Float64 or XeBaseType.CpuCycle or XeBaseType.FileTime =>
                8,
            XeBaseType.Pointer or XeBaseType.GuidPointer => pointerSize,
            XeBaseType.ActivityId or XeBaseType.ActivityIdTransfer => 20,
            _ => 0,
        };

    /// <summary>Whether <paramref name="baseType"/> is a signed integer type.</summary>
    /// <param name="baseType">The base type.</param>
    /// <returns><see langword="true"/> for int8, int16, int32 and int64.</returns>
    public static bool IsSigned(XeBaseType baseType) =>
        baseType is XeBaseType.Int8 or XeBaseType.Int16 or XeBaseType.Int32 or XeBaseType.Int64;

    /// <summary>Whether values of <paramref name="baseType"/> are text (ANSI, Unicode or XML strings).</summary>
    /// <param name="baseType">The base type.</param>
    /// <returns><see langword="true"/> for text types.</returns>
    public static bool IsText(XeBaseType baseType) =>
        baseType is XeBaseType.AnsiString or XeBaseType.UnicodeString or XeBaseType.Xml;
}
