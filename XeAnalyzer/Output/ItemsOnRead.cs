namespace XeAnalyzer.Output;

/// <summary>
/// A read-only list whose items are made when read, from their position: a block of very many rows or stacks costs
/// memory only for the item a writer is at. Each read makes the item again.
/// </summary>
/// <typeparam name="T">The item type.</typeparam>
internal sealed class ItemsOnRead<T>(int count, Func<int, T> make) : IReadOnlyList<T>
{
    public int Count => count;

    public T this[int index] =>
        (uint)index < (uint)count ? make(index) : throw new ArgumentOutOfRangeException(nameof(index));

    public IEnumerator<T> GetEnumerator()
    {
        for (int i = 0; i < count; i++)
        {
            yield return make(i);
        }
    }

    System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
}
