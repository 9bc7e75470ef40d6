using System.Globalization;

namespace XeAnalyzer.Symbols.Resolution;

/// <summary>
/// How well a module list (<c>sys.dm_os_loaded_modules</c>) places the raw addresses it was given: of the raw-address
/// frames it was asked to place, those it puts in no module (below the lowest base), at an RVA beyond 4 GB (past the
/// highest module, whose range runs to the top of the address space) or past the end of the image the module's PDB
/// describes. A list of another process lifetime (the server restarted between the capture and the list, and ASLR
/// moved every module) puts most frames there; the list of the capture's own process only frames of code outside every
/// image (JIT code) or of a module unloaded before the list was taken. <see cref="Misfits"/> is the one rule for when a
/// list is reported as not fitting. Not thread-safe.
/// </summary>
internal sealed class ModuleListFit
{
    /// <summary>The share of checked frames outside their module from which a list does not fit.</summary>
    public const double MisfitShare = 0.10;

    /// <summary>The fewest frames outside their module reported (a few JIT frames are not a wrong list).</summary>
    public const long MinMisfitFrames = 5;

    private const int MaxModules = 64;
    private readonly SortedDictionary<string, long> _modules = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>Raw-address frames the module list was asked to place.</summary>
    public long Checked { get; private set; }

    /// <summary>Of those, frames in no module (below the lowest base).</summary>
    public long InNoModule { get; private set; }

    /// <summary>Of those, frames at an RVA beyond 4 GB of their module.</summary>
    public long BeyondFourGb { get; private set; }

    /// <summary>Of those, frames past the end of the image their module's PDB describes.</summary>
    public long PastImageEnd { get; private set; }

    /// <summary>Frames the list did not place inside a module.</summary>
    public long Outside => InNoModule + BeyondFourGb + PastImageEnd;

    /// <summary>Whether the list does not fit the addresses (see the class remarks and the constants).</summary>
    public bool Misfits => Outside >= MinMisfitFrames && (double)Outside / Checked >= MisfitShare;

    /// <summary>Counts <paramref name="times"/> occurrences of a raw-address frame placed through a list.</summary>
    /// <param name="r">The frame's resolution.</param>
    /// <param name="times">How many occurrences.</param>
    public void Add(FrameResolution r, long times)
    {
        Checked += times;
        switch (r.Reason)
        {
            case UnresolvedReason.NoModuleForAddress:
                InNoModule += times;
                break;
            case UnresolvedReason.RvaOutOfRange:
                BeyondFourGb += times;
                AddModule(r, times);
                break;
            case UnresolvedReason.BeyondImage:
                PastImageEnd += times;
                AddModule(r, times);
                break;
        }
    }

    /// <summary>
    /// The summary's warning when the list does not fit, naming the figures and the likely cause; else
    /// <see langword="null"/>.
    /// </summary>
    /// <returns>The warning, or <see langword="null"/>.</returns>
    public string? Warning()
    {
        if (!Misfits)
        {
            return null;
        }

        IFormatProvider ic = CultureInfo.InvariantCulture;
        var parts = new List<string>();
        if (InNoModule > 0)
        {
            parts.Add(string.Create(ic, $"{InNoModule:N0} in no module (below the lowest base)"));
        }

        if (BeyondFourGb > 0)
        {
            parts.Add(string.Create(ic, $"{BeyondFourGb:N0} at an RVA beyond 4 GB"));
        }

        if (PastImageEnd > 0)
        {
            parts.Add(string.Create(ic, $"{PastImageEnd:N0} past the end of their module's image"));
        }

        string modules =
            _modules.Count == 0
                ? string.Empty
                : "; most in "
                    + string.Join(
                        ", ",
                        _modules
                            .OrderByDescending(kv => kv.Value)
                            .ThenBy(kv => kv.Key, StringComparer.OrdinalIgnoreCase)
                            .Take(3)
                            .Select(kv => string.Create(ic, $"{kv.Key} ({kv.Value:N0})"))
                    );
        return "the module list does not fit the raw addresses: "
            + string.Create(ic, $"{Outside:N0} of {Checked:N0} raw-address frame(s) ")
            + "("
            + Share()
            + ") lie outside their module ("
            + string.Join(", ", parts)
            + modules
            + "): "
            + "the module list is from another process lifetime: "
            + "the server restarted between the capture and the list? "
            + "Use the sys.dm_os_loaded_modules output of the process that wrote the capture "
            + "(a rollover set that spans a restart takes one list per file, <file name>.modules.txt)";
    }

    /// <summary>The one-line run warning (stderr) pointing to the summary's <see cref="Warning"/>.</summary>
    /// <param name="inputName">The input (or files) the list was used for.</param>
    /// <param name="listPath">The module list as shown, or <see langword="null"/>.</param>
    /// <returns>The line.</returns>
    public string Notice(string inputName, string? listPath) =>
        inputName
        + ": the module list"
        + (listPath is null ? string.Empty : " " + listPath)
        + string.Create(CultureInfo.InvariantCulture, $" does not fit the raw addresses ({Outside:N0} of {Checked:N0} ")
        + "raw-address frame(s), "
        + Share()
        + ", lie outside their module): from another process lifetime? See the resolution summary";

    /// <summary>A copy that later <see cref="Add"/> calls do not change (for an immutable summary).</summary>
    /// <returns>The copy.</returns>
    public ModuleListFit Copy()
    {
        var copy = new ModuleListFit
        {
            Checked = Checked,
            InNoModule = InNoModule,
            BeyondFourGb = BeyondFourGb,
            PastImageEnd = PastImageEnd,
        };
        foreach (KeyValuePair<string, long> kv in _modules)
        {
            copy._modules.Add(kv.Key, kv.Value);
        }

        return copy;
    }

    /// <summary>The share of checked frames outside their module, as text (<c>82.5 %</c>).</summary>
    /// <returns>The text.</returns>
    public string Share() =>
        Checked == 0 ? "0 %" : ((double)Outside / Checked * 100).ToString("0.0", CultureInfo.InvariantCulture) + " %";

    private void AddModule(FrameResolution r, long times)
    {
        string? name = r.ModuleDisplayName ?? r.Module?.Name;
        if (name is not null && (_modules.ContainsKey(name) || _modules.Count < MaxModules))
        {
            _modules[name] = _modules.GetValueOrDefault(name) + times;
        }
    }
}
