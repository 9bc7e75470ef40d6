using System.Buffers;
using System.Text;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Symbols.Store;
using XeAnalyzer.Symbols.Undecoration;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// One PDB build (name + identity) of a resolver: found once, opened once, its symbol index kept. The index leaves
/// public names in the file (<see cref="PdbFile.GetFileBackedSymbolIndex"/>: a big PDB's names are tens of MB), so the
/// file stays open until the resolver is disposed; so do its modules, read on demand, when source lines or inline
/// frames were asked for and the PDB has line information.
/// </summary>
internal sealed class PdbHandle : IDisposable
{
    private readonly Lock _gate = new();
    private readonly SymbolLocator _locator;
    private readonly PdbReaderLimits? _limits;
    private readonly bool _wantSource;
    private PdbSymbolIndex? _index;
    private PdbFile? _file;
    private PdbFile? _source;
    private volatile bool _loaded;
    private int _sourceFailed;

    public PdbHandle(
        string pdbName,
        PdbIdentity? identity,
        PdbIdentitySource source,
        SymbolLocator locator,
        PdbReaderLimits? limits,
        bool wantSource
    )
    {
        Binding = new PdbBinding(pdbName, identity, source);
        _locator = locator;
        _limits = limits;
        _wantSource = wantSource;
    }

    public PdbBinding Binding { get; }

    /// <summary>Whether a load was attempted and finished (successfully or not).</summary>
    public bool Attempted => _loaded;

    public UnresolvedReason FailureReason { get; private set; }

    public string? FailureText { get; private set; }

    /// <summary>
    /// End of the image the PDB describes (the highest section end, as an RVA), or 0 when the PDB has no section
    /// headers. An RVA at or past it cannot belong to this build: the frame comes from another build of the module.
    /// </summary>
    public ulong ImageEnd { get; private set; }

    /// <summary>The reason shared by the frames past the end of this PDB's image (made at the first one).</summary>
    public RvaReasonText? BeyondImageReason { get; set; }

    /// <summary>Finds and reads the PDB on first call (a canceled attempt is retried by the next caller); never throws
    /// for missing or bad files.</summary>
    /// <returns><see langword="true"/> when the symbol index is available.</returns>
    public bool EnsureLoaded(CancellationToken cancellationToken)
    {
        if (!_loaded)
        {
            lock (_gate)
            {
                if (!_loaded)
                {
                    Load(cancellationToken);
                    _loaded = true;
                }
            }
        }

        return _index is not null;
    }

    /// <summary>Finds the symbol at or before <paramref name="rva"/> (<see cref="PdbSymbolIndex.TryFind"/>); false
    /// before the first symbol.</summary>
    public bool TryFind(uint rva, out PdbSymbolHit hit) => _index!.TryFind(rva, out hit);

    /// <summary>
    /// The frame text of <paramref name="hit"/>
    /// (<see cref="FrameText.Render(string?, ReadOnlySpan{char}, ulong?, FrameStyle, bool, string, out int)"/>), with
    /// the name undecorated straight from the PDB's bytes into the text: the only string made.
    /// <paramref name="functionStart"/> and
    /// <paramref name="functionLength"/> say where the function name is in it.
    /// </summary>
    /// <exception cref="InvalidPdbDataException">The file was truncated since the index was built.</exception>
    public string Render(
        in PdbSymbolHit hit,
        string? styledModule,
        FrameStyle style,
        bool includeOffsets,
        string suffix,
        out int functionStart,
        out int functionLength
    )
    {
        ReadOnlySpan<byte> raw = _index!.NameBytes(hit, stackalloc byte[512]);
        PdbNameDecoration decoration = _index.GetDecoration(hit, raw);
        int capacity = (2 * raw.Length) + 16;
        char[]? rented = null;
        Span<char> buffer = capacity <= 1024 ? stackalloc char[1024] : (rented = ArrayPool<char>.Shared.Rent(capacity));
        scoped ReadOnlySpan<char> name;
        if (
            decoration == PdbNameDecoration.Msvc
            && MsvcNameUndecorator.TryUndecorateSimple(raw, buffer, out int written)
        )
        {
            name = buffer[..written];
        }
        else if (decoration == PdbNameDecoration.None)
        {
            name = buffer[..Encoding.UTF8.GetChars(raw, buffer)];
        }
        else
        {
            name = Display(Encoding.UTF8.GetString(raw), decoration);
        }

        string text = FrameText.Render(
            styledModule,
            name,
            hit.Displacement,
            style,
            includeOffsets,
            suffix,
            out functionStart
        );
        functionLength = name.Length;
        if (rented is not null)
        {
            ArrayPool<char>.Shared.Return(rented);
        }

        return text;
    }

