namespace XeAnalyzer.Export.Parquet;

/// <summary>Serializes <c>FileMetaData</c> (parquet.thrift) with the Thrift compact protocol.</summary>
internal static class ParquetFooter
{
    // FieldRepetitionType
    private const int Required = 0;
    private const int Optional = 1;
    private const int Repeated = 2;

    // ConvertedType
    private const int ConvertedUtf8 = 0;
    private const int ConvertedList = 3;
    private const int ConvertedTimestampMicros = 10;

    public static void Write(ByteBuffer output, ParquetColumn[] columns, ColumnChunkWriter[] writers, List<RowGroupInfo> rowGroups, long rowCount, ParquetCompression compression)
    {
        var t = new ThriftCompactWriter(output);
        t.BeginStruct();
        t.I32Field(1, 1); // version
        int elements = 1 + columns.Sum(c => c.IsList ? 3 : 1);
        t.ListField(2, ThriftCompactWriter.TypeStruct, elements);
        t.BeginStruct();
        t.StringField(4, "schema");
        t.I32Field(5, columns.Length);
        t.EndStruct();
        foreach (ParquetColumn c in columns)
        {
            WriteSchema(t, c);
        }

        t.I64Field(3, rowCount);
        t.ListField(4, ThriftCompactWriter.TypeStruct, rowGroups.Count);
        for (int g = 0; g < rowGroups.Count; g++)
        {
            WriteRowGroup(t, rowGroups[g], g, columns, writers, compression);
        }

        t.StringField(6, ParquetWriterOptions.CreatedBy);
        t.ListField(7, ThriftCompactWriter.TypeStruct, columns.Length);
        for (int i = 0; i < columns.Length; i++)
        {
            t.BeginStruct();
            t.EmptyStructField(1); // TYPE_ORDER
            t.EndStruct();
        }

        t.EndStruct();
    }

    private static void WriteSchema(ThriftCompactWriter t, ParquetColumn c)
    {
        if (!c.IsList)
        {
            WriteLeaf(t, c.Name, c.Type, c.IsNullable ? Optional : Required);
            return;
        }

        t.BeginStruct();
        t.I32Field(3, c.IsNullable ? Optional : Required);
        t.StringField(4, c.Name);
        t.I32Field(5, 1);
        t.I32Field(6, ConvertedList);
        t.BeginStructField(10);
        t.EmptyStructField(3); // LIST
        t.EndStruct();
        t.EndStruct();

        t.BeginStruct();
        t.I32Field(3, Repeated);
        t.StringField(4, "list");
        t.I32Field(5, 1);
        t.EndStruct();

        WriteLeaf(t, "element", c.Type == ParquetColumnType.Int64List ? ParquetColumnType.Int64 : ParquetColumnType.String, Required);
    }

    private static void WriteLeaf(ThriftCompactWriter t, string name, ParquetColumnType type, int repetition)
    {
        t.BeginStruct();
        t.I32Field(1, (int)PhysicalOf(type));
        t.I32Field(3, repetition);
        t.StringField(4, name);
        (int converted, int bits, bool signed) = type switch
        {
            ParquetColumnType.Int8 => (15, 8, true),
            ParquetColumnType.Int16 => (16, 16, true),
            ParquetColumnType.Int32 => (17, 32, true),
            ParquetColumnType.Int64 => (18, 64, true),
            ParquetColumnType.UInt8 => (11, 8, false),
            ParquetColumnType.UInt16 => (12, 16, false),
            ParquetColumnType.UInt32 => (13, 32, false),
            ParquetColumnType.UInt64 => (14, 64, false),
            _ => (-1, 0, false),
        };
        if (converted >= 0)
        {
            t.I32Field(6, converted);
            t.BeginStructField(10);
            t.BeginStructField(10); // INTEGER
            t.I8Field(1, (sbyte)bits);
            t.BoolField(2, signed);
            t.EndStruct();
            t.EndStruct();
        }
        else if (type == ParquetColumnType.String)
        {
            t.I32Field(6, ConvertedUtf8);
            t.BeginStructField(10);
            t.EmptyStructField(1); // STRING
            t.EndStruct();
        }
        else if (type == ParquetColumnType.TimestampMicros)
        {
            t.I32Field(6, ConvertedTimestampMicros);
            t.BeginStructField(10);
            t.BeginStructField(8); // TIMESTAMP
            t.BoolField(1, true); // isAdjustedToUTC
            t.BeginStructField(2); // unit
            t.EmptyStructField(2); // MICROS
            t.EndStruct();
            t.EndStruct();
            t.EndStruct();
        }

        t.EndStruct();
    }

    private static ParquetPhysicalType PhysicalOf(ParquetColumnType type) => type switch
    {
        ParquetColumnType.Boolean => ParquetPhysicalType.Boolean,
        ParquetColumnType.Int8 or ParquetColumnType.Int16 or ParquetColumnType.Int32
            or ParquetColumnType.UInt8 or ParquetColumnType.UInt16 or ParquetColumnType.UInt32 => ParquetPhysicalType.Int32,
        ParquetColumnType.Int64 or ParquetColumnType.UInt64 or ParquetColumnType.TimestampMicros => ParquetPhysicalType.Int64,
        ParquetColumnType.Float => ParquetPhysicalType.Float,
        ParquetColumnType.Double => ParquetPhysicalType.Double,
        _ => ParquetPhysicalType.ByteArray,
    };

    private static void WriteRowGroup(ThriftCompactWriter t, RowGroupInfo g, int ordinal, ParquetColumn[] columns, ColumnChunkWriter[] writers, ParquetCompression compression)
    {
        t.BeginStruct();
        t.ListField(1, ThriftCompactWriter.TypeStruct, g.Columns.Length);
        for (int i = 0; i < g.Columns.Length; i++)
        {
            ColumnChunkInfo c = g.Columns[i];
            ColumnChunkWriter w = writers[i];
            t.BeginStruct();
            t.I64Field(2, 0); // file_offset: no ColumnMetaData outside the footer
            t.BeginStructField(3);
            t.I32Field(1, (int)w.Physical);
            bool levels = w.MaxDef > 0 || w.MaxRep > 0;
            t.ListField(2, ThriftCompactWriter.TypeI32, levels ? 2 : 1);
            t.WriteI32(0); // PLAIN
            if (levels)
            {
                t.WriteI32(3); // RLE
            }

            string[] path = columns[i].IsList ? [columns[i].Name, "list", "element"] : [columns[i].Name];
            t.ListField(3, ThriftCompactWriter.TypeBinary, path.Length);
            foreach (string p in path)
            {
                t.WriteString(p);
            }

            t.I32Field(4, compression == ParquetCompression.Gzip ? 2 : 0);
            t.I64Field(5, c.NumValues);
            t.I64Field(6, c.UncompressedSize);
            t.I64Field(7, c.CompressedSize);
            t.I64Field(9, c.DataPageOffset);
            if (c.NullCount is long nulls)
            {
                t.BeginStructField(12);
                t.I64Field(3, nulls);
                if (c.MaxValue is not null && c.MinValue is not null)
                {
                    t.BinaryField(5, c.MaxValue);
                    t.BinaryField(6, c.MinValue);
                }

                t.EndStruct();
            }

            t.EndStruct();
            t.EndStruct();
        }

        t.I64Field(2, g.UncompressedSize);
        t.I64Field(3, g.NumRows);
        t.I64Field(5, g.FileOffset);
        t.I64Field(6, g.CompressedSize);
        if (ordinal <= short.MaxValue)
        {
            t.FieldI16(7, (short)ordinal);
        }

        t.EndStruct();
    }
}
