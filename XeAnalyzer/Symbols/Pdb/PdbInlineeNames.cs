using System.Globalization;
using System.Text;
using XeAnalyzer.IO;

namespace XeAnalyzer.Symbols.Pdb;

/// <summary>
/// Names of inlined functions, from the function ids of the IPI stream (<c>S_INLINESITE</c> names an id, not a type):
/// <c>LF_FUNC_ID</c> (scope id, type, name) qualified by its <c>LF_STRING_ID</c> scope, and <c>LF_MFUNC_ID</c> (class
/// type, type, name) qualified by the class's name from the TPI stream. MSVC's <c>{ctor}</c> and <c>{dtor}</c> become
/// the class's own name and
/// <c>~</c> it, as DIA-based tools print them. Thread-safe; names are cached.
/// </summary>
internal sealed class PdbInlineeNames
{
    private const ushort LfFuncId = 0x1601;
    private const ushort LfMFuncId = 0x1602;
    private const ushort LfStringId = 0x1605;

    private readonly PdbFile _pdb;
    private readonly Lock _gate = new();
    private readonly Dictionary<uint, string> _names = [];
    private PdbTypeStream? _ipi;
    private PdbTypeStream? _tpi;
    private bool _ipiOpened;
    private bool _tpiOpened;

    public PdbInlineeNames(PdbFile pdb) => _pdb = pdb;

    /// <summary>The name of function id <paramref name="id"/>, or <c>0x…</c> when the IPI stream has no such
    /// id.</summary>
    /// <exception cref="InvalidPdbDataException">The IPI or TPI stream is damaged.</exception>
    public string Get(uint id, CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (_names.TryGetValue(id, out string? known))
            {
                return known;
            }

            string name = Compute(id, cancellationToken);
            if (_names.Count < 1_000_000)
            {
                _names.Add(id, name);
            }

            return name;
        }
    }

    private string Compute(uint id, CancellationToken cancellationToken)
    {
        PdbTypeStream? ipi = Ipi(cancellationToken);
        if (ipi?.Read(id) is not { } record)
        {
            return Unknown(id);
        }

        (ushort kind, byte[] data, long offset) = record;

        SpanReader r = ipi!.Reader(data, offset);
        switch (kind)
        {
            case LfFuncId:
            {
                uint scope = r.ReadUInt32("LF_FUNC_ID scope");
                r.Skip(4, "LF_FUNC_ID type");
                string name = Text(r.ReadCString(r.Remaining, "LF_FUNC_ID name"));
                string? scopeName = scope == 0 ? null : StringId(ipi, scope);
                return string.IsNullOrEmpty(scopeName) ? name : scopeName + "::" + name;
            }

            case LfMFuncId:
            {
                uint parent = r.ReadUInt32("LF_MFUNC_ID class type");
                r.Skip(4, "LF_MFUNC_ID type");
                string name = Text(r.ReadCString(r.Remaining, "LF_MFUNC_ID name"));
                string? className = ClassName(parent, cancellationToken);
                if (className is null)
                {
                    return name;
                }

                string own = LastComponent(className);
                name = name switch
                {
                    "{ctor}" => own,
                    "{dtor}" => "~" + own,
                    _ => name,
                };
                return className + "::" + name;
            }

            default:
                return Unknown(id);
        }
    }

    private static string Unknown(uint id) => "0x" + id.ToString("X", CultureInfo.InvariantCulture);

    private static string? StringId(PdbTypeStream ipi, uint id)
    {
        if (ipi.Read(id) is not { } record || record.Kind != LfStringId)
        {
            return null;
        }

        (_, byte[] data, long offset) = record;

        SpanReader r = ipi.Reader(data, offset);
        r.Skip(4, "LF_STRING_ID substring list");
        return Text(r.ReadCString(r.Remaining, "LF_STRING_ID string"));
    }

    private string? ClassName(uint typeIndex, CancellationToken cancellationToken)
    {
        PdbTypeStream? tpi = Tpi(cancellationToken);
        if (tpi?.Read(typeIndex) is not { } record)
        {
            return null;
        }

        (ushort kind, byte[] data, long offset) = record;

        SpanReader r = tpi!.Reader(data, offset);
        switch (kind)
        {
            case 0x1504: // LF_CLASS
            case 0x1505: // LF_STRUCTURE
            case 0x1519: // LF_INTERFACE
                r.Skip(2 + 2 + 4 + 4 + 4, "class record fields");
                break;
            case 0x1506: // LF_UNION
                r.Skip(2 + 2 + 4, "union record fields");
                break;
            case 0x1507: // LF_ENUM
                r.Skip(2 + 2 + 4 + 4, "enum record fields");
                return Text(r.ReadCString(r.Remaining, "enum name"));
            default:
                return null;
        }

        if (!SkipNumeric(ref r))
        {
            return null;
        }

        return Text(r.ReadCString(r.Remaining, "class name"));
    }

    /// <summary>Skips a CodeView numeric leaf (a value below 0x8000, or a leaf kind followed by its value).</summary>
    private static bool SkipNumeric(ref SpanReader r)
    {
        ushort leaf = r.ReadUInt16("numeric leaf");
        if (leaf < 0x8000)
        {
            return true;
        }

        int size = leaf switch
        {
            0x8000 => 1, // LF_CHAR
            0x8001 or 0x8002 => 2, // LF_SHORT, LF_USHORT
            0x8003 or 0x8004 or 0x8005 => 4, // LF_LONG, LF_ULONG, LF_REAL32
            0x8006 or 0x8009 or 0x800A => 8, // LF_REAL64, LF_QUADWORD, LF_UQUADWORD
            0x8007 => 10, // LF_REAL80
            0x8008 or 0x8017 or 0x8018 => 16, // LF_REAL128, LF_OCTWORD, LF_UOCTWORD
            0x800B => 6, // LF_REAL48
            _ => -1,
        };
        if (size < 0)
        {
            return false;
        }

        r.Skip(size, "numeric leaf value");
        return true;
    }

    /// <summary>The last <c>::</c>-separated component of a qualified name, ignoring separators inside template
    /// arguments.</summary>
    internal static string LastComponent(string qualified)
    {
        int depth = 0;
        int start = 0;
        for (int i = 0; i < qualified.Length; i++)
        {
            char c = qualified[i];
            if (c is '<' or '(' or '[')
            {
                depth++;
            }
            else if (c is '>' or ')' or ']')
            {
                depth = Math.Max(0, depth - 1);
            }
            else if (c == ':' && depth == 0 && i + 1 < qualified.Length && qualified[i + 1] == ':')
            {
                start = i + 2;
                i++;
            }
        }

        return qualified[start..];
    }

    private static string Text(ReadOnlySpan<byte> bytes) => Encoding.UTF8.GetString(bytes);

    private PdbTypeStream? Ipi(CancellationToken ct)
    {
        if (!_ipiOpened)
        {
            _ipi = PdbTypeStream.Open(_pdb, 4, "IPI stream", ct);
            _ipiOpened = true;
        }

        return _ipi;
    }

    private PdbTypeStream? Tpi(CancellationToken ct)
    {
        if (!_tpiOpened)
        {
            _tpi = PdbTypeStream.Open(_pdb, 2, "TPI stream", ct);
            _tpiOpened = true;
        }

        return _tpi;
    }
}
