using System.Buffers.Binary;
using System.Text;

namespace XeAnalyzer.Fuzz;

/// <summary>
/// Seeded mutations of a seed input: the same (seed input, <see cref="Random"/> state) gives the same bytes on every
/// machine. Binary inputs get bit flips, "interesting" integers written over 1, 2, 4 or 8 aligned bytes (0, 1, max−1,
/// max, sign edges, the file length and just past it), truncations (anywhere and at 512/4096-byte boundaries), chunk
/// duplication, deletion, insertion and splices from another seed; text inputs additionally get line-level edits and
/// hostile tokens.
/// </summary>
public static class Mutator
{
    private static readonly string[] TextTokens =
    [
        "<",
        ">",
        "&",
        "&#x0;",
        "&#xFFFF;",
        "&#1114112;",
        "&lt;",
        "]]>",
        "<![CDATA[",
        "<!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\">]>",
        "&a;",
        "0x",
        "0xFFFFFFFFFFFFFFFF",
        "0x10000000000000000",
        "+0x",
        "+0xFFFFFFFF",
        "-1",
        "99999999999999999999999",
        "!",
        "!!",
        "+",
        "sqlmin.dll+0x",
        "sqlmin!",
        "sqlmin.dll!Ordinal",
        "Ordinal4294967296",
        "[ @ 0+0x0",
        "\t",
        "\r",
        "\n",
        "\0",
        "\uFFFD",
        "<frame id=\"00\" pdb=\"sqlmin.pdb\" age=\"4294967295\" guid=\"9C072258-C838-1309-4C4C-44205044422E\" "
            + "module=\"sqlmin.dll\" rva=\"0xFFFFFFFF\"/>",
        "<Slot count=\"18446744073709551616\">",
        "<value>",
        "</value>",
        "<event name=\"latch_acquired\" package=\"sqlserver\" timestamp=\"\">",
        "<data name=\"callstack\"><value>",
        "<action name=\"callstack\" package=\"package0\"><value>",
        "Slot_4294967295\t[count:-1]:",
        "name\tbase_address",
        "sqlmin.dll\t0x",
        "\"",
        "'",
        ",",
        ";",
        "=",
        "..",
        "/",
        "\\",
    ];

    /// <summary>
    /// Numbers of target XML at and past the edges the analyses sum and compare (2^31, 2^63, 2^64), and non-numbers.
    /// </summary>
    private static readonly string[] ExtremeNumbers =
    [
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999999",
        "4294967295",
        "4294967296",
        "2147483647",
        "2147483648",
        "-1",
        "0",
        "-0",
        "1e308",
        "1e309",
        "-1e999",
        "4.9e-324",
        "1.5",
        "NaN",
        "Infinity",
        "-Infinity",
        "0x7FFFFFFFFFFFFFFF",
        "abc",
        "",
        " 12 ",
        "1,000",
        "12abc",
        "+5",
    ];

    /// <summary>JSON values a build catalog line may hold instead of the expected ones.</summary>
    private static readonly string[] JsonValues =
    [
        "\"\\ud800\"",
        "\"\\udc00\\ud800\"",
        "\"a\\ud800b\"",
        "\"\"",
        "\" \"",
        "\"13.0.4001.0\"",
        "\"0\"",
        "\"99999999999.0.0.0\"",
        "\"2147483648.0.0.0\"",
        "\"-1.0\"",
        "\"x86\"",
        "\"arm64\"",
        "\"X64\"",
        "[]",
        "{}",
        "null",
        "true",
        "false",
        "1e999",
        "-1",
        "18446744073709551616",
        "[{}]",
        "[[[[[[[[[[[[]]]]]]]]]]]]",
        "\"\\u0000\"",
        "\"https://msdl.microsoft.com/download/symbols/a.pdb/0123456789abcdef0123456789abcdef2/a.pdb\"",
        "\"https://msdl.microsoft.com/download/symbols/a.pdb/0123456789abcdef0123456789abcdefFFFFFFFFF/a.pdb\"",
        "\"https://msdl.microsoft.com/download/symbols/..%2Fa.pdb/0123456789abcdef0123456789abcdef2/..%2Fa.pdb\"",
        "\"https://msdl.microsoft.com/download/symbols/a\\u0001.pdb/0123456789abcdef0123456789abcdef2/a\\u0001.pdb\"",
    ];

