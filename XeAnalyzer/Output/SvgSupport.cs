using System.Globalization;
using System.Text;

namespace XeAnalyzer.Output;

/// <summary>Numbers, colours and fonts shared by the SVG writers. Every number is written with two fixed
/// decimals.</summary>
internal static class Svg
{
    /// <summary>The monospaced font stack of flame graphs (label clipping assumes a monospaced advance).</summary>
    public const string MonoFont = "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace";

    /// <summary>The proportional font stack of charts.</summary>
    public const string SansFont = "'Segoe UI', 'DejaVu Sans', 'Liberation Sans', Helvetica, Arial, sans-serif";

    /// <summary>The advance of one monospaced character as a fraction of the font size (DejaVu Sans Mono:
    /// 0.602).</summary>
    public const double MonoAdvance = 0.61;

    /// <summary>An upper estimate of the average advance of a proportional character as a fraction of the font
    /// size.</summary>
    public const double SansAdvance = 0.58;

    /// <summary>Tableau-10 series colours.</summary>
    public static readonly string[] SeriesColours =
    [
        "#4e79a7",
        "#f28e2b",
        "#e15759",
        "#76b7b2",
        "#59a14f",
        "#edc948",
        "#b07aa1",
        "#ff9da7",
        "#9c755f",
        "#bab0ac",
    ];

    /// <summary>Formats a coordinate with two fixed decimals, invariant culture, never "-0.00".</summary>
    public static string N(double value)
    {
        if (!double.IsFinite(value))
        {
            value = 0;
        }

        string s = value.ToString("F2", CultureInfo.InvariantCulture);
        return s == "-0.00" ? "0.00" : s;
    }

    /// <summary>Writes the opening &lt;svg&gt; element (with an XML declaration when standalone).</summary>
    public static void Open(StringBuilder sb, double width, double height, bool standalone, string ariaLabel)
    {
        if (standalone)
        {
            sb.Append("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
        }

        sb.Append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"")
            .Append(N(width))
            .Append("\" height=\"")
            .Append(N(height))
            .Append("\" viewBox=\"0.00 0.00 ")
            .Append(N(width))
            .Append(' ')
            .Append(N(height))
            .Append("\" role=\"img\" aria-label=\"")
            .Append(TextEscaping.Xml(ariaLabel))
            .Append("\">\n");
    }

    /// <summary>A hex colour from HSL components (h in degrees, s and l in 0..1).</summary>
    public static string Hsl(double h, double s, double l)
    {
        double c = (1 - Math.Abs((2 * l) - 1)) * s;
        double hp = (h % 360) / 60.0;
        double x = c * (1 - Math.Abs((hp % 2) - 1));
        (double r, double g, double b) = hp switch
        {
            < 1 => (c, x, 0.0),
            < 2 => (x, c, 0.0),
            < 3 => (0.0, c, x),
            < 4 => (0.0, x, c),
            < 5 => (x, 0.0, c),
            _ => (c, 0.0, x),
        };
        double m = l - (c / 2);
        return Rgb(r + m, g + m, b + m);
    }

    /// <summary>A hex colour from components in 0..1.</summary>
    public static string Rgb(double r, double g, double b) =>
        string.Create(CultureInfo.InvariantCulture, $"#{Byte(r):x2}{Byte(g):x2}{Byte(b):x2}");

    /// <summary>32-bit FNV-1a of the UTF-16 code units: a hash that is the same in every process (unlike
    /// string.GetHashCode).</summary>
    public static uint StableHash(string s)
    {
        uint h = 2166136261;
        foreach (char c in s)
        {
            h = unchecked((h ^ c) * 16777619);
        }

        return h;
    }

    private static int Byte(double v) => (int)Math.Round(Math.Clamp(v, 0, 1) * 255, MidpointRounding.AwayFromZero);
}

/// <summary>The module of a frame name and its colour in flame graphs.</summary>
internal static class ModulePalette
{
    /// <summary>The fill of frames without a module.</summary>
    public const string NoModuleColour = "#c9c9c9";

    /// <summary>
    /// The module of a frame: the text before the first <c>!</c> (<c>sqlmin.dll!X</c>, <c>sqldk!X</c>), else the text
    /// before <c>.dll</c>/<c>.exe</c>/<c>.sys</c> (<c>KERNEL32.DLL+0x17974</c>); upper-cased with the extension removed
    /// so
    /// <c>sqlmin.dll!A</c> and <c>sqlmin!B</c> share a colour. <see langword="null"/> when there is none.
    /// </summary>
    public static string? ModuleOf(string frame)
    {
        int bang = frame.IndexOf('!', StringComparison.Ordinal);
        string? module = null;
        if (bang > 0)
        {
            module = frame[..bang];
        }
        else
        {
            foreach (string ext in (ReadOnlySpan<string>)[".dll", ".exe", ".sys"])
            {
                int at = frame.IndexOf(ext, StringComparison.OrdinalIgnoreCase);
                if (at > 0)
                {
                    module = frame[..(at + ext.Length)];
                    break;
                }
            }
        }

        if (module is null)
        {
            return null;
        }

        module = module.Trim().ToUpperInvariant();
        foreach (string ext in (ReadOnlySpan<string>)[".DLL", ".EXE", ".SYS"])
        {
            if (module.EndsWith(ext, StringComparison.Ordinal))
            {
                module = module[..^ext.Length];
                break;
            }
        }

        return module.Length == 0 ? null : module;
    }

    /// <summary>The deterministic fill colour of a frame: one colour per module (a hue from a stable hash of its
    /// name).</summary>
    public static string ColourOf(string frame)
    {
        string? module = ModuleOf(frame);
        if (module is null)
        {
            return NoModuleColour;
        }

        uint h = Svg.StableHash(module);
        double hue = h % 360;
        double light = 0.70 + ((h >> 12) % 4 * 0.02);
        return Svg.Hsl(hue, 0.62, light);
    }

    /// <summary>The fill of a differential frame: red for growth, blue for shrink, near-white for no change.</summary>
    /// <param name="intensity">-1 (shrank most) to 1 (grew most).</param>
    public static string DiffColour(double intensity)
    {
        double t = Math.Clamp(Math.Abs(intensity), 0, 1);
        // Capped so black labels stay readable on the strongest red and blue.
        double other = (242 - (150 * t)) / 255.0;
        double base_ = (242 + (13 * t)) / 255.0;
        return intensity >= 0 ? Svg.Rgb(base_, other, other) : Svg.Rgb(other, other, base_);
    }
}
