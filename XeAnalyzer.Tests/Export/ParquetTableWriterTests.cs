using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using XeAnalyzer.Export;

namespace XeAnalyzer.Tests.Export;

/// <summary>
/// The export's table writer (column buffers over Parquet.Net) on hand-built tables, read back by DuckDB (an
/// independent reader): every type of the layout, nulls, null and empty lists, many row groups, long strings,
/// statistics that DuckDB filters by, dictionary encoding, compression codecs, determinism; plus the API's misuse
/// errors.
/// </summary>
internal sealed class ParquetTableWriterTests
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

    private static ParquetTableOptions Options(
        int rowGroupRows = 1000,
        ParquetCompression compression = ParquetCompression.Zstd
    ) => new(rowGroupRows, 64L << 20, compression);

    private string WriteFile(
        string name,
        ParquetColumn[] columns,
        int rows,
        Action<ParquetTableWriter, int> row,
        ParquetTableOptions? options = null
    )
    {
        string path = Path.Combine(_dir, name);
        using var w = new ParquetTableWriter(File.Create(path), columns, options ?? Options());
        for (int i = 0; i < rows; i++)
        {
            row(w, i);
            w.EndRow();
        }

        w.Finish();
        return path;
    }

    [Test]
    public void Finish_WritesReadableEmptyTable_ForZeroRows()
    {
        string path = WriteFile(
            "empty.parquet",
            [new("id", ParquetColumnType.Int64, false), new("s", ParquetColumnType.String)],
            0,
            (_, _) => { }
        );
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(path, "SELECT count(*) FROM t", "DESCRIBE t");
        Assert.That(r[0].Text(0, "count_star()"), Is.EqualTo("0"));
        Assert.That(
            r[1].Rows.Select(x => x[0].GetString() + " " + x[1].GetString()),
            Is.EqualTo(new[] { "id BIGINT", "s VARCHAR" })
        );
    }

    [Test]
    public void Write_ReadsBackEveryScalarType_WithDuckDb()
    {
        ParquetColumn[] cols =
        [
            new("id", ParquetColumnType.Int32, false),
            new("b", ParquetColumnType.Boolean),
            new("i8", ParquetColumnType.Int8),
            new("i16", ParquetColumnType.Int16),
            new("i32", ParquetColumnType.Int32),
            new("i64", ParquetColumnType.Int64),
            new("u8", ParquetColumnType.UInt8),
            new("u16", ParquetColumnType.UInt16),
            new("u32", ParquetColumnType.UInt32),
            new("u64", ParquetColumnType.UInt64),
            new("f", ParquetColumnType.Float),
            new("d", ParquetColumnType.Double),
            new("s", ParquetColumnType.String),
            new("bin", ParquetColumnType.Binary),
            new("ts", ParquetColumnType.TimestampMicros),
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
        byte[][] bin =
        [
            [],
            [0],
            [1, 2, 255],
            [.. Enumerable.Range(0, 300).Select(x => (byte)x)],
        ];
        DateTime[] ts =
        [
            new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc),
            new DateTime(2024, 3, 1, 12, 0, 0, DateTimeKind.Utc).AddTicks(12345),
            new DateTime(1601, 1, 1, 0, 0, 0, DateTimeKind.Utc),
            new DateTime(9999, 12, 31, 23, 59, 59, DateTimeKind.Utc),
        ];
        const int Rows = 5; // row 4 is all nulls
        string path = WriteFile(
            "scalars.parquet",
            cols,
            Rows,
            (w, i) =>
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
            }
        );

        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT id, CAST(b AS VARCHAR) b, CAST(i8 AS VARCHAR) i8, CAST(i16 AS VARCHAR) i16, CAST(i32 AS VARCHAR) "
                + "i32, CAST(i64 AS VARCHAR) i64, "
                + "CAST(u8 AS VARCHAR) u8, CAST(u16 AS VARCHAR) u16, CAST(u32 AS VARCHAR) u32, CAST(u64 AS VARCHAR) "
                + "u64, "
                + "CAST(f AS DOUBLE) f, d, s, hex(bin) bin, CAST(epoch_us(ts) AS VARCHAR) ts FROM t ORDER BY id",
            "SELECT column_name, column_type FROM (DESCRIBE t)"
        );
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
            Assert.That(
                q.Text(i, "ts"),
                Is.EqualTo(((ts[i].Ticks - DateTime.UnixEpoch.Ticks) / 10).ToString(Ic)),
                "µs since 1970 (all inputs are whole µs or later than 1970)"
            );
        }

        Assert.That(
            q.Rows[4].Skip(1).All(v => v.ValueKind == System.Text.Json.JsonValueKind.Null),
            Is.True,
            "row 4 is null in every nullable column"
        );
        Assert.That(
            r[1].Rows.Select(x => x[1].GetString()),
            Is.EqualTo(
                new[]
                {
                    "INTEGER",
                    "BOOLEAN",
                    "TINYINT",
                    "SMALLINT",
                    "INTEGER",
                    "BIGINT",
                    "UTINYINT",
                    "USMALLINT",
                    "UINTEGER",
                    "UBIGINT",
                    "FLOAT",
                    "DOUBLE",
                    "VARCHAR",
                    "BLOB",
                    "TIMESTAMP WITH TIME ZONE",
                }
            )
        );
    }

    [Test]
    public void Write_SplitsRowGroups_AndKeepsRowOrder()
    {
        var options = Options(rowGroupRows: 7);
        string path = WriteFile(
            "groups.parquet",
            [new("id", ParquetColumnType.Int64, false), new("sq", ParquetColumnType.Int64)],
            100,
            (w, i) =>
            {
                w.WriteInt64(0, i);
                w.WriteInt64(1, (long)i * i);
            },
            options
        );
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT count(*) FROM t",
            "SELECT string_agg(CAST(id AS VARCHAR), ',') FROM t",
            "SELECT CAST(sum(sq) AS VARCHAR) FROM t",
            "SELECT num_row_groups FROM parquet_file_metadata(" + DuckDbOracle.Literal(path) + ")",
            "SELECT row_group_id, CAST(row_group_num_rows AS VARCHAR) FROM parquet_metadata("
                + DuckDbOracle.Literal(path)
                + ") WHERE column_id = 0 ORDER BY row_group_id"
        );
        Assert.That(r[0].Rows[0][0].GetString(), Is.EqualTo("100"));
        Assert.That(
            r[1].Rows[0][0].GetString(),
            Is.EqualTo(string.Join(",", Enumerable.Range(0, 100))),
            "file order is row order"
        );
        Assert.That(
            r[2].Rows[0][0].GetString(),
            Is.EqualTo(Enumerable.Range(0, 100).Sum(i => (long)i * i).ToString(Ic))
        );
        Assert.That(r[3].Rows[0][0].GetString(), Is.EqualTo("15"), "ceil(100 / 7) row groups");
        Assert.That(r[4].Rows.Select(x => x[1].GetString()), Is.EqualTo(Enumerable.Repeat("7", 14).Append("2")));
    }

    [Test]
    public void Write_NullPatterns_SurviveLevelEncoding([Values(1, 3, 2048)] int rowGroupRows)
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

        string path = WriteFile(
            "nulls.parquet",
            [
                new("id", ParquetColumnType.Int32, false),
                new("v", ParquetColumnType.UInt16),
                new("flag", ParquetColumnType.Boolean),
            ],
            isNull.Length,
            (w, i) =>
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
            },
            Options(rowGroupRows: rowGroupRows)
        );

        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT string_agg(CASE WHEN v IS NULL THEN '0' ELSE '1' END, '' ORDER BY id) FROM t",
            "SELECT count(*) FROM t WHERE v IS NOT NULL AND v <> id % 65536",
            "SELECT string_agg(CASE WHEN flag IS NULL THEN 'n' WHEN flag THEN 't' ELSE 'f' END, '' ORDER BY id) FROM t"
        );
        Assert.That(r[0].Rows[0][0].GetString(), Is.EqualTo(string.Concat(isNull.Select(n => n ? '0' : '1'))));
        Assert.That(r[1].Rows[0][0].GetString(), Is.EqualTo("0"), "every present value is the one written");
        Assert.That(
            r[2].Rows[0][0].GetString(),
            Is.EqualTo(
                string.Concat(
                    isNull.Select(
                        (n, i) =>
                            n ? 'n'
                            : i % 3 == 0 ? 't'
                            : 'f'
                    )
                )
            )
        );
    }

    [Test]
    public void Write_Lists_NullEmptyAndLong([Values] ParquetCompression compression)
    {
        long[][] stacks =
        [
            [],
            [1],
            [long.MinValue, -1, 0, long.MaxValue],
            [.. Enumerable.Range(0, 1000).Select(x => 0x7FF800000000L + x)],
        ];
        string[][] names =
        [
            ["\u00e9\u4e2d", ""],
            [],
            ["a"],
            [.. Enumerable.Range(0, 50).Select(x => "frame" + x.ToString(Ic))],
        ];
        string path = WriteFile(
            "lists.parquet",
            [
                new("id", ParquetColumnType.Int32, false),
                new("stack", ParquetColumnType.Int64List),
                new("names", ParquetColumnType.StringList),
                new("req", ParquetColumnType.Int64List, false),
            ],
            40,
            (w, i) =>
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
            },
            Options(rowGroupRows: 9, compression: compression)
        );

        QueryResult q = DuckDbOracle.Single(
            path,
            "SELECT id, stack IS NULL sn, len(stack) sl, CAST(stack[1] AS VARCHAR) sf, CAST(stack[-1] AS VARCHAR) sz, "
                + "names IS NULL nn, len(names) nl, names[1] nf, names[-1] nz, len(req) rl, CAST(list_sum(req) AS "
                + "VARCHAR) rs FROM t ORDER BY id"
        );
        Assert.That(q.Rows, Has.Length.EqualTo(40));
        for (int i = 0; i < 40; i++)
        {
            long[] st = stacks[i % 4];
            string[] nm = names[i % 4];
            long[] rq = stacks[(i + 1) % 4];
            bool stackNull = i % 5 == 4,
                namesNull = i % 7 == 6;
            Assert.That(q.Text(i, "sn"), Is.EqualTo(stackNull ? "true" : "false"), "row " + i);
            Assert.That(q.Text(i, "sl"), Is.EqualTo(stackNull ? null : st.Length.ToString(Ic)), "row " + i);
            Assert.That(
                q.Text(i, "sf"),
                Is.EqualTo(stackNull || st.Length == 0 ? null : st[0].ToString(Ic)),
                "row " + i
            );
            Assert.That(
                q.Text(i, "sz"),
                Is.EqualTo(stackNull || st.Length == 0 ? null : st[^1].ToString(Ic)),
                "row " + i
            );
            Assert.That(q.Text(i, "nn"), Is.EqualTo(namesNull ? "true" : "false"), "row " + i);
            Assert.That(q.Text(i, "nl"), Is.EqualTo(namesNull ? null : nm.Length.ToString(Ic)), "row " + i);
            Assert.That(q.Text(i, "nf"), Is.EqualTo(namesNull || nm.Length == 0 ? null : nm[0]), "row " + i);
            Assert.That(q.Text(i, "nz"), Is.EqualTo(namesNull || nm.Length == 0 ? null : nm[^1]), "row " + i);
            Assert.That(q.Text(i, "rl"), Is.EqualTo(rq.Length.ToString(Ic)), "row " + i);
            Assert.That(
                q.Text(i, "rs"),
                Is.EqualTo(
                    rq.Length == 0 ? null : rq.Select(x => (System.Int128)x).Aggregate((a, b) => a + b).ToString(Ic)
                ),
                "row " + i
            );
        }
    }

    [Test]
    public void Write_AllNullColumn_ReadsAsNull()
    {
        string path = WriteFile(
            "allnull.parquet",
            [
                new("id", ParquetColumnType.Int32, false),
                new("n", ParquetColumnType.UInt64),
                new("s", ParquetColumnType.String),
                new("l", ParquetColumnType.Int64List),
            ],
            1000,
            (w, i) =>
            {
                w.WriteInt64(0, i);
                w.WriteNull(1);
                w.WriteNull(2);
                w.WriteNull(3);
            },
            Options(rowGroupRows: 300)
        );
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT count(*), count(n), count(s), count(l) FROM t",
            "SELECT count(*) FROM t WHERE n IS NULL AND s IS NULL AND l IS NULL"
        );
        Assert.That(r[0].Rows[0].Select(v => v.GetString()), Is.EqualTo(new[] { "1000", "0", "0", "0" }));
        Assert.That(r[1].Rows[0][0].GetString(), Is.EqualTo("1000"));
    }

    [Test]
    public void Write_LongStrings_SpanningPages()
    {
        string big =
            string.Concat(Enumerable.Range(0, 200_000).Select(i => (char)('a' + (i % 26)))) + "\u00e9\u4e2d\U0001F600";
        string[] values = [big, "short", big[..70_000], "\ud800 lone surrogate"];
        string path = WriteFile(
            "long.parquet",
            [new("id", ParquetColumnType.Int32, false), new("s", ParquetColumnType.String, false)],
            12,
            (w, i) =>
            {
                w.WriteInt64(0, i);
                w.WriteString(1, values[i % 4]);
            },
            Options(rowGroupRows: 5)
        );
        QueryResult q = DuckDbOracle.Single(
            path,
            "SELECT id, sha256(s) h, CAST(length(s) AS VARCHAR) n FROM t ORDER BY id"
        );
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
        ParquetColumn[] cols =
        [
            new("id", ParquetColumnType.Int32, false),
            new("u64", ParquetColumnType.UInt64),
            new("u32", ParquetColumnType.UInt32),
            new("i64", ParquetColumnType.Int64),
            new("i8", ParquetColumnType.Int8),
            new("ts", ParquetColumnType.TimestampMicros),
        ];
        ulong[] u64 = [0, 1, 1UL << 63, ulong.MaxValue, 5];
        ulong[] u32 = [0, 1, 1U << 31, uint.MaxValue, 5];
        long[] i64 = [0, -1, long.MinValue, long.MaxValue, 5];
        long[] i8 = [0, -1, sbyte.MinValue, sbyte.MaxValue, 5];
        string path = WriteFile(
            "stats.parquet",
            cols,
            50,
            (w, i) =>
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
            },
            Options(rowGroupRows: 4)
        );
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT count(*) FROM t WHERE u64 = 18446744073709551615",
            "SELECT count(*) FROM t WHERE u64 >= 9223372036854775808",
            "SELECT count(*) FROM t WHERE u32 = 4294967295",
            "SELECT count(*) FROM t WHERE u32 > 2147483647",
            "SELECT count(*) FROM t WHERE i64 = -9223372036854775808",
            "SELECT count(*) FROM t WHERE i64 < 0",
            "SELECT count(*) FROM t WHERE i8 = -128",
            "SELECT count(*) FROM t WHERE ts >= TIMESTAMPTZ '2024-01-01 00:00:40+00'",
            "SELECT count(*) FROM t WHERE ts IS NULL",
            "SELECT CAST(min(u64) AS VARCHAR), CAST(max(u64) AS VARCHAR), CAST(min(i64) AS VARCHAR), CAST(max(i64) "
                + "AS VARCHAR) FROM t"
        );
        string[] expected =
        [
            Count(i => u64[i % 5] == ulong.MaxValue),
            Count(i => u64[i % 5] >= 1UL << 63),
            Count(i => u32[i % 5] == uint.MaxValue),
            Count(i => u32[i % 5] > int.MaxValue),
            Count(i => i64[i % 5] == long.MinValue),
            Count(i => i64[i % 5] < 0),
            Count(i => i8[i % 5] == -128),
            Count(i => i % 11 != 0 && i >= 40),
            Count(i => i % 11 == 0),
        ];
        Assert.That(r.Take(9).Select(x => x.Rows[0][0].GetString()), Is.EqualTo(expected));
        Assert.That(
            r[9].Rows[0].Select(v => v.GetString()),
            Is.EqualTo(
                new[] { "0", ulong.MaxValue.ToString(Ic), long.MinValue.ToString(Ic), long.MaxValue.ToString(Ic) }
            )
        );

        static string Count(Func<int, bool> p) => Enumerable.Range(0, 50).Count(p).ToString(Ic);
    }

    [Test]
    public void Write_EveryCodec_GivesSameRows(
        [Values(ParquetCompression.Snappy, ParquetCompression.Gzip, ParquetCompression.Zstd)] ParquetCompression codec
    )
    {
        ParquetColumn[] cols =
        [
            new("id", ParquetColumnType.Int32, false),
            new("s", ParquetColumnType.String),
            new("l", ParquetColumnType.Int64List),
        ];
        void Row(ParquetTableWriter w, int i)
        {
            w.WriteInt64(0, i);
            w.WriteString(1, "value " + (i % 13).ToString(Ic));
            w.WriteInt64List(2, [i, i * 2L]);
        }

        string plain = WriteFile("plain.parquet", cols, 3000, Row, Options(compression: ParquetCompression.None));
        string packed = WriteFile("packed.parquet", cols, 3000, Row, Options(compression: codec));
        const string Sql =
            "SELECT md5(string_agg(CAST(id AS VARCHAR) || s || CAST(l AS VARCHAR), '|' ORDER BY id)) FROM t";
        Assert.That(
            DuckDbOracle.Single(packed, Sql).Rows[0][0].GetString(),
            Is.EqualTo(DuckDbOracle.Single(plain, Sql).Rows[0][0].GetString())
        );
        Assert.That(
            DuckDbOracle
                .Single(null, "SELECT DISTINCT compression FROM parquet_metadata(" + DuckDbOracle.Literal(plain) + ")")
                .Rows.Select(x => x[0].GetString()),
            Is.EqualTo(new[] { "UNCOMPRESSED" })
        );
        QueryResult meta = DuckDbOracle.Single(
            null,
            "SELECT DISTINCT compression FROM parquet_metadata(" + DuckDbOracle.Literal(packed) + ")"
        );
        Assert.That(meta.Rows.Select(x => x[0].GetString()), Is.EqualTo(new[] { codec.ToString().ToUpperInvariant() }));
        Assert.That(new FileInfo(packed).Length, Is.LessThan(new FileInfo(plain).Length));
    }

    [Test]
    public void Write_DictionaryEncodesRepeatedStrings_AndNotUniqueOnes()
    {
        ParquetColumn[] cols =
        [
            new("id", ParquetColumnType.Int32, false),
            new("wait", ParquetColumnType.String),
            new("unique", ParquetColumnType.String),
            new("frames", ParquetColumnType.StringList),
        ];
        string[] waits = ["PAGEIOLATCH_SH", "LATCH_EX", "CXPACKET"];
        string path = WriteFile(
            "dict.parquet",
            cols,
            5000,
            (w, i) =>
            {
                w.WriteInt64(0, i);
                w.WriteString(1, waits[i % 3]);
                w.WriteString(2, "u" + i.ToString(Ic));
                w.WriteStringList(
                    3,
                    ["sqlmin.dll!Leaf+0x1a9", "sqlmin.dll!Mid+0x" + (i % 4).ToString("x", Ic), "sqldk.dll!Root+0x10"]
                );
            }
        );
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT path_in_schema, encodings FROM parquet_metadata("
                + DuckDbOracle.Literal(path)
                + ") WHERE row_group_id = 0 ORDER BY column_id",
            "SELECT count(*) FROM t WHERE wait = 'LATCH_EX' AND frames[2] = 'sqlmin.dll!Mid+0x1'",
            "SELECT count(DISTINCT \"unique\") FROM t"
        );
        var encodings = r[0].Rows.ToDictionary(x => x[0].GetString()!, x => x[1].GetString()!);
        Assert.That(encodings["wait"], Does.Contain("DICTIONARY"), "3 distinct values in 5000");
        Assert.That(encodings["frames, list, element"], Does.Contain("DICTIONARY"), "list elements repeat too");
        Assert.That(encodings["unique"], Does.Not.Contain("DICTIONARY"), "all distinct: plain");
        Assert.That(
            r[1].Rows[0][0].GetString(),
            Is.EqualTo(Enumerable.Range(0, 5000).Count(i => i % 3 == 1 && i % 4 == 1).ToString(Ic))
        );
        Assert.That(r[2].Rows[0][0].GetString(), Is.EqualTo("5000"));
    }

    [Test]
    public void Statistics_OfTimestamps_AreMicroseconds_SoTimeFiltersKeepEveryRow()
    {
        // Parquet.Net 6.1.0 alone writes TIMESTAMP(MICROS) min/max in milliseconds (aloneguid/parquet-dotnet#769):
        // DuckDB would then skip every row group of this filter. The writer corrects the footer statistics.
        DateTime start = new(2024, 5, 14, 9, 31, 12, DateTimeKind.Utc);
        string path = WriteFile(
            "times.parquet",
            [
                new("id", ParquetColumnType.Int32, false),
                new("ts", ParquetColumnType.TimestampMicros, false),
                new("ft", ParquetColumnType.TimestampMicros),
            ],
            1000,
            (w, i) =>
            {
                w.WriteInt64(0, i);
                w.WriteTimestamp(1, start.AddTicks(i * 12_345L));
                if (i % 10 == 0)
                {
                    w.WriteNull(2);
                }
                else
                {
                    w.WriteTimestamp(2, new DateTime(1969, 12, 31, 23, 59, 59, DateTimeKind.Utc).AddTicks(i * 7L));
                }
            },
            Options(rowGroupRows: 128)
        );
        string cut = start.AddTicks(500 * 12_345L).ToString("yyyy-MM-dd HH:mm:ss.ffffff", Ic);
        IReadOnlyList<QueryResult> r = DuckDbOracle.Query(
            path,
            "SELECT count(*) FROM t WHERE ts >= TIMESTAMPTZ '" + cut + "+00'",
            "SELECT count(*) FROM t WHERE ts > TIMESTAMPTZ '2023-01-01 00:00:00+00'",
            "SELECT count(*) FROM t WHERE ft < TIMESTAMPTZ '1970-01-01 00:00:00+00'",
            "SELECT row_group_id, CAST(epoch_us(CAST(stats_min_value AS TIMESTAMPTZ)) AS VARCHAR), "
                + "CAST(epoch_us(CAST(stats_max_value AS TIMESTAMPTZ)) AS VARCHAR) FROM parquet_metadata("
                + DuckDbOracle.Literal(path)
                + ") WHERE column_id = 1 ORDER BY row_group_id"
        );
        Assert.That(r[0].Rows[0][0].GetString(), Is.EqualTo("500"));
        Assert.That(r[1].Rows[0][0].GetString(), Is.EqualTo("1000"));
        Assert.That(
            r[2].Rows[0][0].GetString(),
            Is.EqualTo(Enumerable.Range(0, 1000).Count(i => i % 10 != 0 && i * 7L < 10_000_000).ToString(Ic))
        );
        Assert.That(r[3].Rows, Has.Length.EqualTo(8));
        foreach (System.Text.Json.JsonElement[] g in r[3].Rows)
        {
            int first = int.Parse(g[0].GetString()!, Ic) * 128,
                last = Math.Min(1000, first + 128) - 1;
            Assert.That(
                g[1].GetString(),
                Is.EqualTo(ExportOracle.Micros(start.AddTicks(first * 12_345L))),
                "min of row group " + g[0]
            );
            Assert.That(
                g[2].GetString(),
                Is.EqualTo(ExportOracle.Micros(start.AddTicks(last * 12_345L))),
                "max of row group " + g[0]
            );
        }
    }

    [Test]
    public void Write_IsDeterministic_ForSameRows([Values] ParquetCompression compression)
    {
        ParquetColumn[] cols =
        [
            new("id", ParquetColumnType.Int64, false),
            new("s", ParquetColumnType.String),
            new("l", ParquetColumnType.StringList),
        ];
        void Row(ParquetTableWriter w, int i)
        {
            w.WriteInt64(0, i);
            w.WriteString(1, "x" + i.ToString(Ic));
            w.WriteStringList(2, ["a", i.ToString(Ic)]);
        }

        var options = Options(rowGroupRows: 100, compression: compression);
        byte[] a = File.ReadAllBytes(WriteFile("a.parquet", cols, 1000, Row, options));
        byte[] b = File.ReadAllBytes(WriteFile("b.parquet", cols, 1000, Row, options));
        Assert.That(a, Is.EqualTo(b));
    }

    [Test]
    public void EndRow_Throws_WhenColumnMissing()
    {
        using var w = new ParquetTableWriter(
            new MemoryStream(),
            [new("a", ParquetColumnType.Int32), new("b", ParquetColumnType.Int32)],
            Options()
        );
        w.WriteInt64(0, 1);
        Assert.That(w.EndRow, Throws.InvalidOperationException.With.Message.Contains("'b'"));
    }

    [Test]
    public void Write_Throws_OnMisuse()
    {
        using var w = new ParquetTableWriter(
            new MemoryStream(),
            [new("a", ParquetColumnType.UInt8, isNullable: false), new("s", ParquetColumnType.String)],
            Options()
        );
        Assert.That(() => w.WriteNull(0), Throws.InvalidOperationException.With.Message.Contains("not nullable"));
        Assert.That(() => w.WriteUInt64(0, 256), Throws.InstanceOf<ArgumentOutOfRangeException>());
        Assert.That(() => w.WriteInt64(0, 1), Throws.InvalidOperationException.With.Message.Contains("UInt8"));
        Assert.That(() => w.WriteBinary(1, [1]), Throws.InvalidOperationException.With.Message.Contains("String"));
        Assert.That(() => w.WriteStringList(1, ["a", null!]), Throws.ArgumentException);
        w.WriteUInt64(0, 255);
        Assert.That(
            () => w.WriteUInt64(0, 1),
            Throws.InvalidOperationException.With.Message.Contains("already has a value")
        );
        w.WriteString(1, "ok");
        w.EndRow();
        w.Finish();
        Assert.That(() => w.WriteUInt64(0, 1), Throws.InvalidOperationException.With.Message.Contains("finished"));
        Assert.That(w.RowCount, Is.EqualTo(1));
    }

    [Test]
    public void Constructor_Throws_ForDuplicateOrNoColumns()
    {
        Assert.That(() => new ParquetTableWriter(new MemoryStream(), [], Options()), Throws.ArgumentException);
        Assert.That(
            () =>
                new ParquetTableWriter(
                    new MemoryStream(),
                    [new("a", ParquetColumnType.Int32), new("a", ParquetColumnType.String)],
                    Options()
                ),
            Throws.ArgumentException.With.Message.Contains("Duplicate")
        );
    }

    [Test]
    public void Dispose_WithoutFinish_LeavesFileNoReaderAccepts()
    {
        string path = Path.Combine(_dir, "unfinished.parquet");
        using (
            var w = new ParquetTableWriter(
                File.Create(path),
                [new("a", ParquetColumnType.Int32)],
                Options(rowGroupRows: 2)
            )
        )
        {
            for (int i = 0; i < 5; i++)
            {
                w.WriteInt64(0, i);
                w.EndRow();
            }
        }

        Assert.That(new FileInfo(path).Length, Is.GreaterThan(4), "two row groups were written");
        Assert.That(
            () => DuckDbOracle.Single(path, "SELECT count(*) FROM t"),
            Throws.Exception,
            "no footer: not a Parquet file"
        );
    }
}
