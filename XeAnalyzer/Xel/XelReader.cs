using XeAnalyzer.Events;
using XeAnalyzer.IO;

namespace XeAnalyzer.Xel;

/// <summary>
/// Reads <c>.xel</c> captures natively (no XELite, no SqlClient): a single file, a rollover set, or any list of files,
/// each with its own metadata. Events stream lazily; peak memory does not grow with file size (one array per buffer,
/// released when its events are no longer referenced). Files are opened with <see cref="FileShare.ReadWrite"/>, so
/// captures SQL Server is still writing can be read; an incomplete final buffer yields every complete event before it
/// plus a warning.
/// </summary>
internal static class XelReader
{
    /// <summary>Reads the events of one file.</summary>
    /// <param name="path">The <c>.xel</c> file.</param>
    /// <param name="options">Options; <see cref="XelReadOptions.Default"/> when <see langword="null"/>.</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The events, in file order (not necessarily time order).</returns>
    /// <exception cref="InvalidXelDataException">The file is malformed (in strict mode, any damage; otherwise
    /// file-level damage).</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static IEnumerable<XEvent> ReadEvents(
        string path,
        XelReadOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(path);
        return ReadFiles([path], options ?? XelReadOptions.Default, cancellationToken);
    }

    /// <summary>Reads the events of a capture set (its files in rollover order).</summary>
    /// <param name="set">The set.</param>
    /// <param name="options">Options; <see cref="XelReadOptions.Default"/> when <see langword="null"/>.</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The events of each file in turn.</returns>
    /// <exception cref="InvalidXelDataException">A file is malformed.</exception>
    /// <exception cref="IOException">A file cannot be read.</exception>
    public static IEnumerable<XEvent> ReadEvents(
        CaptureSet set,
        XelReadOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(set);
        return ReadFiles(set.Files, options ?? XelReadOptions.Default, cancellationToken);
    }

    /// <summary>Reads the events of several files in the given order.</summary>
    /// <param name="paths">The files.</param>
    /// <param name="options">Options; <see cref="XelReadOptions.Default"/> when <see langword="null"/>.</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The events of each file in turn.</returns>
    /// <exception cref="InvalidXelDataException">A file is malformed.</exception>
    /// <exception cref="IOException">A file cannot be read.</exception>
    public static IEnumerable<XEvent> ReadEvents(
        IEnumerable<string> paths,
        XelReadOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(paths);
        return ReadFiles(paths, options ?? XelReadOptions.Default, cancellationToken);
    }

    /// <summary>Reads the events of an already opened source (a file, or bytes in memory). The source is not
    /// disposed.</summary>
    /// <param name="source">The bytes; <see cref="IRandomAccessSource.Name"/> names it in messages and event
    /// locations.</param>
    /// <param name="options">Options; <see cref="XelReadOptions.Default"/> when <see langword="null"/>.</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The events.</returns>
    /// <exception cref="InvalidXelDataException">The data is malformed.</exception>
    public static IEnumerable<XEvent> ReadEvents(
        IRandomAccessSource source,
        XelReadOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(source);
        return new XelFileReader(source, options ?? XelReadOptions.Default).Read(false, cancellationToken);
    }

    /// <summary>Reads only the metadata of a file (event buffers are skipped unread).</summary>
    /// <param name="path">The <c>.xel</c> file.</param>
    /// <param name="options">Options (integrity, limits, diagnostics).</param>
    /// <param name="cancellationToken">Checked between buffers.</param>
    /// <returns>The file's schema.</returns>
    /// <exception cref="InvalidXelDataException">The file is malformed.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static XeSchema ReadSchema(
        string path,
        XelReadOptions? options = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(path);
        using var src = new FileRandomAccessSource(path, sequential: true);
        var reader = new XelFileReader(src, options ?? XelReadOptions.Default);
        foreach (XEvent unused in reader.Read(true, cancellationToken))
        {
            _ = unused;
        }

        return reader.Schema;
    }

    /// <summary>Reads a file's metadata (not its events): the schema and the earliest package start time (no event is
    /// earlier).</summary>
    internal static (XeSchema Schema, DateTime? EarliestStart) ReadMetadata(
        string path,
        XelReadOptions options,
        CancellationToken cancellationToken
    )
    {
        using var src = new FileRandomAccessSource(path, sequential: true);
        var reader = new XelFileReader(src, options);
        foreach (XEvent unused in reader.Read(true, cancellationToken))
        {
            _ = unused;
        }

        return (reader.Schema, reader.EarliestPackageStart);
    }

    private static IEnumerable<XEvent> ReadFiles(
        IEnumerable<string> paths,
        XelReadOptions options,
        CancellationToken cancellationToken
    ) => OverFiles(paths, options, pooled: false, reader => reader.Read(false, cancellationToken));

    /// <summary>
    /// Reads the event buffers of several files in the given order, decoded ahead on
    /// <see cref="XelReadOptions.DecodeThreads"/> threads and delivered in file order. With <paramref name="pooled"/>,
    /// a buffer is reused once the caller asks for the next one, so the caller must be done with its records (and
    /// anything pointing into its data) by then.
    /// </summary>
    internal static IEnumerable<XelEventBuffer> ReadBuffers(
        IEnumerable<string> paths,
        XelReadOptions options,
        bool pooled,
        CancellationToken cancellationToken
    ) => OverFiles(paths, options, pooled, reader => reader.ReadBuffers(false, cancellationToken));

    /// <summary>Reads several files in order through one buffer pipeline (one set of decode threads for the whole
    /// read), closed when the enumeration ends.</summary>
    private static IEnumerable<T> OverFiles<T>(
        IEnumerable<string> paths,
        XelReadOptions options,
        bool pooled,
        Func<XelFileReader, IEnumerable<T>> read
    )
    {
        var pipeline = new XelBufferPipeline(options.DecodeThreads, pooled);
        try
        {
            foreach (string path in paths)
            {
                using var src = new FileRandomAccessSource(path, sequential: true);
                foreach (T item in read(new XelFileReader(src, options, pipeline)))
                {
                    yield return item;
                }
            }
        }
        finally
        {
            pipeline.Close();
        }
    }
}
