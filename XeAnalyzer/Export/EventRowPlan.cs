using System.Runtime.InteropServices;
using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Export;

/// <summary>One value to copy: from field or action <see cref="Source"/> to column <see cref="Column"/> (and
/// <see cref="KeyColumn"/> for a map).</summary>
internal readonly record struct ValueOp(
    int Source,
    ValueConversion Conversion,
    int Column,
    int KeyColumn,
    int FramesColumn
);

/// <summary>
/// How the events of one event type with one action set become rows of a table: resolved once per (event type, action
/// set) pair, then applied to each event without lookups.
/// </summary>
internal sealed class EventRowPlan
{
    private const ulong MaxFileTime = 2650467743999999999UL; // DateTime.MaxValue as a FILETIME

    private readonly ValueOp[] _fields;
    private readonly ValueOp[] _actions;
    private readonly int[] _nullColumns;

    public EventRowPlan(EventTable table, TableWriter writer, XeEventType type, XeActionSet actions)
    {
        Table = table;
        Writer = writer;
        var covered = new bool[table.Columns.Length];
        for (int i = 0; i < EventTable.CommonColumns.Length; i++)
        {
            covered[i] = true;
        }

        var fields = new List<ValueOp>();
        for (int i = 0; i < type.Fields.Count; i++)
        {
            XeColumn f = type.Fields[i];
            if (table.Field(f.Name) is TableMember m && Claim(covered, m))
            {
                fields.Add(new ValueOp(i, ColumnShape.ConversionOf(f), m.ValueColumn, m.KeyColumn, m.FramesColumn));
            }
        }

        var acts = new List<ValueOp>();
        int dropped = 0;
        for (int i = 0; i < actions.Count; i++)
        {
            XeColumn a = actions[i];
            if (string.Equals(a.FullName, EventTable.EventSequenceAction, StringComparison.Ordinal))
            {
                continue;
            }

            if (table.Action(a.FullName) is TableMember m && Claim(covered, m))
            {
                acts.Add(new ValueOp(i, ColumnShape.ConversionOf(a), m.ValueColumn, m.KeyColumn, m.FramesColumn));
            }
            else
            {
                dropped++;
            }
        }

        _fields = [.. fields];
        _actions = [.. acts];
        _nullColumns = [.. Enumerable.Range(0, covered.Length).Where(c => !covered[c])];
        DroppedActions = dropped;
    }

    public EventTable Table { get; }

    public TableWriter Writer { get; }

    /// <summary>Actions of the set that have no column (not seen when the layout was built).</summary>
    public int DroppedActions { get; }

    /// <summary>Writes <paramref name="e"/> as one row.</summary>
    public void Write(XEvent e, string captureFile, ExportScratch scratch)
    {
        ParquetTableWriter w = Writer.Parquet;
        w.WriteTimestamp(0, e.Timestamp);
        if (e.EventSequence is ulong seq)
        {
            w.WriteUInt64(1, seq);
        }
        else
        {
            w.WriteNull(1);
        }

        w.WriteString(2, captureFile);
        if (e.Source.Offset >= 0)
        {
            w.WriteInt64(3, e.Source.Offset);
        }
        else
        {
            // An event of target-data XML has no file offset: null, never invented.
            w.WriteNull(3);
        }
        w.WriteString(4, e.Name);
        w.WriteString(5, e.PackageName);
        foreach (ValueOp op in _fields)
        {
            WriteValue(w, op, e.GetField(op.Source), captureFile, scratch);
        }

        foreach (ValueOp op in _actions)
        {
            WriteValue(w, op, e.GetAction(op.Source), captureFile, scratch);
        }

        foreach (int c in _nullColumns)
        {
            w.WriteNull(c);
        }

        w.EndRow();
    }

    private static bool Claim(bool[] covered, TableMember m)
    {
        if (covered[m.ValueColumn])
        {
            return false;
        }

        covered[m.ValueColumn] = true;
        if (m.KeyColumn >= 0)
        {
            covered[m.KeyColumn] = true;
        }

        if (m.FramesColumn >= 0)
        {
            covered[m.FramesColumn] = true;
        }

        return true;
    }

