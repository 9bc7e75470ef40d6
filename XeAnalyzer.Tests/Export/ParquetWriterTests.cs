using System.Buffers.Binary;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using XeAnalyzer.Export.Parquet;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// The Parquet writer on hand-built tables, read back by DuckDB (an independent reader): every type, nulls, lists, many row
/// groups, long strings, statistics; plus structural checks of the bytes and the API's misuse errors.
/// </summary>
public sealed class ParquetWriterTests
{
    private static readonly CultureInfo Ic = CultureInfo.InvariantCulture;
    private string _dir = null!;

    [SetUp]
    public void SetUp()
    {
        _dir = Path.Combine(Path.GetTempPath(), "xeanalyzer-parquet-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_dir);
    }

    [TearDown]
    public void TearDown() => Directory.Delete(_dir, recursive: true);

    private string WriteFile(string name, ParquetColumn[] columns, int rows, Action<ParquetWriter, int> row, ParquetWriterOptions? options = null)
    {
        string path = Path.Combine(_dir, name);
        using var fs = File.Create(path);
        using var w = new ParquetWriter(fs, columns, options);
        for (int i = 0; i < rows; i++)
        {
            row(w, i);
            w.EndRow();
        }

        w.Finish();
        return path;
    }

    [Test]
    public void Finish_WritesMagicFooterAndLength_ForZeroRows()
    {
        string path = WriteFile("empty.parquet", [new("id", ParquetColumnType.Int64, false), new("s", ParquetColumnType.String)], 0, (_, _) => { });
        byte[] bytes = File.ReadAllBytes(path);
        Assert.That(bytes.AsSpan(0, 4).ToArray(), Is.EqualTo("PAR1"u8.ToArray()));
        Assert.That(bytes.AsSpan(bytes.Length - 4).ToArray(), Is.EqualTo("PAR1"u8.ToArray()));
        int footer = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(bytes.Length - 8));
        Assert.That(4 + footer + 8, Is.EqualTo(bytes.Length), "no row group: magic, footer, length, magic");
        Assert.That(bytes[4], Is.EqualTo(0x15), "FileMetaData starts with field 1 (version), i32");
        Assert.That(bytes[5], Is.EqualTo(0x02), "version 1, zigzag-encoded");

        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(path, "SELECT count(*) FROM t", "DESCRIBE t");
        Assert.That(r[0].Text(0, "count_star()"), Is.EqualTo("0"));
        Assert.That(r[1].Rows.Select(x => x[0].GetString() + " " + x[1].GetString()), Is.EqualTo(new[] { "id BIGINT", "s VARCHAR" }));
    }