    /// <summary>
    /// Bytes that make a PDB name in an RSDS record unusable (separators, wildcards, control, non-ASCII).
    /// </summary>
    private static readonly byte[] HostileNameBytes =
    [
        (byte)'/',
        (byte)'\\',
        (byte)':',
        (byte)'*',
        (byte)'?',
        0x01,
        0x1F,
        (byte)'.',
        (byte)' ',
        0x7F,
        0xC0,
        0xFF,
    ];

    /// <summary>Whole PDB names for an RSDS record (cut to the room the seed's name has).</summary>
    private static readonly string[] HostilePdbNames =
    [
        "..\\..\\x.pdb",
        "C:\\b\\sqlmin.pdb",
        "/b/sqlmin.pdb",
        ".pdb",
        "a",
        "x.pdb.exe",
        "con.pdb",
        "s*.pdb",
        " a.pdb",
    ];

    private static readonly System.Text.RegularExpressions.Regex XmlNumber = new(
        @"(?<=>|="")-?[0-9][0-9.eE+-]*(?=<|"")",
        System.Text.RegularExpressions.RegexOptions.CultureInvariant
    );

    private static readonly System.Text.RegularExpressions.Regex JsonValue = new(
        @"(?<=:)(""(?:[^""\\]|\\.)*""|-?[0-9][0-9.eE+-]*|true|false|null|\[\]|\{\})",
        System.Text.RegularExpressions.RegexOptions.CultureInvariant
    );

    /// <summary>
    /// Target XML with 1 to 4 of its numbers (element values and attributes such as <c>count</c>) replaced by extreme
    /// or non-numeric ones, then sometimes the text mutations too.
    /// </summary>
    public static byte[] MutateNumbers(byte[] seed, byte[] other, Random random, int maxLength) =>
        ReplaceValues(seed, other, XmlNumber, ExtremeNumbers, random, maxLength);

    /// <summary>
    /// Build catalog lines with 1 to 4 JSON values replaced by hostile ones, then sometimes the text mutations too.
    /// </summary>
    public static byte[] MutateJsonValues(byte[] seed, byte[] other, Random random, int maxLength) =>
        ReplaceValues(seed, other, JsonValue, JsonValues, random, maxLength);

    /// <summary>
    /// A PE image whose RSDS record (GUID, age, PDB path) is the part mutated: a hostile byte or a whole hostile name
    /// in the path, a GUID or age byte changed, or the terminating NUL overwritten; one time in four the binary
    /// mutations instead.
    /// </summary>
    public static byte[] MutateRsds(byte[] seed, byte[] other, Random random, int maxLength)
    {
        ArgumentNullException.ThrowIfNull(seed);
        ArgumentNullException.ThrowIfNull(random);
        int rsds = seed.AsSpan().IndexOf("RSDS"u8);
        if (rsds < 0 || seed.Length < rsds + 26 || random.Next(4) == 0)
        {
            return Mutate(seed, other, isText: false, random, maxLength);
        }

        byte[] data = (byte[])seed.Clone();
        int path = rsds + 24;
        int end = Array.IndexOf(data, (byte)0, path);
        end = end < 0 ? data.Length - 1 : end;
        switch (random.Next(4))
        {
            case 0 when end > path:
                data[path + random.Next(end - path)] = HostileNameBytes[random.Next(HostileNameBytes.Length)];
                break;
            case 1:
                byte[] name = Encoding.UTF8.GetBytes(HostilePdbNames[random.Next(HostilePdbNames.Length)]);
                int room = end - path;
                Array.Clear(data, path, room);
                name.AsSpan(0, Math.Min(name.Length, room)).CopyTo(data.AsSpan(path));
                break;
            case 2:
                data[rsds + 4 + random.Next(20)] ^= (byte)(1 + random.Next(255));
                break;
            default:
                data[end] = (byte)'x';
                break;
        }

        return data;
    }

