using System.Globalization;

namespace XeAnalyzer.Symbols.Store.Cab;

/// <summary>
/// A DEFLATE (RFC 1951) decoder for the MSZIP compression of CAB folders. Each CFDATA block holds the two bytes
/// <c>CK</c> and a raw DEFLATE stream that ends with a final block; back-references may reach up to 32 KB into the
/// output of the previous blocks of the same folder, so the decoder keeps that history between calls
/// (which <see cref="System.IO.Compression.DeflateStream"/> cannot be primed with).
/// Every input read, table build and back-reference is bounds-checked; the output of one block is capped at its
/// declared size.
/// </summary>
internal sealed partial class MsZipDecoder
{
    /// <summary>The DEFLATE window: how far back a distance may reach.</summary>
    public const int WindowSize = 32768;

    /// <summary>The largest uncompressed size of one MSZIP block.</summary>
    public const int MaxBlockOutput = 32768;

    private const int MaxCodeBits = 15;
    private const int FastBits = 9;
    private const int LitLenSymbols = 288;
    private const int DistSymbols = 32;

    private static readonly ushort[] s_lengthBase =
    [
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        13,
        15,
        17,
        19,
        23,
        27,
        31,
        35,
        43,
        51,
        59,
        67,
        83,
        99,
        115,
        131,
        163,
        195,
        227,
        258,
    ];
    private static readonly byte[] s_lengthExtra =
    [
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
        1,
        1,
        1,
        2,
        2,
        2,
        2,
        3,
        3,
        3,
        3,
        4,
        4,
        4,
        4,
        5,
        5,
        5,
        5,
        0,
    ];
    private static readonly ushort[] s_distBase =
    [
        1,
        2,
        3,
        4,
        5,
        7,
        9,
        13,
        17,
        25,
        33,
        49,
        65,
        97,
        129,
        193,
        257,
        385,
        513,
        769,
        1025,
        1537,
        2049,
        3073,
        4097,
        6145,
        8193,
        12289,
        16385,
        24577,
    ];
    private static readonly byte[] s_distExtra =
    [
        0,
        0,
        0,
        0,
        1,
        1,
        2,
        2,
        3,
        3,
        4,
        4,
        5,
        5,
        6,
        6,
        7,
        7,
        8,
        8,
        9,
        9,
        10,
        10,
        11,
        11,
        12,
        12,
        13,
        13,
    ];
    private static readonly byte[] s_codeLengthOrder =
    [
        16,
        17,
        18,
        0,
        8,
        7,
        9,
        6,
        10,
        5,
        11,
        4,
        12,
        3,
        13,
        2,
        14,
        1,
        15,
    ];

    // History (the last WindowSize bytes of earlier blocks) followed by the output of the current block.
    private readonly byte[] _buffer = new byte[WindowSize + MaxBlockOutput];
    private readonly Huffman _litLen = new(LitLenSymbols);
    private readonly Huffman _dist = new(DistSymbols);
    private readonly Huffman _codeLengths = new(19);
    private readonly byte[] _lengths = new byte[LitLenSymbols + DistSymbols];
    private int _historyLength;
    private bool _fixedLoaded;

    /// <summary>Forgets the history (the start of a new CAB folder).</summary>
    public void Reset() => _historyLength = 0;

    /// <summary>
    /// Decodes one CFDATA payload (<c>CK</c> + DEFLATE data) into exactly <paramref name="destination"/>.Length bytes.
    /// </summary>
    /// <param name="data">The compressed payload of the block, including the <c>CK</c> signature.</param>
    /// <param name="destination">Receives the uncompressed bytes; its length is the block's declared uncompressed
    /// size.</param>
    /// <param name="file">The CAB file, for messages.</param>
    /// <param name="dataOffset">File offset of <paramref name="data"/>, for messages.</param>
    /// <exception cref="InvalidPdbDataException">The block is not valid MSZIP data or does not expand to the declared
    /// size.</exception>
    public void DecodeBlock(ReadOnlySpan<byte> data, Span<byte> destination, string? file, long dataOffset)
    {
        if (destination.Length > MaxBlockOutput)
        {
            throw new InvalidPdbDataException(
                file,
                dataOffset,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected an MSZIP block of at most {MaxBlockOutput} uncompressed bytes, found a declared size "
                        + $"of {destination.Length}"
                )
            );
        }

