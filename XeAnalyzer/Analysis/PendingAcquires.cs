using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace XeAnalyzer.Analysis;

/// <summary>
/// Acquires waiting for their release, keyed by (latch address, worker): a stack per key (the most recent acquire is
/// paired first, so a latch a worker holds twice pairs inner with inner), with a cap. When more than the cap are
/// pending, the oldest is evicted (reported as unpaired). Memory is bounded by the cap.
/// </summary>
internal sealed class PendingAcquires
{
    private readonly int _cap;
    private readonly Dictionary<PairKey, int> _top = [];
    private readonly Queue<(int Node, long Serial)> _fifo = new();
    private Node[] _nodes = new Node[1024];
    private int _free = -1;
    private int _used;
    private long _serial;

    public PendingAcquires(int cap)
    {
        _cap = cap;
    }

    public int Count { get; private set; }

    public long Evicted { get; private set; }

    /// <summary>Called with the class id of each evicted acquire.</summary>
    public Action<int>? OnEvicted { get; set; }

    public void Add(PairKey key, long ticks, int classId)
    {
        int n = Allocate();
        ref Node node = ref _nodes[n];
        node.Key = key;
        node.Ticks = ticks;
        node.ClassId = classId;
        node.Serial = ++_serial;
        node.Live = true;
        ref int top = ref CollectionsMarshal.GetValueRefOrAddDefault(_top, key, out bool exists);
        node.Below = exists ? top : -1;
        top = n;
        _fifo.Enqueue((n, node.Serial));
        Count++;
        if (Count > _cap)
        {
            EvictOldest();
        }

        if (_fifo.Count > Math.Max(4096, 2 * Count))
        {
            Compact();
        }
    }

    /// <summary>Pops the most recent pending acquire of <paramref name="key"/>.</summary>
    public bool TryTake(PairKey key, out long ticks, out int classId)
    {
        ref int top = ref CollectionsMarshal.GetValueRefOrNullRef(_top, key);
        if (!Unsafe.IsNullRef(ref top))
        {
            int n = top;
            ref Node node = ref _nodes[n];
            ticks = node.Ticks;
            classId = node.ClassId;
            if (node.Below >= 0)
            {
                top = node.Below;
            }
            else
            {
                _top.Remove(key);
            }

            Release(n);
            Count--;
            return true;
        }

        ticks = 0;
        classId = -1;
        return false;
    }

    /// <summary>Every pending acquire's class id (the ones never released).</summary>
    public IEnumerable<int> Remaining()
    {
        foreach (int top in _top.Values)
        {
            for (int n = top; n >= 0; n = _nodes[n].Below)
            {
                yield return _nodes[n].ClassId;
            }
        }
    }

    private void EvictOldest()
    {
        while (_fifo.TryDequeue(out (int Node, long Serial) entry))
        {
            ref Node node = ref _nodes[entry.Node];
            if (!node.Live || node.Serial != entry.Serial)
            {
                continue;
            }

            // Unlink from its key's stack (usually the bottom).
            PairKey key = node.Key;
            int top = _top[key];
            if (top == entry.Node)
            {
                if (node.Below >= 0)
                {
                    _top[key] = node.Below;
                }
                else
                {
                    _top.Remove(key);
                }
            }
            else
            {
                int above = top;
                while (_nodes[above].Below != entry.Node)
                {
                    above = _nodes[above].Below;
                }

                _nodes[above].Below = node.Below;
            }

            int classId = node.ClassId;
            Release(entry.Node);
            Count--;
            Evicted++;
            OnEvicted?.Invoke(classId);
            return;
        }
    }

    private void Compact()
    {
        int n = _fifo.Count;
        for (int i = 0; i < n; i++)
        {
            (int Node, long Serial) e = _fifo.Dequeue();
            if (_nodes[e.Node].Live && _nodes[e.Node].Serial == e.Serial)
            {
                _fifo.Enqueue(e);
            }
        }
    }

    private int Allocate()
    {
        if (_free >= 0)
        {
            int n = _free;
            _free = _nodes[n].Below;
            return n;
        }

        if (_used == _nodes.Length)
        {
            Array.Resize(ref _nodes, _nodes.Length * 2);
        }

        return _used++;
    }

    private void Release(int n)
    {
        _nodes[n].Live = false;
        _nodes[n].Below = _free;
        _free = n;
    }

    private struct Node
    {
        public PairKey Key;
        public long Ticks;
        public long Serial;
        public int ClassId;
        public int Below;
        public bool Live;
    }
}

/// <summary>What pairs an acquire with its release: the latch address and the worker (or thread) that holds
/// it.</summary>
internal readonly record struct PairKey(ulong Address, ulong Worker, byte WorkerKind)
{
    /// <summary>Equal keys, compared field by field (the generated comparison goes through a comparer per
    /// field).</summary>
    public bool Equals(PairKey other) =>
        Address == other.Address && Worker == other.Worker && WorkerKind == other.WorkerKind;

    /// <summary>A hash mixing every bit of the three parts (latch addresses and worker addresses differ mostly in their
    /// middle bits).</summary>
    public override int GetHashCode()
    {
        unchecked
        {
            ulong h = (Address * 0x9E3779B97F4A7C15UL) ^ ((Worker + WorkerKind) * 0xC2B2AE3D27D4EB4FUL);
            h ^= h >> 29;
            return (int)(h ^ (h >> 32));
        }
    }
}