    private static void WriteValue(
        ParquetTableWriter w,
        in ValueOp op,
        XeValue v,
        string captureFile,
        ExportScratch scratch
    )
    {
        switch (op.Conversion)
        {
            case ValueConversion.Signed:
                w.WriteInt64(op.Column, v.AsInt64());
                break;
            case ValueConversion.Unsigned:
                w.WriteUInt64(op.Column, v.AsUInt64());
                break;
            case ValueConversion.Float:
                w.WriteDouble(op.Column, v.AsDouble());
                break;
            case ValueConversion.Boolean:
                w.WriteBoolean(op.Column, v.AsBoolean());
                break;
            case ValueConversion.FileTime:
                ulong ft = v.AsUInt64();
                if (ft <= MaxFileTime)
                {
                    w.WriteTimestamp(op.Column, DateTime.FromFileTimeUtc((long)ft));
                }
                else
                {
                    w.WriteNull(op.Column);
                }

                break;
            case ValueConversion.Text:
                string text = v.AsString();
                w.WriteString(op.Column, text);
                if (op.FramesColumn >= 0)
                {
                    w.WriteStringList(op.FramesColumn, scratch.ResolveText(captureFile, text));
                }

                break;
            case ValueConversion.Rendered:
                w.WriteString(op.Column, v.ToString());
                break;
            case ValueConversion.Binary:
                w.WriteBinary(op.Column, v.AsSpan());
                break;
            case ValueConversion.Callstack:
                int n = v.CallstackFrameCount;
                Span<ulong> frames = scratch.Frames(n);
                n = v.CopyCallstackTo(frames);
                w.WriteInt64List(op.Column, MemoryMarshal.Cast<ulong, long>(frames[..n]));
                if (op.FramesColumn >= 0)
                {
                    w.WriteStringList(op.FramesColumn, scratch.Resolve(captureFile, frames[..n]));
                }

                break;
            case ValueConversion.MapText:
                w.WriteString(op.Column, v.MapText);
                w.WriteUInt64(op.KeyColumn, v.MapKey);
                break;
            default:
                throw new InvalidOperationException("Unexpected conversion " + op.Conversion.ToString() + ".");
        }
    }
}

/// <summary>Reusable buffers of one export, and the cache of resolved frames.</summary>
internal sealed class ExportScratch(
    Func<string, ulong, string>? resolver,
    Func<string, string, IReadOnlyList<string>>? textResolver = null
)
{
    private const int MaxCachedFrames = 1_000_000;
    private readonly Dictionary<ulong, string> _resolved = [];
    private ulong[] _frames = new ulong[256];
    private string[] _texts = new string[256];
    private string? _resolvedFile;

    /// <summary>The frame texts of <paramref name="addresses"/> (valid until the next call).</summary>
    public ReadOnlySpan<string> Resolve(string captureFile, ReadOnlySpan<ulong> addresses)
    {
        if (!ReferenceEquals(captureFile, _resolvedFile) || _resolved.Count > MaxCachedFrames)
        {
            _resolved.Clear();
            _resolvedFile = captureFile;
        }

        if (_texts.Length < addresses.Length)
        {
            _texts = new string[Math.Max(addresses.Length, _texts.Length * 2)];
        }

        for (int i = 0; i < addresses.Length; i++)
        {
            if (!_resolved.TryGetValue(addresses[i], out string? text))
            {
                text =
                    resolver!(captureFile, addresses[i])
                    ?? throw new InvalidOperationException("The frame resolver returned null.");
                _resolved.Add(addresses[i], text);
            }

            _texts[i] = text;
        }

        return _texts.AsSpan(0, addresses.Length);
    }

    /// <summary>The frame texts of a stack held as text (empty when the stack is blank).</summary>
    public ReadOnlySpan<string> ResolveText(string captureFile, string stackText)
    {
        if (string.IsNullOrWhiteSpace(stackText) || textResolver is null)
        {
            return [];
        }

        IReadOnlyList<string> frames = textResolver(captureFile, stackText);
        if (_texts.Length < frames.Count)
        {
            _texts = new string[Math.Max(frames.Count, _texts.Length * 2)];
        }

        for (int i = 0; i < frames.Count; i++)
        {
            _texts[i] = frames[i];
        }

        return _texts.AsSpan(0, frames.Count);
    }

    public Span<ulong> Frames(int count)
    {
        if (_frames.Length < count)
        {
            _frames = new ulong[Math.Max(count, _frames.Length * 2)];
        }

        return _frames.AsSpan(0, count);
    }
}

/// <summary>An open output table: its Parquet writer over a temporary file, renamed to the final name when
/// complete.</summary>
internal sealed class TableWriter : IDisposable
{
    public TableWriter(EventTable table, string path, ParquetTableOptions options)
    {
        Table = table;
        Path = path;
        TempPath = path + ".tmp";
        var stream = OutputFile.Create(TempPath, 1 << 16, FileShare.None);
        try
        {
            Parquet = new ParquetTableWriter(stream, table.Columns, options);
        }
        catch
        {
            stream.Dispose();
            File.Delete(TempPath);
            throw;
        }
    }

    public EventTable Table { get; }

    public string Path { get; }

    public string TempPath { get; }

    public ParquetTableWriter Parquet { get; }

    public void Complete()
    {
        Parquet.Finish();
        Parquet.Dispose();
        File.Move(TempPath, Path, overwrite: true);
    }

    public void Dispose()
    {
        Parquet.Dispose();
        if (!Parquet.IsFinished && File.Exists(TempPath))
        {
            File.Delete(TempPath);
        }
    }
}
