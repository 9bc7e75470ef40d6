using System.Globalization;
using System.Text;

namespace XeAnalyzer.SampleGenerator;

/// <summary>
/// The <c>sys.dm_os_loaded_modules</c> output of one (imagined) SQL Server process: full paths and base addresses, in
/// load order. Written beside a capture as <c>&lt;set-name&gt;.modules.txt</c>; turns fixture frames into raw return
/// addresses.
/// </summary>
internal sealed class ModuleList
{
    private const string Binn = @"C:\Program Files\Microsoft SQL Server\MSSQL16.MSSQLSERVER\MSSQL\Binn\";

    private readonly List<(string Path, ulong Base)> _modules = [];

    /// <summary>
    /// The modules of a process, given the bases of sqlservr.exe, sqlmin, sqllang, sqlTsEs, sqldk, KERNELBASE, KERNEL32
    /// and ntdll. Bases must be 64 KiB aligned and distinct.
    /// </summary>
    public static ModuleList Create(
        ulong sqlservr,
        ulong sqlmin,
        ulong sqllang,
        ulong sqlTsEs,
        ulong sqldk,
        ulong kernelBase,
        ulong kernel32,
        ulong ntdll
    )
    {
        var m = new ModuleList();
        m.Add(Binn + "sqlservr.exe", sqlservr);
        m.Add(@"C:\WINDOWS\SYSTEM32\ntdll.dll", ntdll);
        m.Add(@"C:\WINDOWS\System32\KERNEL32.DLL", kernel32);
        m.Add(@"C:\WINDOWS\System32\KERNELBASE.dll", kernelBase);
        m.Add(Binn + "sqldk.dll", sqldk);
        m.Add(Binn + "sqlmin.dll", sqlmin);
        m.Add(Binn + "sqllang.dll", sqllang);
        m.Add(Binn + "sqlTsEs.dll", sqlTsEs);
        return m;
    }

    /// <summary>The lowest base: raw addresses below it lie in no module of the list.</summary>
    public ulong LowestBase => _modules.Min(m => m.Base);

    /// <summary>The base of the module whose file name is <paramref name="fileName"/> (case-insensitive).</summary>
    public ulong BaseOf(string fileName)
    {
        foreach ((string path, ulong b) in _modules)
        {
            if (
                string.Equals(
                    System.IO.Path.GetFileName(path.Replace('\\', '/')),
                    fileName,
                    StringComparison.OrdinalIgnoreCase
                )
            )
            {
                return b;
            }
        }

        throw new KeyNotFoundException("Module " + fileName + " is not in the module list.");
    }

    /// <summary>The raw return address of <paramref name="frame"/> in this process: base + RVA.</summary>
    public ulong AddressOf(Frame frame)
    {
        if (frame.IsOutside)
        {
            if (frame.RawAddress >= LowestBase)
            {
                throw new InvalidOperationException(frame.RawText + " is not below every module base.");
            }

            return frame.RawAddress;
        }

        return checked(BaseOf(frame.ModuleFile) + frame.Rva);
    }

    /// <summary>The raw return addresses of a stack, leaf first.</summary>
    public ulong[] AddressesOf(IReadOnlyList<Frame> stack) => [.. stack.Select(AddressOf)];

    /// <summary>The sidecar text: a <c>name\tbase_address</c> header, then one TAB-separated line per module (LF line
    /// ends).</summary>
    public string ToText()
    {
        var sb = new StringBuilder();
        sb.Append("name\tbase_address\n");
        foreach ((string path, ulong b) in _modules)
        {
            sb.Append(path)
                .Append('\t')
                .Append("0x")
                .Append(b.ToString("X16", CultureInfo.InvariantCulture))
                .Append('\n');
        }

        return sb.ToString();
    }

    /// <summary>The modules as (file name, base) pairs, sorted by base (for the README).</summary>
    public IEnumerable<(string Name, ulong Base)> SortedByBase() =>
        _modules.OrderBy(m => m.Base).Select(m => (System.IO.Path.GetFileName(m.Path.Replace('\\', '/')), m.Base));

    private void Add(string path, ulong b)
    {
        if ((b & 0xFFFF) != 0 || _modules.Exists(m => m.Base == b))
        {
            throw new ArgumentException(
                "Base 0x"
                    + b.ToString("X16", CultureInfo.InvariantCulture)
                    + " of "
                    + path
                    + " is not 64 KiB aligned or is used twice."
            );
        }

        _modules.Add((path, b));
    }
}