    /// <summary>
    /// A command line (one argument per line): 1 to 4 edits that replace, insert, delete, repeat or empty an argument,
    /// taking the new ones from <paramref name="tokens"/> or from another seed.
    /// </summary>
    public static byte[] MutateArguments(byte[] seed, byte[] other, Random random, IReadOnlyList<string> tokens)
    {
        ArgumentNullException.ThrowIfNull(random);
        ArgumentNullException.ThrowIfNull(tokens);
        List<string> args = [.. Arguments(seed)];
        string[] others = Arguments(other);
        int count = 1 + random.Next(4);
        for (int i = 0; i < count; i++)
        {
            int n = args.Count;
            string token =
                random.Next(4) == 0 && others.Length > 0
                    ? others[random.Next(others.Length)]
                    : tokens[random.Next(tokens.Count)];
            switch (random.Next(6))
            {
                case 0 when n > 1:
                    args[1 + random.Next(n - 1)] = token;
                    break;
                case 1:
                    args.Insert(Math.Min(n, 1 + random.Next(n)), token);
                    break;
                case 2 when n > 1:
                    args.RemoveAt(1 + random.Next(n - 1));
                    break;
                case 3 when n > 1:
                    int at = 1 + random.Next(n - 1);
                    args.Insert(at, args[at]);
                    break;
                case 4 when n > 1:
                    args[1 + random.Next(n - 1)] = string.Empty;
                    break;
                default:
                    args.Add(token);
                    break;
            }
        }

        return Encoding.UTF8.GetBytes(string.Concat(args.Select(a => a + "\n")));
    }

    /// <summary>The arguments of a command-line input: one per line (an empty line is an empty argument).</summary>
    public static string[] Arguments(byte[] input)
    {
        ArgumentNullException.ThrowIfNull(input);
        string text = Encoding.UTF8.GetString(input);
        string[] lines = text.Split('\n');
        return text.EndsWith('\n') ? lines[..^1] : lines;
    }

    private static byte[] ReplaceValues(
        byte[] seed,
        byte[] other,
        System.Text.RegularExpressions.Regex pattern,
        string[] values,
        Random random,
        int maxLength
    )
    {
        ArgumentNullException.ThrowIfNull(seed);
        ArgumentNullException.ThrowIfNull(random);
        string text = Encoding.UTF8.GetString(seed);
        System.Text.RegularExpressions.Match[] found =
        [
            .. pattern.Matches(text).Cast<System.Text.RegularExpressions.Match>(),
        ];
        if (found.Length == 0)
        {
            return Mutate(seed, other, isText: true, random, maxLength);
        }

        int count = 1 + random.Next(4);
        var chosen = new SortedSet<int>();
        for (int i = 0; i < count; i++)
        {
            chosen.Add(random.Next(found.Length));
        }

        var sb = new StringBuilder(text);
        foreach (int i in chosen.Reverse())
        {
            sb.Remove(found[i].Index, found[i].Length).Insert(found[i].Index, values[random.Next(values.Length)]);
        }

        byte[] result = Encoding.UTF8.GetBytes(sb.ToString());
        if (random.Next(4) == 0)
        {
            return Mutate(result, other, isText: true, random, maxLength);
        }

        return result.Length <= maxLength ? result : result[..maxLength];
    }

    /// <summary>Applies 1 to 8 mutations chosen by <paramref name="random"/> to a copy of
    /// <paramref name="seed"/>.</summary>
    /// <param name="seed">The seed input.</param>
    /// <param name="other">Another seed of the same target, for splices.</param>
    /// <param name="isText">Whether line- and token-level text mutations may be used too.</param>
    /// <param name="random">The source of every choice.</param>
    /// <param name="maxLength">The largest result.</param>
    /// <returns>The mutated bytes.</returns>
    public static byte[] Mutate(byte[] seed, byte[] other, bool isText, Random random, int maxLength)
    {
        ArgumentNullException.ThrowIfNull(seed);
        ArgumentNullException.ThrowIfNull(other);
        ArgumentNullException.ThrowIfNull(random);
        var data = new List<byte>(seed);
        int count = 1 + (random.Next(8) == 0 ? random.Next(8) : random.Next(3));
        for (int i = 0; i < count; i++)
        {
            int op = random.Next(isText ? 14 : 10);
            Apply(data, other, op, random);
            if (data.Count > maxLength)
            {
                data.RemoveRange(maxLength, data.Count - maxLength);
            }
        }

        return [.. data];
    }

