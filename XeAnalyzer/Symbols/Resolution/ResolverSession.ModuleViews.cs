using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using XeAnalyzer.Callstacks;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Catalog;
using XeAnalyzer.Symbols.Pe;

namespace XeAnalyzer.Symbols.Resolution;

/// <content>
/// Module views: which PDB each module spelling is bound to (CSV symbol metadata, the DLL, the build catalog or the
/// module's name), per metadata generation, and the per-RVA caches each view holds.
/// </content>
internal sealed partial class ResolverSession
{
    private ModuleView GetView(ModuleName module)
    {
        Generation g = _generation;

        // A small direct-mapped front cache: stacks repeat a handful of module names (the parser shares their
        // instances).
        int slot = RuntimeHelpers.GetHashCode(module) & (Generation.RecentSize - 1);
        ModuleView? recent = g.Recent[slot];
        if (recent is not null && ReferenceEquals(recent.Key, module))
        {
            return recent;
        }

        if (g.ByReference.TryGetValue(module, out ModuleView? view))
        {
            g.Recent[slot] = view.Key == module ? view : view.WithKey(module);
            return view;
        }

        if (!g.ByName.TryGetValue(module.Name, out view))
        {
            view = CreateView(module, g);
            if (g.ByName.Count < MaxViews)
            {
                view = g.ByName.GetOrAdd(module.Name, view);
            }
        }

        if (g.ByReference.Count < MaxViews)
        {
            g.ByReference.TryAdd(module, view);
        }

        g.Recent[slot] = ReferenceEquals(view.Key, module) ? view : view.WithKey(module);
        return view;
    }

    private ModuleView CreateView(ModuleName module, Generation g)
    {
        string pdbName;
        PdbIdentity? identity;
        PdbIdentitySource source;
        if (
            g.Metadata.TryGetValue(module.Key, out ModulePdbInfo? info)
            || _optionMetadata.TryGetValue(module.Key, out info)
        )
        {
            (pdbName, identity, source) = (info.PdbName, info.Identity, PdbIdentitySource.SymbolMetadata);
        }
        else if (
            _owner.Options.Binaries is ModuleBinaries b
            && b.TryGet(module, out ModuleBinary? binary)
            && binary.CodeView is PeCodeViewRecord cv
        )
        {
            (pdbName, identity, source) = (cv.PdbFileName, cv.Identity, PdbIdentitySource.Binary);
        }
        else if (_owner.TryGetCatalogPdb(module, out SqlBuildPdb catalogPdb))
        {
            (pdbName, identity, source) = (catalogPdb.PdbFileName, catalogPdb.Identity, PdbIdentitySource.BuildCatalog);
        }
        else
        {
            (pdbName, identity, source) = (FrameText.WithoutExtension(module) + ".pdb", null, PdbIdentitySource.None);
        }

        string display = DisplayName(module);
        return new ModuleView(
            module,
            display,
            FrameText.StyledModule(display, _style),
            _owner.GetPdb(pdbName, identity, source)
        );
    }

    private string DisplayName(ModuleName module) =>
        FrameText.DisplayName(module, _knownFileNames.TryGetValue(module.Key, out string? known) ? known : null);

    /// <summary>
    /// A frame instance and its resolution in one generation (see <see cref="Generation.FramesByTextId"/>).
    /// </summary>
    private sealed record FrameEntry(StackFrame Frame, FrameResolution Resolution);

    /// <summary>The per-module state of a metadata generation (replaced when CSV metadata arrives).</summary>
    private sealed class Generation(Dictionary<string, ModulePdbInfo> metadata)
    {
        private FrameEntry?[]? _framesByTextId;

        /// <summary>
        /// The frames of lines keyed by text id resolved in this generation, by id (made on first use; entries are
        /// immutable, so a racing reader sees a whole one).
        /// </summary>
        public FrameEntry?[] FramesByTextId
        {
            get
            {
                FrameEntry?[]? table = Volatile.Read(ref _framesByTextId);
                if (table is null)
                {
                    Interlocked.CompareExchange(ref _framesByTextId, new FrameEntry?[LineInterner.MaxEntries], null);
                    table = Volatile.Read(ref _framesByTextId)!;
                }

                return table;
            }
        }

        public Dictionary<string, ModulePdbInfo> Metadata { get; } = metadata;

        public ConcurrentDictionary<ModuleName, ModuleView> ByReference { get; } =
            new(ReferenceEqualityComparer.Instance);

        public ConcurrentDictionary<string, ModuleView> ByName { get; } = new(StringComparer.Ordinal);

        public const int RecentSize = 64;

        /// <summary>Recently used views by module instance (benign races: a slot holds a whole reference or another
        /// one).</summary>
        public ModuleView?[] Recent { get; } = new ModuleView?[RecentSize];
    }

    private readonly record struct RvaViewKey(string? Module, string PdbName, PdbIdentity Identity);

    /// <summary>A module as one spelling of it is rendered, bound to one PDB build, with its per-RVA cache.</summary>
    private sealed class ModuleView
    {
        private const int RecentBits = 12;
        private readonly RecentEntry?[] _recent;

        public ModuleView(ModuleName? module, string? display, string? styled, PdbHandle handle)
            : this(
                module,
                module,
                display,
                styled,
                handle,
                new ConcurrentDictionary<ulong, FrameResolution>(),
                new RecentEntry?[1 << RecentBits]
            ) { }

        private ModuleView(
            ModuleName? key,
            ModuleName? module,
            string? display,
            string? styled,
            PdbHandle handle,
            ConcurrentDictionary<ulong, FrameResolution> cache,
            RecentEntry?[] recent
        )
        {
            Key = key;
            Module = module;
            Display = display;
            Styled = styled;
            Handle = handle;
            Cache = cache;
            _recent = recent;
        }

        /// <summary>The module instance the view was looked up with (for the session's front cache).</summary>
        public ModuleName? Key { get; }

        public ModuleName? Module { get; }

        public string? Display { get; }

        public string? Styled { get; }

        public PdbHandle Handle { get; }

        public ConcurrentDictionary<ulong, FrameResolution> Cache { get; }

        /// <summary>The same view (same caches) under another module instance of the same spelling.</summary>
        public ModuleView WithKey(ModuleName key) => new(key, Module, Display, Styled, Handle, Cache, _recent);

        /// <summary>Looks up the direct-mapped front cache (no locks; entries are immutable, so a racing reader sees a
        /// whole entry).</summary>
        public bool TryGetRecent(
            ulong rva,
            [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out FrameResolution? resolution
        )
        {
            RecentEntry? e = _recent[Slot(rva)];
            if (e is not null && e.Rva == rva)
            {
                resolution = e.Resolution;
                return true;
            }

            resolution = null;
            return false;
        }

        public void SetRecent(ulong rva, FrameResolution resolution) =>
            _recent[Slot(rva)] = new RecentEntry(rva, resolution);

        private static int Slot(ulong rva) => (int)(unchecked(rva * 0x9E3779B97F4A7C15UL) >> (64 - RecentBits));
    }

    private sealed record RecentEntry(ulong Rva, FrameResolution Resolution);
}
