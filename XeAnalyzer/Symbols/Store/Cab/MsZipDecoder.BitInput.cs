using System.Globalization;

namespace XeAnalyzer.Symbols.Store.Cab;

internal sealed partial class MsZipDecoder
{
    /// <summary>LSB-first bit reader over one block's DEFLATE bytes; reading past the end throws.</summary>
    private ref struct BitInput
    {
        private readonly ReadOnlySpan<byte> _data;
        private readonly string? _file;
        private readonly long _baseOffset;
        private int _pos;
        private ulong _bits;
        private int _count;

        public BitInput(ReadOnlySpan<byte> data, string? file, long baseOffset)
        {
            _data = data;
            _file = file;
            _baseOffset = baseOffset;
            _pos = 0;
            _bits = 0;
            _count = 0;
        }

        /// <summary>Number of valid bits buffered (after a refill).</summary>
        public int Available
        {
            get
            {
                Refill();
                return _count;
            }
        }

        /// <summary>The next <paramref name="n"/> bits without consuming them; missing bits past the end read as
        /// zero.</summary>
        public uint Peek(int n)
        {
            Refill();
            return (uint)(_bits & ((1UL << n) - 1));
        }

        public void Consume(int n)
        {
            if (n > _count)
            {
                throw Error("expected more DEFLATE data, but the block ends early (truncated or corrupt data)");
            }

            _bits >>= n;
            _count -= n;
        }

        public uint Read(int n)
        {
            if (n == 0)
            {
                return 0;
            }

            uint v = Peek(n);
            Consume(n);
            return v;
        }

        public void AlignToByte() => Consume(_count & 7);

        public void ReadBytes(Span<byte> destination)
        {
            // Give back the whole bytes still buffered, then copy straight from the input.
            _pos -= _count >> 3;
            _bits = 0;
            _count = 0;
            if (destination.Length > _data.Length - _pos)
            {
                throw Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"expected {destination.Length} stored bytes, but only {_data.Length - _pos} remain in the "
                            + $"block"
                    )
                );
            }

            _data.Slice(_pos, destination.Length).CopyTo(destination);
            _pos += destination.Length;
        }

        public readonly InvalidPdbDataException Error(string detail) =>
            new(_file, _baseOffset + Math.Max(0, _pos - (_count >> 3)), "MSZIP data: " + detail);

        private void Refill()
        {
            while (_count <= 56 && _pos < _data.Length)
            {
                _bits |= (ulong)_data[_pos++] << _count;
                _count += 8;
            }
        }
    }
}