    private static void Apply(List<byte> data, byte[] other, int op, Random random)
    {
        int n = data.Count;
        switch (op)
        {
            case 0 when n > 0:
                data[random.Next(n)] ^= (byte)(1 << random.Next(8));
                break;
            case 1 when n > 0:
                data[random.Next(n)] = (byte)random.Next(256);
                break;
            case 2:
            case 3:
            case 4:
                WriteInteger(data, random);
                break;
            case 5 when n > 0:
                // Truncate anywhere, or at a block boundary (where buffers, MSF blocks and headers end), or one byte
                // either side.
                int cut =
                    random.Next(2) == 0
                        ? random.Next(n)
                        : (random.Next(Math.Max(1, n / 512)) * 512) + random.Next(-1, 2);
                cut = Math.Clamp(cut, 0, n);
                data.RemoveRange(cut, n - cut);
                break;
            case 6 when n > 1:
                int from = random.Next(n);
                int len = Math.Min(n - from, 1 + random.Next(Math.Min(n, 4096)));
                data.InsertRange(random.Next(n), data.GetRange(from, len));
                break;
            case 7 when n > 1:
                int start = random.Next(n);
                data.RemoveRange(start, Math.Min(n - start, 1 + random.Next(Math.Min(n, 1024))));
                break;
            case 8:
                byte[] junk = new byte[1 + random.Next(64)];
                random.NextBytes(junk);
                data.InsertRange(random.Next(n + 1), junk);
                break;
            case 9 when other.Length > 0 && n > 0:
                // Splice: this seed's head, another seed's tail.
                int head = random.Next(n);
                int tail = random.Next(other.Length);
                data.RemoveRange(head, n - head);
                data.AddRange(other.AsSpan(tail).ToArray());
                break;
            case 10:
                data.InsertRange(
                    random.Next(n + 1),
                    Encoding.UTF8.GetBytes(TextTokens[random.Next(TextTokens.Length)])
                );
                break;
            case 11 when n > 0:
                LineEdit(data, random, duplicate: true);
                break;
            case 12 when n > 0:
                LineEdit(data, random, duplicate: false);
                break;
            case 13:
                // Deep or long structure: a token repeated many times.
                string token = TextTokens[random.Next(TextTokens.Length)];
                var repeated = new StringBuilder();
                int times = 1 + random.Next(2000);
                for (int i = 0; i < times; i++)
                {
                    repeated.Append(token);
                }

                data.InsertRange(random.Next(n + 1), Encoding.UTF8.GetBytes(repeated.ToString()));
                break;
            default:
                if (n > 0)
                {
                    data[random.Next(n)] = (byte)~data[random.Next(n)];
                }

                break;
        }
    }

    private static void WriteInteger(List<byte> data, Random random)
    {
        int n = data.Count;
        int width = random.Next(4) switch
        {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => 8,
        };
        if (n < width)
        {
            return;
        }

        ulong max = width == 8 ? ulong.MaxValue : (1UL << (8 * width)) - 1;
        ulong[] interesting =
        [
            0,
            1,
            2,
            max - 1,
            max,
            max >> 1,
            (max >> 1) + 1,
            (ulong)n,
            (ulong)n + 1,
            0x200,
            0x1000,
            0x10000,
            0xFFFF,
            0x7FFF,
        ];
        ulong value = interesting[random.Next(interesting.Length)] & max;
        if (random.Next(4) == 0)
        {
            // Nudge the value already there by a small amount (length and count fields off by a few).
            ulong current = 0;
            for (int i = 0; i < width; i++)
            {
                current |= (ulong)data[((random.Next(n - width + 1) / width) * width) + i] << (8 * i);
            }

            value = (current + (ulong)random.Next(-4, 5)) & max;
        }

        int at = (random.Next(n - width + 1) / width) * width;
        Span<byte> bytes = stackalloc byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(bytes, value);
        for (int i = 0; i < width; i++)
        {
            data[at + i] = bytes[i];
        }
    }

    private static void LineEdit(List<byte> data, Random random, bool duplicate)
    {
        var lines = new List<List<byte>>();
        var current = new List<byte>();
        foreach (byte b in data)
        {
            current.Add(b);
            if (b == (byte)'\n')
            {
                lines.Add(current);
                current = [];
            }
        }

        if (current.Count > 0)
        {
            lines.Add(current);
        }

        int i = random.Next(lines.Count);
        if (duplicate)
        {
            int times = 1 + random.Next(random.Next(10) == 0 ? 500 : 3);
            for (int k = 0; k < times; k++)
            {
                lines.Insert(i, lines[i]);
            }
        }
        else
        {
            lines.RemoveAt(i);
        }

        data.Clear();
        foreach (List<byte> line in lines)
        {
            data.AddRange(line);
        }
    }
}
