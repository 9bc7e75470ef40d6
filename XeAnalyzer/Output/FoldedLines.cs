using System.Globalization;
using System.Text;

namespace XeAnalyzer.Output;

/// <summary>
/// The lines of a folded-stack file (see <see cref="FoldedStackWriter"/>): one per node of a call tree with self
/// weight, in the ordinal order of their text. Nodes are sorted by comparing their lines piece by piece, so the text of
/// every line never exists at once; a line is made only as it is written.
/// </summary>
internal sealed class FoldedLines : IComparer<int>
{
    private const string RootLine = "[root]";
    private readonly CallTree _tree;
    private readonly bool _two;
    private readonly string[] _escaped;
    private int[] _pathA = new int[16];
    private int[] _pathB = new int[16];
    private char[] _tailA = new char[256];
    private char[] _tailB = new char[256];

    /// <summary>Prepares the lines of <paramref name="tree"/>.</summary>
    /// <param name="tree">The tree.</param>
    /// <param name="includeBaseline">Whether each line carries the baseline count before the current one.</param>
    public FoldedLines(CallTree tree, bool includeBaseline)
    {
        _tree = tree;
        _two = includeBaseline;
        // Most names need no escaping and are kept as they are (EscapeFrame then returns the same string).
        _escaped = new string[tree.NodeCount];
        for (int i = 1; i < _escaped.Length; i++)
        {
            _escaped[i] = FoldedStackWriter.EscapeFrame(tree.NameOf(i));
        }
    }

    /// <summary>The nodes that have a line, in the order of the lines.</summary>
    /// <returns>The node indices.</returns>
    public int[] Sorted()
    {
        int[] nodes = _tree.NodesWhere(HasLine);
        Array.Sort(nodes, this);
        return nodes;
    }

    /// <summary>Appends the line of <paramref name="node"/> (without a line ending).</summary>
    public void Append(StringBuilder sb, int node)
    {
        int depth = FillPath(node, ref _pathA);
        if (depth == 0)
        {
            sb.Append(RootLine);
        }

        for (int j = 0; j < depth; j++)
        {
            if (j > 0)
            {
                sb.Append(';');
            }

            sb.Append(_escaped[_pathA[j]]);
        }

        sb.Append(' ');
        if (_two)
        {
            sb.Append(_tree.SelfBaselineWeightOf(node).ToString(CultureInfo.InvariantCulture)).Append(' ');
        }

        sb.Append(_tree.SelfWeightOf(node).ToString(CultureInfo.InvariantCulture));
    }

    /// <summary>Compares the lines of two nodes ordinally, from where their paths part.</summary>
    public int Compare(int x, int y)
    {
        if (x == y)
        {
            return 0;
        }

        int lengthX = FillPath(x, ref _pathA);
        int lengthY = FillPath(y, ref _pathB);
        int k = 0;
        while (k < lengthX && k < lengthY && _pathA[k] == _pathB[k])
        {
            k++;
        }

        if (k < lengthX && k < lengthY)
        {
            // The first differing frames decide unless one name starts the other.
            string a = _escaped[_pathA[k]];
            string b = _escaped[_pathB[k]];
            int common = a.AsSpan().CommonPrefixLength(b);
            if (common < a.Length && common < b.Length)
            {
                return a[common].CompareTo(b[common]);
            }
        }

        int tailX = Tail(ref _tailA, x, _pathA, lengthX, k);
        int tailY = Tail(ref _tailB, y, _pathB, lengthY, k);
        return _tailA.AsSpan(0, tailX).SequenceCompareTo(_tailB.AsSpan(0, tailY));
    }

    private bool HasLine(int node) => _tree.SelfWeightOf(node) != 0 || (_two && _tree.SelfBaselineWeightOf(node) != 0);

    /// <summary>Fills <paramref name="path"/> with the nodes from the outermost frame down to
    /// <paramref name="node"/>.</summary>
    /// <returns>The path's length (the node's depth).</returns>
    private int FillPath(int node, ref int[] path)
    {
        int depth = _tree.DepthOf(node);
        if (path.Length < depth)
        {
            path = new int[Math.Max(depth, path.Length * 2)];
        }

        for (int n = node, k = depth - 1; k >= 0; n = _tree.ParentOf(n), k--)
        {
            path[k] = n;
        }

        return depth;
    }

    /// <summary>Writes the line of <paramref name="node"/> from the separator before frame <paramref name="from"/>
    /// on: the text both lines share before it is left out.</summary>
    /// <returns>The number of characters written.</returns>
    private int Tail(ref char[] buffer, int node, int[] path, int length, int from)
    {
        int pos = 0;
        if (length == 0)
        {
            Put(ref buffer, ref pos, RootLine);
        }

        for (int j = from; j < length; j++)
        {
            if (j > 0)
            {
                Put(ref buffer, ref pos, ";");
            }

            Put(ref buffer, ref pos, _escaped[path[j]]);
        }

        Put(ref buffer, ref pos, " ");
        if (_two)
        {
            PutNumber(ref buffer, ref pos, _tree.SelfBaselineWeightOf(node));
            Put(ref buffer, ref pos, " ");
        }

        PutNumber(ref buffer, ref pos, _tree.SelfWeightOf(node));
        return pos;
    }

    private static void Put(ref char[] buffer, ref int pos, ReadOnlySpan<char> text)
    {
        if (buffer.Length - pos < text.Length)
        {
            Array.Resize(ref buffer, Math.Max(buffer.Length * 2, pos + text.Length));
        }

        text.CopyTo(buffer.AsSpan(pos));
        pos += text.Length;
    }

    private static void PutNumber(ref char[] buffer, ref int pos, long value)
    {
        Span<char> digits = stackalloc char[20];
        value.TryFormat(digits, out int written, default, CultureInfo.InvariantCulture);
        Put(ref buffer, ref pos, digits[..written]);
    }
}
