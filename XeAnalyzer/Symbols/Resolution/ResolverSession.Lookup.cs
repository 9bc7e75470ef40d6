using System.Globalization;
using System.Runtime.CompilerServices;
using XeAnalyzer.Symbols.Pdb;

namespace XeAnalyzer.Symbols.Resolution;

/// <content>
/// Resolving an RVA against a module view: the view's caches and their admission, then the PDB lookup with source
/// lines and inline frames, or the reason it fails.
/// </content>
internal sealed partial class ResolverSession
{
    private FrameResolution Resolve(ModuleView view, ulong rva, CancellationToken cancellationToken)
    {
        if (view.TryGetRecent(rva, out FrameResolution? r))
        {
            return r;
        }

        if (!view.Cache.TryGetValue(rva, out r))
        {
            r = Compute(view, rva, cancellationToken);
            if (SeenBefore(view, rva) && _owner.TryReserveCacheEntry())
            {
                r = view.Cache.GetOrAdd(rva, r);
            }
        }

        view.SetRecent(rva, r);
        return r;
    }

    /// <summary>
    /// Whether the address was resolved before (and is not in the cache): only such addresses are admitted to the
    /// cache, so an input of unique addresses (200,000 random ones against a big PDB) does not fill it with entries
    /// that are never hit again. Remembers the last first sighting per slot of a small table; a collision only delays
    /// an admission. Lock-free: a slot holds a whole key or another.
    /// </summary>
    private bool SeenBefore(ModuleView view, ulong rva)
    {
        ulong key = unchecked(((rva + 1) * 0x9E3779B97F4A7C15UL) ^ (ulong)RuntimeHelpers.GetHashCode(view.Cache)) | 1;
        int slot = (int)(key >> (64 - SeenOnceBits));
        if (Volatile.Read(ref _seenOnce[slot]) == key)
        {
            return true;
        }

        Volatile.Write(ref _seenOnce[slot], key);
        return false;
    }

    private FrameResolution Compute(ModuleView view, ulong rva, CancellationToken cancellationToken)
    {
        PdbHandle handle = view.Handle;
        PdbBinding binding = handle.Binding;
        if (rva > uint.MaxValue)
        {
            return Unresolved(
                view.Module,
                view.Display,
                rva,
                binding,
                UnresolvedReason.RvaOutOfRange,
                "RVA " + Rva(rva) + " does not fit in 32 bits",
                "RVA beyond 4 GB in " + (view.Display ?? binding.PdbName)
            );
        }

        if (!handle.EnsureLoaded(cancellationToken))
        {
            return Unresolved(
                view.Module,
                view.Display,
                rva,
                binding,
                handle.FailureReason,
                handle.FailureText!,
                handle.FailureText!
            );
        }

        if (handle.ImageEnd != 0 && rva >= handle.ImageEnd)
        {
            // Nearest-preceding-public lookup has no upper bound, so without this check a frame of another build would
            // silently get the name of the last public in the image.
            RvaReasonText beyond = handle.BeyondImageReason ??= BeyondImage(
                Store.PdbNames.Printable(binding.PdbName),
                handle.ImageEnd
            );
            return new FrameResolution(
                FrameResolutionStatus.Unresolved,
                null,
                view.Module,
                view.Display,
                null,
                null,
                rva,
                false,
                binding,
                null,
                UnresolvedReason.BeyondImage,
                null,
                beyond.Group
            )
            {
                ReasonOfRva = beyond,
            };
        }

        try
        {
            return Lookup(view, rva, cancellationToken);
        }
        catch (Exception ex) when (InputFailure.IsReadFailure(ex))
        {
            // The index reads public names from the file (PdbFile.GetFileBackedSymbolIndex): it was changed since it
            // was opened.
            string pdb = Store.PdbNames.Printable(binding.PdbName);
            return Unresolved(
                view.Module,
                view.Display,
                rva,
                binding,
                UnresolvedReason.PdbDamaged,
                "PDB damaged: " + pdb + " (" + binding.Path + ") cannot be read: " + InputFailure.Describe(ex),
                "PDB damaged: " + pdb
            );
        }
    }

