using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Symbols.Pe;

/// <summary>
/// One DLL or EXE read from a folder of images (by the resolver's <c>ModuleBinaries.Scan</c>): its module, path and
/// parsed image.
/// </summary>
internal sealed class ModuleBinary
{
    internal ModuleBinary(ModuleName module, string path, PeImage image)
    {
        Module = module;
        Path = path;
        Image = image;
    }

    /// <summary>The module (file name of <see cref="Path"/>).</summary>
    public ModuleName Module { get; }

    /// <summary>The full path of the image.</summary>
    public string Path { get; }

    /// <summary>The parsed image: RSDS record (which PDB build matches) and export table.</summary>
    public PeImage Image { get; }

    /// <summary>
    /// The PDB the image was linked with (file name and identity from its RSDS record), or <see langword="null"/> when
    /// it has none.
    /// </summary>
    public PeCodeViewRecord? CodeView => Image.CodeView;

    /// <summary>Returns the path.</summary>
    public override string ToString() => Path;
}
