namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>
/// The module names of one input, created once each: a small direct-mapped cache in front of a bounded dictionary
/// (stacks repeat a handful of modules). Not thread-safe.
/// </summary>
internal sealed class ModuleNameCache
{
    private const int MaxCachedModules = 4096;
    private const int RecentSize = 64;

    private readonly Dictionary<string, ModuleName> _modules = new(StringComparer.Ordinal);
    private readonly Dictionary<string, ModuleName>.AlternateLookup<ReadOnlySpan<char>> _lookup;
    private readonly ModuleName?[] _recent = new ModuleName?[RecentSize];

    public ModuleNameCache()
    {
        _lookup = _modules.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    /// <summary>The module named <paramref name="name"/> (which the caller has checked is a module file
    /// name).</summary>
    public ModuleName Get(ReadOnlySpan<char> name)
    {
        int slot = name.IsEmpty ? 0 : ((name.Length * 31) + (name[0] * 7) + name[^1]) & (RecentSize - 1);
        ModuleName? recent = _recent[slot];
        if (recent is not null && name.SequenceEqual(recent.Name))
        {
            return recent;
        }

        if (!_lookup.TryGetValue(name, out ModuleName? m))
        {
            string s = name.ToString();
            m = ModuleName.Create(s);
            if (_modules.Count < MaxCachedModules)
            {
                _modules[s] = m;
            }
        }

        if (m.Name.Length == name.Length)
        {
            _recent[slot] = m;
        }

        return m;
    }
}
