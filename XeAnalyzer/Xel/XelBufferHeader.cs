using System.Buffers.Binary;
using System.Globalization;

namespace XeAnalyzer.Xel;

/// <summary>The kinds of buffer in a <c>.xel</c> file.</summary>
internal enum XelBufferType : ushort
{
    Event = 0,
    Metadata = 1,
    Header = 2,
    Index = 3,
}

/// <summary>The 32-byte header of every buffer (XEBufferHeader + XE_LogBufferHeader).</summary>
internal readonly struct XelBufferHeader
{
    public const int Size = 32;
    public const int Alignment = 512;
    public const ushort LogVersion = 10;

    public uint Version { get; init; }

    public uint Slot { get; init; }

    public uint Sequence { get; init; }

    public ushort BufferLogVersion { get; init; }

    public XelBufferType Type { get; init; }

    public uint PaddedLength { get; init; }

    public ushort DataOffset { get; init; }

    public uint DataLength { get; init; }

    public uint Checksum { get; init; }

    public static XelBufferHeader Parse(ReadOnlySpan<byte> b) =>
        new()
        {
            Version = BinaryPrimitives.ReadUInt32LittleEndian(b),
            Slot = BinaryPrimitives.ReadUInt32LittleEndian(b[4..]),
            Sequence = BinaryPrimitives.ReadUInt32LittleEndian(b[8..]),
            BufferLogVersion = BinaryPrimitives.ReadUInt16LittleEndian(b[12..]),
            Type = (XelBufferType)BinaryPrimitives.ReadUInt16LittleEndian(b[14..]),
            PaddedLength = BinaryPrimitives.ReadUInt32LittleEndian(b[16..]),
            DataOffset = BinaryPrimitives.ReadUInt16LittleEndian(b[22..]),
            DataLength = BinaryPrimitives.ReadUInt32LittleEndian(b[24..]),
            Checksum = BinaryPrimitives.ReadUInt32LittleEndian(b[28..]),
        };

    /// <summary>Returns what is wrong with the header, or <see langword="null"/> when it can be trusted.</summary>
    public string? Validate(XeReaderLimits limits)
    {
        if (BufferLogVersion != LogVersion)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"a buffer header with log version {LogVersion}, found {BufferLogVersion}"
            );
        }

        if ((ushort)Type > (ushort)XelBufferType.Index)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"a buffer type 0 (event), 1 (metadata), 2 or 3, found {(ushort)Type}"
            );
        }

        if (PaddedLength <= Size || PaddedLength % Alignment != 0)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"a buffer length that is a multiple of {Alignment} and larger than {Size}, found {PaddedLength}"
            );
        }

        if (PaddedLength > (uint)limits.MaxBufferSize)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"a buffer length of at most {limits.MaxBufferSize} bytes (XeReaderLimits.MaxBufferSize), found "
                    + $"{PaddedLength}"
            );
        }

        if (DataOffset < Size || (ulong)DataOffset + DataLength > PaddedLength)
        {
            return string.Create(
                CultureInfo.InvariantCulture,
                $"data (offset {DataOffset}, length {DataLength}) inside the {PaddedLength}-byte buffer after its "
                    + $"{Size}-byte header"
            );
        }

        return null;
    }
}
