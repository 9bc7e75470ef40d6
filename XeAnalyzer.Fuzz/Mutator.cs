using System.Buffers.Binary;
using System.Text;

namespace XeAnalyzer.Fuzz;

/// <summary>
/// Seeded mutations of a seed input: the same (seed input, <see cref="Random"/> state) gives the same bytes on every machine.
/// Binary inputs get bit flips, "interesting" integers written over 1, 2, 4 or 8 aligned bytes (0, 1, max−1, max, sign edges, the
/// file length and just past it), truncations (anywhere and at 512/4096-byte boundaries), chunk duplication, deletion, insertion
/// and splices from another seed; text inputs additionally get line-level edits and hostile tokens.
/// </summary>
public static class Mutator
{
    private static readonly string[] TextTokens =
    [
        "<", ">", "&", "&#x0;", "&#xFFFF;", "&#1114112;", "&lt;", "]]>", "<![CDATA[", "<!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\">]>", "&a;",
        "0x", "0xFFFFFFFFFFFFFFFF", "0x10000000000000000", "+0x", "+0xFFFFFFFF", "-1", "99999999999999999999999", "!", "!!", "+",
        "sqlmin.dll+0x", "sqlmin!", "sqlmin.dll!Ordinal", "Ordinal4294967296", "[ @ 0+0x0", "\t", "\r", "\n", "\0", "\uFFFD",
        "<frame id=\"00\" pdb=\"sqlmin.pdb\" age=\"4294967295\" guid=\"9C072258-C838-1309-4C4C-44205044422E\" module=\"sqlmin.dll\" rva=\"0xFFFFFFFF\"/>",
        "<Slot count=\"18446744073709551616\">", "<value>", "</value>", "<event name=\"latch_acquired\" package=\"sqlserver\" timestamp=\"\">",
        "<data name=\"callstack\"><value>", "<action name=\"callstack\" package=\"package0\"><value>", "Slot_4294967295\t[count:-1]:",
        "name\tbase_address", "sqlmin.dll\t0x", "\"", "'", ",", ";", "=", "..", "/", "\\",
    ];

    /// <summary>Applies 1 to 8 mutations chosen by <paramref name="random"/> to a copy of <paramref name="seed"/>.</summary>
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
                // Truncate anywhere, or at a block boundary (where buffers, MSF blocks and headers end), or one byte either side.
                int cut = random.Next(2) == 0 ? random.Next(n) : (random.Next(Math.Max(1, n / 512)) * 512) + random.Next(-1, 2);
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
                data.InsertRange(random.Next(n + 1), Encoding.UTF8.GetBytes(TextTokens[random.Next(TextTokens.Length)]));
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
        int width = random.Next(4) switch { 0 => 1, 1 => 2, 2 => 4, _ => 8 };
        if (n < width)
        {
            return;
        }

        ulong max = width == 8 ? ulong.MaxValue : (1UL << (8 * width)) - 1;
        ulong[] interesting = [0, 1, 2, max - 1, max, max >> 1, (max >> 1) + 1, (ulong)n, (ulong)n + 1, 0x200, 0x1000, 0x10000, 0xFFFF, 0x7FFF];
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
