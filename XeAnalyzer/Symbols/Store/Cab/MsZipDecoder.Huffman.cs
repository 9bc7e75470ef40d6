namespace XeAnalyzer.Symbols.Store.Cab;

internal sealed partial class MsZipDecoder
{
    /// <summary>A canonical Huffman code: a direct lookup table for short codes, a canonical walk for long
    /// ones.</summary>
    private sealed class Huffman
    {
        private readonly ushort[] _fast = new ushort[1 << FastBits]; // symbol | (length << 9); 0 = not a short code
        private readonly short[] _count = new short[MaxCodeBits + 1];
        private readonly short[] _symbols;

        public Huffman(int maxSymbols) => _symbols = new short[maxSymbols];

        /// <summary>Builds the code from per-symbol code lengths; returns what is wrong with them, or null.</summary>
        public string? Build(ReadOnlySpan<byte> lengths)
        {
            Array.Clear(_count);
            foreach (byte l in lengths)
            {
                _count[l]++;
            }

            _count[0] = 0;
            int left = 1;
            for (int len = 1; len <= MaxCodeBits; len++)
            {
                left = (left << 1) - _count[len];
                if (left < 0)
                {
                    return "expected a valid Huffman code, found an over-subscribed set of code lengths";
                }
            }

            // Symbols sorted by code length, then by value: the canonical order.
            Span<short> offsets = stackalloc short[MaxCodeBits + 2];
            offsets[1] = 0;
            for (int len = 1; len <= MaxCodeBits; len++)
            {
                offsets[len + 1] = (short)(offsets[len] + _count[len]);
            }

            for (int s = 0; s < lengths.Length; s++)
            {
                if (lengths[s] != 0)
                {
                    _symbols[offsets[lengths[s]]++] = (short)s;
                }
            }

            // Direct table: every short code, bit-reversed (DEFLATE sends Huffman codes most significant bit first).
            Array.Clear(_fast);
            int code = 0;
            int index = 0;
            for (int len = 1; len <= FastBits; len++)
            {
                for (int k = 0; k < _count[len]; k++)
                {
                    int sym = _symbols[index++];
                    int reversed = Reverse(code, len);
                    for (int fill = reversed; fill < _fast.Length; fill += 1 << len)
                    {
                        _fast[fill] = (ushort)(sym | (len << 9));
                    }

                    code++;
                }

                code <<= 1;
            }

            return null;
        }

        public int Decode(ref BitInput bits)
        {
            ushort entry = _fast[bits.Peek(FastBits)];
            if (entry != 0)
            {
                int len = entry >> 9;
                bits.Consume(len);
                return entry & 0x1FF;
            }

            // Long code (or an unused short code): walk the canonical code one bit at a time.
            int code = 0;
            int first = 0;
            int index = 0;
            for (int len = 1; len <= MaxCodeBits; len++)
            {
                code |= (int)bits.Read(1);
                int count = _count[len];
                if (code - first < count)
                {
                    return _symbols[index + (code - first)];
                }

                index += count;
                first = (first + count) << 1;
                code <<= 1;
            }

            throw bits.Error("expected a valid Huffman code, found a bit pattern no symbol has");
        }

        private static int Reverse(int code, int len)
        {
            int r = 0;
            for (int i = 0; i < len; i++)
            {
                r = (r << 1) | (code & 1);
                code >>= 1;
            }

            return r;
        }
    }
}
