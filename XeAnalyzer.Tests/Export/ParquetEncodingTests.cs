using XeAnalyzer.Export.Parquet;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// The byte-level encodings, checked against vectors worked out by hand from the specifications (Parquet Encodings.md,
/// the Thrift compact protocol), not against our own output.
/// </summary>
public sealed class ParquetEncodingTests
{
    private static byte[] Levels(byte[] levels, int bitWidth)
    {
        var b = new ByteBuffer();
        LevelEncoder.Encode(levels, bitWidth, b);
        return b.WrittenSpan.ToArray();
    }

    [Test]
    public void Encode_WritesRleRun_ForTenEqualLevels()
    {
        // RLE run header = varint(10 << 1) = 0x14, then the value in one byte.
        Assert.That(Levels([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 1), Is.EqualTo(new byte[] { 0x14, 0x01 }));
    }

    [Test]
    public void Encode_WritesBitPackedGroup_ForAlternatingLevels()
    {
        // One group of 8: header varint((1 << 1) | 1) = 0x03; bits LSB first 0,1,0,1,0,1,0,1 = 0b10101010.
        Assert.That(Levels([0, 1, 0, 1, 0, 1, 0, 1], 1), Is.EqualTo(new byte[] { 0x03, 0xAA }));
    }

    [Test]
    public void Encode_PadsLastGroupWithZeros_ForThreeLevels()
    {
        // 1,0,1 packed into one group of 8 (padding 0): 0b00000101.
        Assert.That(Levels([1, 0, 1], 1), Is.EqualTo(new byte[] { 0x03, 0x05 }));
    }

    [Test]
    public void Encode_PacksTwoBitLevels_LeastSignificantFirst()
    {
        // Width 2: values 2,1,0,2,2,1,0,1 -> bits (LSB first) 10 01 00 10 | 10 01 00 01 -> bytes 0b10_00_01_10 = 0x86, 0b01_00_01_10 = 0x46.
        Assert.That(Levels([2, 1, 0, 2, 2, 1, 0, 1], 2), Is.EqualTo(new byte[] { 0x03, 0x86, 0x46 }));
    }

    [Test]
    public void Encode_SwitchesFromBitPackedToRle_AtGroupBoundary()
    {
        // 8 mixed values (one bit-packed group), then 20 zeros (RLE: varint(40) = 0x28, value 0).
        byte[] levels = [1, 0, 0, 1, 1, 0, 1, 1, .. new byte[20]];
        Assert.That(Levels(levels, 1), Is.EqualTo(new byte[] { 0x03, 0b11011001, 0x28, 0x00 }));
    }

    [Test]
    public void Encode_UsesMultiByteVarint_ForLongRuns()
    {
        // 300 ones: varint(600) = 0xD8 0x04.
        byte[] levels = [.. Enumerable.Repeat((byte)1, 300)];
        Assert.That(Levels(levels, 1), Is.EqualTo(new byte[] { 0xD8, 0x04, 0x01 }));
    }

    [Test]
    public void BitWidth_IsBitsOfMaxLevel()
    {
        Assert.That(new[] { LevelEncoder.BitWidth(0), LevelEncoder.BitWidth(1), LevelEncoder.BitWidth(2), LevelEncoder.BitWidth(3), LevelEncoder.BitWidth(4) },
            Is.EqualTo(new[] { 0, 1, 2, 2, 3 }));
    }

    [Test]
    public void Thrift_WritesShortAndLongFieldHeaders()
    {
        var b = new ByteBuffer();
        var t = new ThriftCompactWriter(b);
        t.BeginStruct();
        t.I32Field(1, 1);        // delta 1, type 5: 0x15, zigzag(1) = 0x02
        t.I64Field(3, -1);       // delta 2, type 6: 0x26, zigzag(-1) = 0x01
        t.BoolField(4, true);    // delta 1, type 1: 0x11
        t.StringField(40, "ab"); // delta 36 > 15: long form 0x08, zigzag(40) = 0x50, then varint 2 + bytes
        t.BeginStructField(41);  // delta 1, type 12: 0x1C
        t.EndStruct();           // 0x00
        t.ListField(42, ThriftCompactWriter.TypeI32, 2); // 0x19, list header (2 << 4) | 5 = 0x25
        t.WriteI32(-2);          // zigzag(-2) = 3
        t.WriteI32(300);         // zigzag(300) = 600 = 0xD8 0x04
        t.EndStruct();           // 0x00
        Assert.That(b.WrittenSpan.ToArray(), Is.EqualTo(new byte[] { 0x15, 0x02, 0x26, 0x01, 0x11, 0x08, 0x50, 0x02, (byte)'a', (byte)'b', 0x1C, 0x00, 0x19, 0x25, 0x03, 0xD8, 0x04, 0x00 }));
    }

    [Test]
    public void Thrift_WritesLongListHeader_ForFifteenElements()
    {
        var b = new ByteBuffer();
        var t = new ThriftCompactWriter(b);
        t.BeginStruct();
        t.ListField(1, ThriftCompactWriter.TypeBinary, 15); // 0x19, then 0xF8 (long form, type 8), varint 15
        Assert.That(b.WrittenSpan.ToArray(), Is.EqualTo(new byte[] { 0x19, 0xF8, 0x0F }));
    }

    [Test]
    public void ToUnixMicroseconds_RoundsTowardsNegativeInfinity()
    {
        DateTime epoch = DateTime.UnixEpoch;
        Assert.That(ParquetWriter.ToUnixMicroseconds(epoch.AddTicks(15)), Is.EqualTo(1));
        Assert.That(ParquetWriter.ToUnixMicroseconds(epoch.AddTicks(-1)), Is.EqualTo(-1));
        Assert.That(ParquetWriter.ToUnixMicroseconds(epoch.AddTicks(-10)), Is.EqualTo(-1));
        Assert.That(ParquetWriter.ToUnixMicroseconds(epoch.AddTicks(-11)), Is.EqualTo(-2));
        Assert.That(ParquetWriter.ToUnixMicroseconds(new DateTime(2024, 3, 1, 12, 0, 0, DateTimeKind.Utc).AddTicks(12345)), Is.EqualTo(1_709_294_400_001_234L));
    }
}