    /// <summary>The lookup part of <see cref="Compute"/>, once the PDB is loaded and the RVA inside its
    /// image.</summary>
    private FrameResolution Lookup(ModuleView view, ulong rva, CancellationToken cancellationToken)
    {
        PdbHandle handle = view.Handle;
        PdbBinding binding = handle.Binding;
        if (!handle.TryFind((uint)rva, out PdbSymbolHit hit))
        {
            string pdb = Store.PdbNames.Printable(binding.PdbName);
            return Unresolved(
                view.Module,
                view.Display,
                rva,
                binding,
                UnresolvedReason.BeforeFirstSymbol,
                "RVA " + Rva(rva) + " before the first symbol of " + pdb,
                "RVA before the first symbol of " + pdb
            );
        }

        // A PDB matched by name only: every frame carries the mark in its text, so every output (text, CSV, JSON,
        // folded stacks, flame graphs, reports) shows it, and such frames never bucket with verified ones.
        string mark = binding.IsVerified ? string.Empty : FrameText.UnverifiedMark;
        IReadOnlyList<string>? tied = handle.DisplayTiedNames(hit);
        if (!_lines && !_inlines)
        {
            string text = handle.Render(
                hit,
                view.Styled,
                _style,
                _offsets,
                mark,
                out int functionStart,
                out int functionLength
            );
            return new FrameResolution(
                text,
                functionStart,
                functionLength,
                view.Module,
                view.Display,
                hit.Displacement,
                rva,
                binding.IsVerified,
                binding,
                tied
            );
        }

        var h = (Name: handle.DisplayName(hit), hit.Displacement, Tied: tied);

        PdbSourceInfo source = handle.GetSourceInfo((uint)rva, _inlines, cancellationToken);
        FrameResolution[]? inline = null;
        if (_inlines && source.InlineFrames.Count > 0)
        {
            inline = new FrameResolution[source.InlineFrames.Count];
            for (int i = 0; i < inline.Length; i++)
            {
                PdbInlineFrame f = source.InlineFrames[i];
                string name = FrameText.Escape(f.Name);
                ulong displacement = rva >= f.BlockRva ? rva - f.BlockRva : 0;
                (string? file, int? line) =
                    _lines && f.Location is PdbSourceLocation at
                        ? (FrameText.Escape(at.File), (int?)at.Line)
                        : ((string?)null, (int?)null);
                string text =
                    FrameText.InlinePrefix
                    + FrameText.Render(view.Styled, name, displacement, _style, _offsets)
                    + FrameText.Location(file, line, _style)
                    + mark;
                inline[i] = new FrameResolution(
                    FrameResolutionStatus.ResolvedOffline,
                    text,
                    view.Module,
                    view.Display,
                    name,
                    displacement,
                    rva,
                    binding.IsVerified,
                    binding,
                    null,
                    UnresolvedReason.None,
                    null,
                    null,
                    file,
                    line,
                    null,
                    isInline: true
                );
            }
        }

        (string? sourceFile, int? sourceLine) =
            _lines && source.Location is PdbSourceLocation l
                ? (FrameText.Escape(l.File), (int?)l.Line)
                : ((string?)null, (int?)null);
        string frameText =
            FrameText.Render(view.Styled, h.Name, h.Displacement, _style, _offsets)
            + FrameText.Location(sourceFile, sourceLine, _style)
            + mark;
        return new FrameResolution(
            FrameResolutionStatus.ResolvedOffline,
            frameText,
            view.Module,
            view.Display,
            h.Name,
            h.Displacement,
            rva,
            binding.IsVerified,
            binding,
            h.Tied,
            UnresolvedReason.None,
            null,
            null,
            sourceFile,
            sourceLine,
            inline
        );
    }

    private static string Rva(ulong rva) => "0x" + rva.ToString("x", CultureInfo.InvariantCulture);

    private static RvaReasonText BeyondImage(string pdb, ulong imageEnd) =>
        new(
            "RVA ",
            " lies past the end of the image "
                + pdb
                + " describes ("
                + Rva(imageEnd)
                + "): the PDB (or the DLL given with --binaries) is of another build",
            "RVA past the end of the image of " + pdb + " (another build?)"
        );
}