    /// <summary>The name of <paramref name="hit"/> as frames show it (undecorated).</summary>
    public string DisplayName(in PdbSymbolHit hit)
    {
        ReadOnlySpan<byte> raw = _index!.NameBytes(hit, stackalloc byte[512]);
        return Display(Encoding.UTF8.GetString(raw), _index.GetDecoration(hit, raw));
    }

    /// <summary>The names (undecorated) of every symbol at <paramref name="hit"/>'s address when folding gave it
    /// several distinct ones; else null.</summary>
    public IReadOnlyList<string>? DisplayTiedNames(in PdbSymbolHit hit)
    {
        if (!hit.IsTied)
        {
            return null;
        }

        IReadOnlyList<string> raw = _index!.TiedNames(hit);
        if (raw.Count < 2)
        {
            return null;
        }

        PdbNameDecoration decoration = _index.GetDecoration(hit);
        var names = new string[raw.Count];
        for (int i = 0; i < names.Length; i++)
        {
            names[i] = Display(raw[i], decoration);
        }

        return Array.AsReadOnly(names);
    }

    /// <summary>
    /// The source line and inline frames at <paramref name="rva"/> (<see cref="PdbFile.GetSourceInfo"/>), or
    /// <see cref="PdbSourceInfo.None"/> for a PDB without line information. A damaged line table is reported once on
    /// <see cref="PdbBinding.SourceInfoProblem"/>, and its frames get no source information.
    /// </summary>
    public PdbSourceInfo GetSourceInfo(uint rva, bool inlineFrames, CancellationToken cancellationToken)
    {
        PdbFile? pdb = _source;
        if (pdb is null || Volatile.Read(ref _sourceFailed) != 0)
        {
            return PdbSourceInfo.None;
        }

        try
        {
            return pdb.GetSourceInfo(rva, inlineFrames, cancellationToken);
        }
        catch (InvalidPdbDataException ex)
        {
            if (Interlocked.Exchange(ref _sourceFailed, 1) == 0)
            {
                Binding.SourceInfoProblem = "source lines and inline frames unavailable: " + ex.Message;
            }

            return PdbSourceInfo.None;
        }
        catch (ObjectDisposedException)
        {
            return PdbSourceInfo.None;
        }
    }

    /// <summary>Closes the PDB (kept open for the public names of its index, and for source information).</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _file?.Dispose();
            _file = null;
            _source = null;
        }
    }

    private static string Display(string name, PdbNameDecoration decoration) =>
        decoration != PdbNameDecoration.None && MsvcNameUndecorator.TryUndecorate(name, out string undecorated)
            ? undecorated
            : name;

    private void Load(CancellationToken cancellationToken)
    {
        PdbBinding b = Binding;
        string shownName = Store.PdbNames.Printable(b.PdbName);
        string wanted = b.Identity is PdbIdentity id ? shownName + " " + id.ToString() : shownName;
        PdbLookupResult lookup = _locator.LocatePdb(b.PdbName, b.Identity, cancellationToken);
        var log = new List<string>(lookup.Reasons);
        b.SearchLog = log.AsReadOnly();
        if (!lookup.IsFound && lookup.DamagedCandidate is not null)
        {
            Fail(
                UnresolvedReason.PdbDamaged,
                "PDB damaged: " + wanted + " (" + lookup.DamagedCandidate + "): " + lookup.Damage
            );
            return;
        }

        if (!lookup.IsFound)
        {
            Fail(
                UnresolvedReason.NoPdb,
                b.Identity is null ? "no PDB for " + shownName + " (GUID/age unknown)" : "no PDB for " + wanted
            );
            return;
        }

        b.FileIdentity = lookup.FileIdentity;
        b.IsVerified = lookup.IsVerified;
        PdbFile? pdb = null;
        try
        {
            pdb = PdbFile.Open(lookup.Path!, _limits);
            PdbSymbolIndex index = pdb.GetFileBackedSymbolIndex(cancellationToken);
            ulong end = 0;
            foreach (PdbSection section in pdb.Sections)
            {
                end = Math.Max(
                    end,
                    (ulong)section.VirtualAddress + Math.Max(section.VirtualSize, section.SizeOfRawData)
                );
            }

            ImageEnd = end;
            b.Path = lookup.Path;
            b.IsLoaded = true;
            if (_wantSource && pdb.HasLineInfo())
            {
                _source = pdb;
            }

            _file = pdb;
            _index = index;
            pdb = null;
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex))
        {
            log.Add(ex.Message);
            Fail(
                UnresolvedReason.PdbDamaged,
                "PDB damaged: "
                    + wanted
                    + " ("
                    + lookup.Path
                    + ")"
                    + (ex is XeFormatException ? ": " : " cannot be read: ")
                    + InputFailure.Describe(ex)
            );
        }
        finally
        {
            pdb?.Dispose();
        }
    }

    private void Fail(UnresolvedReason reason, string text)
    {
        FailureReason = reason;
        FailureText = text;
        Binding.Problem = text;
    }
}