        if (data.Length < 2 || data[0] != (byte)'C' || data[1] != (byte)'K')
        {
            throw new InvalidPdbDataException(
                file,
                dataOffset,
                "expected the MSZIP block signature 'CK', found other bytes"
            );
        }

        var bits = new BitInput(data[2..], file, dataOffset + 2);
        int start = _historyLength;
        int limit = start + destination.Length;
        int pos = start;
        bool last;
        do
        {
            last = bits.Read(1) == 1;
            uint type = bits.Read(2);
            switch (type)
            {
                case 0:
                    pos = CopyStored(ref bits, pos, limit);
                    break;
                case 1:
                    LoadFixedTables();
                    pos = Inflate(ref bits, pos, start, limit);
                    break;
                case 2:
                    _fixedLoaded = false;
                    ReadDynamicTables(ref bits);
                    pos = Inflate(ref bits, pos, start, limit);
                    break;
                default:
                    throw bits.Error("expected a DEFLATE block type 0, 1 or 2, found the reserved type 3");
            }
        } while (!last);

        if (pos != limit)
        {
            throw new InvalidPdbDataException(
                file,
                dataOffset,
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected the MSZIP block to expand to {destination.Length} bytes, but it expands to {pos - start}"
                )
            );
        }

        _buffer.AsSpan(start, destination.Length).CopyTo(destination);

        // Keep the last WindowSize bytes as the history of the next block.
        int total = limit;
        if (total > WindowSize)
        {
            Buffer.BlockCopy(_buffer, total - WindowSize, _buffer, 0, WindowSize);
            _historyLength = WindowSize;
        }
        else
        {
            _historyLength = total;
        }
    }

    private int CopyStored(ref BitInput bits, int pos, int limit)
    {
        bits.AlignToByte();
        uint len = bits.Read(16);
        uint nlen = bits.Read(16);
        if ((len ^ 0xFFFF) != nlen)
        {
            throw bits.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected a stored block length and its complement, found LEN={len} NLEN={nlen}"
                )
            );
        }

        if (len > (uint)(limit - pos))
        {
            throw bits.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected at most {limit - pos} more bytes in this block, but a stored block holds {len}"
                )
            );
        }

        bits.ReadBytes(_buffer.AsSpan(pos, (int)len));
        return pos + (int)len;
    }

    private int Inflate(ref BitInput bits, int pos, int blockStart, int limit)
    {
        byte[] buf = _buffer;
        int historyStart = blockStart - _historyLength;
        while (true)
        {
            int sym = _litLen.Decode(ref bits);
            if (sym < 256)
            {
                if (pos >= limit)
                {
                    throw bits.Error(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"expected the block to end after {limit - blockStart} bytes, but it continues (data "
                                + $"beyond the declared size)"
                        )
                    );
                }

                buf[pos++] = (byte)sym;
                continue;
            }

            if (sym == 256)
            {
                return pos;
            }

            int li = sym - 257;
            if (li >= s_lengthBase.Length)
            {
                throw bits.Error(
                    string.Create(CultureInfo.InvariantCulture, $"expected a length symbol 257..285, found {sym}")
                );
            }

            int length = s_lengthBase[li] + (int)bits.Read(s_lengthExtra[li]);
            int ds = _dist.Decode(ref bits);
            if (ds >= s_distBase.Length)
            {
                throw bits.Error(
                    string.Create(CultureInfo.InvariantCulture, $"expected a distance symbol 0..29, found {ds}")
                );
            }

            int distance = s_distBase[ds] + (int)bits.Read(s_distExtra[ds]);
            if (distance > pos - historyStart)
            {
                throw bits.Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected a distance of at most {pos - historyStart} (the data decoded so far), found "
                            + $"{distance}"
                    )
                );
            }

            if (length > limit - pos)
            {
                throw bits.Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected the block to end after {limit - blockStart} bytes, but a match of {length} bytes "
                            + $"runs past it"
                    )
                );
            }

            int from = pos - distance;
            if (distance >= length)
            {
                buf.AsSpan(from, length).CopyTo(buf.AsSpan(pos, length));
            }
            else if (distance == 1)
            {
                buf.AsSpan(pos, length).Fill(buf[from]);
            }
            else
            {
                // Overlapping copy: the match repeats the last 'distance' bytes; copy whole periods at a time.
                int done = 0;
                while (done < length)
                {
                    int n = Math.Min(distance, length - done);
                    buf.AsSpan(from + done, n).CopyTo(buf.AsSpan(pos + done, n));
                    done += n;
                }
            }

            pos += length;
        }
    }

    private void LoadFixedTables()
    {
        if (_fixedLoaded)
        {
            return;
        }

        Span<byte> lit = stackalloc byte[LitLenSymbols];
        lit[..144].Fill(8);
        lit[144..256].Fill(9);
        lit[256..280].Fill(7);
        lit[280..].Fill(8);
        Span<byte> dist = stackalloc byte[DistSymbols];
        dist.Fill(5);
        _litLen.Build(lit);
        _dist.Build(dist);
        _fixedLoaded = true;
    }

    private void ReadDynamicTables(ref BitInput bits)
    {
        int hlit = (int)bits.Read(5) + 257;
        int hdist = (int)bits.Read(5) + 1;
        int hclen = (int)bits.Read(4) + 4;
        if (hlit > 286 || hdist > 30)
        {
            throw bits.Error(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"expected at most 286 literal/length and 30 distance codes, found {hlit} and {hdist}"
                )
            );
        }

        Span<byte> clens = stackalloc byte[19];
        clens.Clear();
        for (int i = 0; i < hclen; i++)
        {
            clens[s_codeLengthOrder[i]] = (byte)bits.Read(3);
        }

        ThrowIfInvalid(ref bits, _codeLengths.Build(clens));
        Span<byte> lengths = _lengths.AsSpan(0, hlit + hdist);
        int n = 0;
        while (n < lengths.Length)
        {
            int sym = _codeLengths.Decode(ref bits);
            if (sym < 16)
            {
                lengths[n++] = (byte)sym;
                continue;
            }

            byte value = 0;
            int repeat;
            if (sym == 16)
            {
                if (n == 0)
                {
                    throw bits.Error("expected a previous code length before repeat code 16");
                }

                value = lengths[n - 1];
                repeat = 3 + (int)bits.Read(2);
            }
            else if (sym == 17)
            {
                repeat = 3 + (int)bits.Read(3);
            }
            else
            {
                repeat = 11 + (int)bits.Read(7);
            }

            if (repeat > lengths.Length - n)
            {
                throw bits.Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected {lengths.Length} code lengths, but a repeat runs {repeat - (lengths.Length - n)} "
                            + $"past them"
                    )
                );
            }

            lengths.Slice(n, repeat).Fill(value);
            n += repeat;
        }

        if (lengths[256] == 0)
        {
            throw bits.Error("expected a code for the end-of-block symbol 256, found none");
        }

        ThrowIfInvalid(ref bits, _litLen.Build(lengths[..hlit]));
        ThrowIfInvalid(ref bits, _dist.Build(lengths[hlit..]));
    }

    private static void ThrowIfInvalid(ref BitInput bits, string? problem)
    {
        if (problem is not null)
        {
            throw bits.Error(problem);
        }
    }
}