    [Test]
    public void Finish_FooterLengthMatchesLayout_WhenRowsWritten()
    {
        string path = WriteFile("rows.parquet", [new("v", ParquetColumnType.Int32)], 10, (w, i) => w.WriteInt64(0, i));
        byte[] bytes = File.ReadAllBytes(path);
        int footer = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(bytes.Length - 8));
        Assert.That(footer, Is.GreaterThan(0).And.LessThan(bytes.Length - 12));
        int footerStart = bytes.Length - 8 - footer;
        Assert.That(bytes[footerStart], Is.EqualTo(0x15));
        Assert.That(bytes[footerStart + 1], Is.EqualTo(0x02));
        Assert.That(Encoding.ASCII.GetString(bytes, footerStart, footer), Does.Contain(ParquetWriterOptions.CreatedBy));
    }

    [Test]
    public void Footer_ChunksTileTheFile_BetweenMagicAndFooter([Values(ParquetCompression.None, ParquetCompression.Gzip)] ParquetCompression compression)
    {
        // The footer's chunk offsets and compressed sizes (as DuckDB reads them) must cover the bytes between the leading
        // magic and the footer exactly, in order: a size that is off would make readers that fetch chunks by size fail.
        string path = WriteFile("tile.parquet", [new("id", ParquetColumnType.Int64, false), new("s", ParquetColumnType.String), new("l", ParquetColumnType.Int64List), new("b", ParquetColumnType.Boolean)], 1000, (w, i) =>
        {
            w.WriteInt64(0, i);
            w.WriteString(1, new string('x', i % 50));
            w.WriteInt64List(2, [.. Enumerable.Range(0, i % 7).Select(x => (long)x)]);
            w.WriteBoolean(3, i % 3 == 0);
        }, new ParquetWriterOptions { RowGroupRows = 300, PageBytes = 1000, Compression = compression });
        byte[] bytes = File.ReadAllBytes(path);
        int footer = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(bytes.Length - 8));
        QueryResult q = DuckDbOracle.Single(null, "SELECT row_group_id, column_id, CAST(data_page_offset AS VARCHAR), CAST(total_compressed_size AS VARCHAR), CAST(num_values AS VARCHAR) FROM parquet_metadata(" + DuckDbOracle.Literal(path) + ") ORDER BY row_group_id, column_id");
        long expectedOffset = 4;
        long values = 0;
        foreach (System.Text.Json.JsonElement[] row in q.Rows)
        {
            Assert.That(long.Parse(row[2].GetString()!, Ic), Is.EqualTo(expectedOffset), "chunk " + row[0] + "/" + row[1]);
            expectedOffset += long.Parse(row[3].GetString()!, Ic);
            if (row[1].GetString() == "2")
            {
                values += long.Parse(row[4].GetString()!, Ic);
            }
        }

        Assert.That(q.Rows, Has.Length.EqualTo(4 * 4));
        Assert.That(expectedOffset, Is.EqualTo(bytes.Length - 8 - footer), "the last chunk ends where the footer starts");
        Assert.That(values, Is.EqualTo(Enumerable.Range(0, 1000).Sum(i => Math.Max(1, i % 7))), "list column: one level per element, one for each empty list");
    }

    [Test]
    public void Write_ReadsBackEveryScalarType_WithDuckDb()
    {
        ParquetColumn[] cols =
        [
            new("id", ParquetColumnType.Int32, false),
            new("b", ParquetColumnType.Boolean),
            new("i8", ParquetColumnType.Int8), new("i16", ParquetColumnType.Int16), new("i32", ParquetColumnType.Int32), new("i64", ParquetColumnType.Int64),
            new("u8", ParquetColumnType.UInt8), new("u16", ParquetColumnType.UInt16), new("u32", ParquetColumnType.UInt32), new("u64", ParquetColumnType.UInt64),
            new("f", ParquetColumnType.Float), new("d", ParquetColumnType.Double),
            new("s", ParquetColumnType.String), new("bin", ParquetColumnType.Binary), new("ts", ParquetColumnType.TimestampMicros),
        ];
        long[] i8 = [sbyte.MinValue, -1, 0, sbyte.MaxValue];
        long[] i16 = [short.MinValue, -2, 7, short.MaxValue];
        long[] i32 = [int.MinValue, -3, 8, int.MaxValue];
        long[] i64 = [long.MinValue, -4, 9, long.MaxValue];
        ulong[] u8 = [0, 1, 200, byte.MaxValue];
        ulong[] u16 = [0, 2, 40000, ushort.MaxValue];
        ulong[] u32 = [0, 3, 3_000_000_000, uint.MaxValue];
        ulong[] u64 = [0, 4, 10_000_000_000_000_000_000, ulong.MaxValue];
        double[] f = [-1.5, 0, 3.25, 1e30];
        double[] d = [-Math.PI, 0, Math.E, double.MaxValue];
        string[] s = ["", "ascii", "\u00e9t\u00e9 \u4e2d\u6587 \U0001F600", "tab\tnew\nline"];
        byte[][] bin = [[], [0], [1, 2, 255], [.. Enumerable.Range(0, 300).Select(x => (byte)x)]];
        DateTime[] ts =
        [
            new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc),
            new DateTime(2024, 3, 1, 12, 0, 0, DateTimeKind.Utc).AddTicks(12345),
            new DateTime(1601, 1, 1, 0, 0, 0, DateTimeKind.Utc),
            new DateTime(9999, 12, 31, 23, 59, 59, DateTimeKind.Utc),
        ];
        const int Rows = 5; // row 4 is all nulls
        string path = WriteFile("scalars.parquet", cols, Rows, (w, i) =>
        {
            w.WriteInt64(0, i);
            if (i == 4)
            {
                for (int c = 1; c < cols.Length; c++)
                {
                    w.WriteNull(c);
                }

                return;
            }

            w.WriteBoolean(1, i % 2 == 1);
            w.WriteInt64(2, i8[i]);
            w.WriteInt64(3, i16[i]);
            w.WriteInt64(4, i32[i]);
            w.WriteInt64(5, i64[i]);
            w.WriteUInt64(6, u8[i]);
            w.WriteUInt64(7, u16[i]);
            w.WriteUInt64(8, u32[i]);
            w.WriteUInt64(9, u64[i]);
            w.WriteDouble(10, f[i]);
            w.WriteDouble(11, d[i]);
            w.WriteString(12, s[i]);
            w.WriteBinary(13, bin[i]);
            w.WriteTimestamp(14, ts[i]);
        });

        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(path,
            "SELECT id, CAST(b AS VARCHAR) b, CAST(i8 AS VARCHAR) i8, CAST(i16 AS VARCHAR) i16, CAST(i32 AS VARCHAR) i32, CAST(i64 AS VARCHAR) i64, " +
            "CAST(u8 AS VARCHAR) u8, CAST(u16 AS VARCHAR) u16, CAST(u32 AS VARCHAR) u32, CAST(u64 AS VARCHAR) u64, " +
            "CAST(f AS DOUBLE) f, d, s, hex(bin) bin, CAST(epoch_us(ts) AS VARCHAR) ts FROM t ORDER BY id",
            "SELECT column_name, column_type FROM (DESCRIBE t)");
        QueryResult q = r[0];
        Assert.That(q.Rows, Has.Length.EqualTo(Rows));
        for (int i = 0; i < 4; i++)
        {
            Assert.That(q.Text(i, "b"), Is.EqualTo(i % 2 == 1 ? "true" : "false"));
            Assert.That(q.Text(i, "i8"), Is.EqualTo(i8[i].ToString(Ic)));
            Assert.That(q.Text(i, "i16"), Is.EqualTo(i16[i].ToString(Ic)));
            Assert.That(q.Text(i, "i32"), Is.EqualTo(i32[i].ToString(Ic)));
            Assert.That(q.Text(i, "i64"), Is.EqualTo(i64[i].ToString(Ic)));
            Assert.That(q.Text(i, "u8"), Is.EqualTo(u8[i].ToString(Ic)));
            Assert.That(q.Text(i, "u16"), Is.EqualTo(u16[i].ToString(Ic)));
            Assert.That(q.Text(i, "u32"), Is.EqualTo(u32[i].ToString(Ic)));
            Assert.That(q.Text(i, "u64"), Is.EqualTo(u64[i].ToString(Ic)));
            Assert.That(q.Rows[i][q.Index("f")].GetDouble(), Is.EqualTo((double)(float)f[i]));
            Assert.That(q.Rows[i][q.Index("d")].GetDouble(), Is.EqualTo(d[i]));
            Assert.That(q.Text(i, "s"), Is.EqualTo(s[i]));
            Assert.That(q.Text(i, "bin"), Is.EqualTo(Convert.ToHexString(bin[i])));
            Assert.That(q.Text(i, "ts"), Is.EqualTo(((ts[i].Ticks - DateTime.UnixEpoch.Ticks) / 10).ToString(Ic)), "µs since 1970 (all inputs are whole µs or later than 1970)");
        }

        Assert.That(q.Rows[4].Skip(1).All(v => v.ValueKind == System.Text.Json.JsonValueKind.Null), Is.True, "row 4 is null in every nullable column");
        Assert.That(r[1].Rows.Select(x => x[1].GetString()), Is.EqualTo(new[]
        {
            "INTEGER", "BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
            "FLOAT", "DOUBLE", "VARCHAR", "BLOB", "TIMESTAMP WITH TIME ZONE",
        }));
    }

    [Test]
    public void Write_SplitsRowGroups_AndKeepsRowOrder()
    {
        var options = new ParquetWriterOptions { RowGroupRows = 7, PageBytes = 64 };
        string path = WriteFile("groups.parquet", [new("id", ParquetColumnType.Int64, false), new("sq", ParquetColumnType.Int64)], 100,
            (w, i) => { w.WriteInt64(0, i); w.WriteInt64(1, (long)i * i); }, options);
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(path,
            "SELECT count(*) FROM t",
            "SELECT string_agg(CAST(id AS VARCHAR), ',') FROM t",
            "SELECT CAST(sum(sq) AS VARCHAR) FROM t",
            "SELECT num_row_groups FROM parquet_file_metadata(" + DuckDbOracle.Literal(path) + ")",
            "SELECT row_group_id, CAST(row_group_num_rows AS VARCHAR) FROM parquet_metadata(" + DuckDbOracle.Literal(path) + ") WHERE column_id = 0 ORDER BY row_group_id");
        Assert.That(r[0].Rows[0][0].GetString(), Is.EqualTo("100"));
        Assert.That(r[1].Rows[0][0].GetString(), Is.EqualTo(string.Join(",", Enumerable.Range(0, 100))), "file order is row order");
        Assert.That(r[2].Rows[0][0].GetString(), Is.EqualTo(Enumerable.Range(0, 100).Sum(i => (long)i * i).ToString(Ic)));
        Assert.That(r[3].Rows[0][0].GetString(), Is.EqualTo("15"), "ceil(100 / 7) row groups");
        Assert.That(r[4].Rows.Select(x => x[1].GetString()), Is.EqualTo(Enumerable.Repeat("7", 14).Append("2")));
    }

    [Test]
    public void Write_NullPatterns_SurviveLevelEncoding([Values(1, 3, 100_000)] int pageBytes)
    {
        // Random nulls, long null runs, long value runs: every bit-packed / RLE transition.
        var rng = new Random(12345);
        var isNull = new bool[5000];
        for (int i = 0; i < isNull.Length; i++)
        {
            isNull[i] = i switch
            {
                < 1000 => rng.Next(3) == 0,
                < 1500 => true,
                < 2500 => false,
                < 2600 => i % 2 == 0,
                _ => rng.Next(10) == 0,
            };
        }

        string path = WriteFile("nulls.parquet", [new("id", ParquetColumnType.Int32, false), new("v", ParquetColumnType.UInt16), new("flag", ParquetColumnType.Boolean)], isNull.Length, (w, i) =>
        {
            w.WriteInt64(0, i);
            if (isNull[i])
            {
                w.WriteNull(1);
                w.WriteNull(2);
            }
            else
            {
                w.WriteUInt64(1, (ulong)(i % 65536));
                w.WriteBoolean(2, i % 3 == 0);
            }
        }, new ParquetWriterOptions { PageBytes = pageBytes, RowGroupRows = 2048 });

        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(path,
            "SELECT string_agg(CASE WHEN v IS NULL THEN '0' ELSE '1' END, '' ORDER BY id) FROM t",
            "SELECT count(*) FROM t WHERE v IS NOT NULL AND v <> id % 65536",
            "SELECT string_agg(CASE WHEN flag IS NULL THEN 'n' WHEN flag THEN 't' ELSE 'f' END, '' ORDER BY id) FROM t");
        Assert.That(r[0].Rows[0][0].GetString(), Is.EqualTo(string.Concat(isNull.Select(n => n ? '0' : '1'))));
        Assert.That(r[1].Rows[0][0].GetString(), Is.EqualTo("0"), "every present value is the one written");
        Assert.That(r[2].Rows[0][0].GetString(), Is.EqualTo(string.Concat(isNull.Select((n, i) => n ? 'n' : i % 3 == 0 ? 't' : 'f'))));
    }

    [Test]
    public void Write_Lists_NullEmptyAndLong([Values(ParquetCompression.None, ParquetCompression.Gzip)] ParquetCompression compression)
    {
        long[][] stacks = [[], [1], [long.MinValue, -1, 0, long.MaxValue], [.. Enumerable.Range(0, 1000).Select(x => 0x7FF800000000L + x)]];
        string[][] names = [["\u00e9\u4e2d", ""], [], ["a"], [.. Enumerable.Range(0, 50).Select(x => "frame" + x.ToString(Ic))]];
        string path = WriteFile("lists.parquet",
            [new("id", ParquetColumnType.Int32, false), new("stack", ParquetColumnType.Int64List), new("names", ParquetColumnType.StringList), new("req", ParquetColumnType.Int64List, false)],
            40, (w, i) =>
            {
                w.WriteInt64(0, i);
                if (i % 5 == 4)
                {
                    w.WriteNull(1);
                }
                else
                {
                    w.WriteInt64List(1, stacks[i % 4]);
                }

                if (i % 7 == 6)
                {
                    w.WriteNull(2);
                }
                else
                {
                    w.WriteStringList(2, names[i % 4]);
                }

                w.WriteInt64List(3, stacks[(i + 1) % 4]);
            }, new ParquetWriterOptions { Compression = compression, RowGroupRows = 9, PageBytes = 512 });

        QueryResult q = DuckDbOracle.Single(path,
            "SELECT id, stack IS NULL sn, len(stack) sl, CAST(stack[1] AS VARCHAR) sf, CAST(stack[-1] AS VARCHAR) sz, " +
            "names IS NULL nn, len(names) nl, names[1] nf, names[-1] nz, len(req) rl, CAST(list_sum(req) AS VARCHAR) rs FROM t ORDER BY id");
        Assert.That(q.Rows, Has.Length.EqualTo(40));
        for (int i = 0; i < 40; i++)
        {
            long[] st = stacks[i % 4];
            string[] nm = names[i % 4];
            long[] rq = stacks[(i + 1) % 4];
            bool stackNull = i % 5 == 4, namesNull = i % 7 == 6;
            Assert.That(q.Text(i, "sn"), Is.EqualTo(stackNull ? "true" : "false"), "row " + i);
            Assert.That(q.Text(i, "sl"), Is.EqualTo(stackNull ? null : st.Length.ToString(Ic)), "row " + i);
            Assert.That(q.Text(i, "sf"), Is.EqualTo(stackNull || st.Length == 0 ? null : st[0].ToString(Ic)), "row " + i);
            Assert.That(q.Text(i, "sz"), Is.EqualTo(stackNull || st.Length == 0 ? null : st[^1].ToString(Ic)), "row " + i);
            Assert.That(q.Text(i, "nn"), Is.EqualTo(namesNull ? "true" : "false"), "row " + i);
            Assert.That(q.Text(i, "nl"), Is.EqualTo(namesNull ? null : nm.Length.ToString(Ic)), "row " + i);
            Assert.That(q.Text(i, "nf"), Is.EqualTo(namesNull || nm.Length == 0 ? null : nm[0]), "row " + i);
            Assert.That(q.Text(i, "nz"), Is.EqualTo(namesNull || nm.Length == 0 ? null : nm[^1]), "row " + i);
            Assert.That(q.Text(i, "rl"), Is.EqualTo(rq.Length.ToString(Ic)), "row " + i);
            Assert.That(q.Text(i, "rs"), Is.EqualTo(rq.Length == 0 ? null : rq.Select(x => (System.Int128)x).Aggregate((a, b) => a + b).ToString(Ic)), "row " + i);
        }
    }

    [Test]
    public void Write_AllNullColumn_ReadsAsNull()
    {
        string path = WriteFile("allnull.parquet", [new("id", ParquetColumnType.Int32, false), new("n", ParquetColumnType.UInt64), new("s", ParquetColumnType.String), new("l", ParquetColumnType.Int64List)], 1000,
            (w, i) => { w.WriteInt64(0, i); w.WriteNull(1); w.WriteNull(2); w.WriteNull(3); }, new ParquetWriterOptions { RowGroupRows = 300 });
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(path,
            "SELECT count(*), count(n), count(s), count(l) FROM t",
            "SELECT count(*) FROM t WHERE n IS NULL AND s IS NULL AND l IS NULL");
        Assert.That(r[0].Rows[0].Select(v => v.GetString()), Is.EqualTo(new[] { "1000", "0", "0", "0" }));
        Assert.That(r[1].Rows[0][0].GetString(), Is.EqualTo("1000"));
    }

    [Test]
    public void Write_LongStrings_SpanningPages()
    {
        string big = string.Concat(Enumerable.Range(0, 200_000).Select(i => (char)('a' + (i % 26)))) + "\u00e9\u4e2d\U0001F600";
        string[] values = [big, "short", big[..70_000], "\ud800 lone surrogate"];
        string path = WriteFile("long.parquet", [new("id", ParquetColumnType.Int32, false), new("s", ParquetColumnType.String, false)], 12,
            (w, i) => { w.WriteInt64(0, i); w.WriteString(1, values[i % 4]); }, new ParquetWriterOptions { PageBytes = 100_000, RowGroupRows = 5 });
        QueryResult q = DuckDbOracle.Single(path, "SELECT id, sha256(s) h, CAST(length(s) AS VARCHAR) n FROM t ORDER BY id");
        for (int i = 0; i < 12; i++)
        {
            // A lone surrogate cannot be UTF-8: it is written as U+FFFD (what .NET's UTF-8 encoder substitutes).
            byte[] utf8 = Encoding.UTF8.GetBytes(values[i % 4]);
            Assert.That(q.Text(i, "h"), Is.EqualTo(Convert.ToHexStringLower(SHA256.HashData(utf8))), "row " + i);
        }

        Assert.That(q.Text(3, "n"), Is.EqualTo("16"), "U+FFFD plus 15 characters");
    }

    [Test]
    public void Statistics_KeepFilteringCorrect_AtTypeExtremes()
    {
        // DuckDB prunes row groups by min/max: wrong statistics would drop matching rows.
        ParquetColumn[] cols = [new("id", ParquetColumnType.Int32, false), new("u64", ParquetColumnType.UInt64), new("u32", ParquetColumnType.UInt32), new("i64", ParquetColumnType.Int64), new("i8", ParquetColumnType.Int8), new("ts", ParquetColumnType.TimestampMicros)];
        ulong[] u64 = [0, 1, 1UL << 63, ulong.MaxValue, 5];
        ulong[] u32 = [0, 1, 1U << 31, uint.MaxValue, 5];
        long[] i64 = [0, -1, long.MinValue, long.MaxValue, 5];
        long[] i8 = [0, -1, sbyte.MinValue, sbyte.MaxValue, 5];
        string path = WriteFile("stats.parquet", cols, 50, (w, i) =>
        {
            w.WriteInt64(0, i);
            w.WriteUInt64(1, u64[i % 5]);
            w.WriteUInt64(2, u32[i % 5]);
            w.WriteInt64(3, i64[i % 5]);
            w.WriteInt64(4, i8[i % 5]);
            if (i % 11 == 0)
            {
                w.WriteNull(5);
            }
            else
            {
                w.WriteTimestamp(5, new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddSeconds(i));
            }
        }, new ParquetWriterOptions { RowGroupRows = 4 });
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(path,
            "SELECT count(*) FROM t WHERE u64 = 18446744073709551615",
            "SELECT count(*) FROM t WHERE u64 >= 9223372036854775808",
            "SELECT count(*) FROM t WHERE u32 = 4294967295",
            "SELECT count(*) FROM t WHERE u32 > 2147483647",
            "SELECT count(*) FROM t WHERE i64 = -9223372036854775808",
            "SELECT count(*) FROM t WHERE i64 < 0",
            "SELECT count(*) FROM t WHERE i8 = -128",
            "SELECT count(*) FROM t WHERE ts >= TIMESTAMPTZ '2024-01-01 00:00:40+00'",
            "SELECT count(*) FROM t WHERE ts IS NULL",
            "SELECT CAST(min(u64) AS VARCHAR), CAST(max(u64) AS VARCHAR), CAST(min(i64) AS VARCHAR), CAST(max(i64) AS VARCHAR) FROM t");
        string[] expected =
        [
            Count(i => u64[i % 5] == ulong.MaxValue), Count(i => u64[i % 5] >= 1UL << 63), Count(i => u32[i % 5] == uint.MaxValue), Count(i => u32[i % 5] > int.MaxValue),
            Count(i => i64[i % 5] == long.MinValue), Count(i => i64[i % 5] < 0), Count(i => i8[i % 5] == -128), Count(i => i % 11 != 0 && i >= 40), Count(i => i % 11 == 0),
        ];
        Assert.That(r.Take(9).Select(x => x.Rows[0][0].GetString()), Is.EqualTo(expected));
        Assert.That(r[9].Rows[0].Select(v => v.GetString()), Is.EqualTo(new[] { "0", ulong.MaxValue.ToString(Ic), long.MinValue.ToString(Ic), long.MaxValue.ToString(Ic) }));

        static string Count(Func<int, bool> p) => Enumerable.Range(0, 50).Count(p).ToString(Ic);
    }

    [Test]
    public void Write_GzipAndUncompressed_GiveSameRows()
    {
        ParquetColumn[] cols = [new("id", ParquetColumnType.Int32, false), new("s", ParquetColumnType.String), new("l", ParquetColumnType.Int64List)];
        void Row(ParquetWriter w, int i)
        {
            w.WriteInt64(0, i);
            w.WriteString(1, "value " + (i % 13).ToString(Ic));
            w.WriteInt64List(2, [i, i * 2L]);
        }

        string plain = WriteFile("plain.parquet", cols, 3000, Row);
        string gz = WriteFile("gz.parquet", cols, 3000, Row, new ParquetWriterOptions { Compression = ParquetCompression.Gzip });
        const string Sql = "SELECT md5(string_agg(CAST(id AS VARCHAR) || s || CAST(l AS VARCHAR), '|' ORDER BY id)) FROM t";
        Assert.That(DuckDbOracle.Single(gz, Sql).Rows[0][0].GetString(), Is.EqualTo(DuckDbOracle.Single(plain, Sql).Rows[0][0].GetString()));
        QueryResult meta = DuckDbOracle.Single(null, "SELECT DISTINCT compression FROM parquet_metadata(" + DuckDbOracle.Literal(gz) + ")");
        Assert.That(meta.Rows.Select(x => x[0].GetString()), Is.EqualTo(new[] { "GZIP" }));
        Assert.That(new FileInfo(gz).Length, Is.LessThan(new FileInfo(plain).Length));
    }

    [Test]
    public void Write_IsDeterministic_ForSameRows([Values(ParquetCompression.None, ParquetCompression.Gzip)] ParquetCompression compression)
    {
        ParquetColumn[] cols = [new("id", ParquetColumnType.Int64, false), new("s", ParquetColumnType.String), new("l", ParquetColumnType.StringList)];
        void Row(ParquetWriter w, int i)
        {
            w.WriteInt64(0, i);
            w.WriteString(1, "x" + i.ToString(Ic));
            w.WriteStringList(2, ["a", i.ToString(Ic)]);
        }

        var options = new ParquetWriterOptions { Compression = compression, RowGroupRows = 100 };
        byte[] a = File.ReadAllBytes(WriteFile("a.parquet", cols, 1000, Row, options));
        byte[] b = File.ReadAllBytes(WriteFile("b.parquet", cols, 1000, Row, options));
        Assert.That(a, Is.EqualTo(b));
    }

    [Test]
    public void Write_ToNonSeekableStream_GivesSameBytes()
    {
        ParquetColumn[] cols = [new("id", ParquetColumnType.Int64, false)];
        byte[] expected = File.ReadAllBytes(WriteFile("f.parquet", cols, 10, (w, i) => w.WriteInt64(0, i)));
        using var sink = new ForwardOnlyStream();
        using (var w = new ParquetWriter(sink, cols, leaveOpen: true))
        {
            for (int i = 0; i < 10; i++)
            {
                w.WriteInt64(0, i);
                w.EndRow();
            }

            w.Finish();
            Assert.That(w.BytesWritten, Is.EqualTo(expected.Length));
        }

        Assert.That(sink.Written.ToArray(), Is.EqualTo(expected));
    }

    [Test]
    public void EndRow_Throws_WhenColumnMissing()
    {
        using var w = new ParquetWriter(new MemoryStream(), [new("a", ParquetColumnType.Int32), new("b", ParquetColumnType.Int32)]);
        w.WriteInt64(0, 1);
        Assert.That(w.EndRow, Throws.InvalidOperationException.With.Message.Contains("'b'"));
    }

    [Test]
    public void Write_Throws_OnMisuse()
    {
        using var w = new ParquetWriter(new MemoryStream(), [new("a", ParquetColumnType.UInt8, isNullable: false), new("s", ParquetColumnType.String)]);
        Assert.That(() => w.WriteNull(0), Throws.InvalidOperationException.With.Message.Contains("not nullable"));
        Assert.That(() => w.WriteUInt64(0, 256), Throws.InstanceOf<ArgumentOutOfRangeException>());
        Assert.That(() => w.WriteInt64(0, 1), Throws.InvalidOperationException.With.Message.Contains("UInt8"));
        Assert.That(() => w.WriteBinary(1, [1]), Throws.InvalidOperationException.With.Message.Contains("String"));
        Assert.That(() => w.WriteStringList(1, ["a", null!]), Throws.ArgumentException);
        w.WriteUInt64(0, 255);
        Assert.That(() => w.WriteUInt64(0, 1), Throws.InvalidOperationException.With.Message.Contains("already has a value"));
        w.WriteString(1, "ok");
        w.EndRow();
        w.Finish();
        Assert.That(() => w.WriteUInt64(0, 1), Throws.InvalidOperationException.With.Message.Contains("finished"));
        Assert.That(w.RowCount, Is.EqualTo(1));
    }

    [Test]
    public void Constructor_Throws_ForDuplicateOrNoColumns()
    {
        Assert.That(() => new ParquetWriter(new MemoryStream(), []), Throws.ArgumentException);
        Assert.That(() => new ParquetWriter(new MemoryStream(), [new("a", ParquetColumnType.Int32), new("a", ParquetColumnType.String)]), Throws.ArgumentException.With.Message.Contains("Duplicate"));
    }

    [Test]
    public void Dispose_WithoutFinish_LeavesNoFooter()
    {
        var ms = new MemoryStream();
        using (var w = new ParquetWriter(ms, [new("a", ParquetColumnType.Int32)], leaveOpen: true))
        {
            w.WriteInt64(0, 1);
            w.EndRow();
        }

        Assert.That(ms.ToArray(), Is.EqualTo("PAR1"u8.ToArray()), "only the leading magic: the row group is still buffered and no footer was written");
    }

    /// <summary>A write-only stream without Position or Length.</summary>
    private sealed class ForwardOnlyStream : Stream
    {
        public MemoryStream Written { get; } = new();

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => Written.Write(buffer, offset, count);
    }
}
