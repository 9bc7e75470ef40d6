using System.Text.Json;
using XeAnalyzer.IO;
using XeAnalyzer.Output;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The machine-readable log of a batch (<c>batch --log FILE</c>): one JSON object per line, flushed per line, with the
/// JSON conventions of every output (<see cref="JsonOutput"/>): <c>batch-start</c> (captures, jobs, output),
/// <c>start</c>, <c>finish</c> or <c>fail</c> per capture (capture, folder, index; status, elapsedMs, events and reason
/// when it ended) and <c>batch-finish</c> (elapsedMs, counts by status, pdbsLoaded). Each line carries the UTC time it
/// was written: the log is about the run, so unlike the batch's files it is not deterministic. Thread-safe.
/// </summary>
internal sealed class BatchLog : IDisposable
{
    private readonly FileStream _stream;
    private readonly Lock _gate = new();

    /// <summary>Creates (or replaces) the log file.</summary>
    /// <param name="path">The file.</param>
    public BatchLog(string path)
    {
        _stream = OutputFile.Create(path);
    }

    /// <summary>Logs the start of the batch.</summary>
    /// <param name="captures">The captures found.</param>
    /// <param name="jobs">The captures processed at once.</param>
    /// <param name="output">The output folder.</param>
    public void BatchStarted(int captures, int jobs, string output) =>
        Write(
            "batch-start",
            w =>
            {
                w.WriteNumber("captures", captures);
                w.WriteNumber("jobs", jobs);
                w.WriteSafeString("output", output);
            }
        );

    /// <summary>Logs a capture starting, finishing or failing.</summary>
    /// <param name="e">The event.</param>
    public void Capture(BatchEvent e)
    {
        ArgumentNullException.ThrowIfNull(e);
        Write(
            e.Kind switch
            {
                BatchEventKind.Start => "start",
                BatchEventKind.Finish => "finish",
                _ => "fail",
            },
            w =>
            {
                w.WriteSafeString("capture", e.Capture.Name);
                w.WriteSafeString("folder", e.Capture.Folder);
                w.WriteNumber("index", e.Index);
                if (e.Kind != BatchEventKind.Start)
                {
                    w.WriteString("status", BatchOutput.StatusName(e.Status!.Value));
                    w.WriteNumber("elapsedMs", Math.Round(e.Elapsed.TotalMilliseconds, 1));
                    w.WriteNumber("events", e.Events);
                    if (e.Reason is not null)
                    {
                        w.WriteSafeString("reason", e.Reason);
                    }
                }
            }
        );
    }

    /// <summary>Logs the end of the batch.</summary>
    /// <param name="result">The batch result.</param>
    /// <param name="pdbsLoaded">The PDBs the shared resolver loaded.</param>
    public void BatchFinished(BatchResult result, int pdbsLoaded)
    {
        ArgumentNullException.ThrowIfNull(result);
        Write(
            "batch-finish",
            w =>
            {
                w.WriteNumber("elapsedMs", Math.Round(result.Elapsed.TotalMilliseconds, 1));
                foreach (BatchStatus s in Enum.GetValues<BatchStatus>())
                {
                    w.WriteNumber(BatchOutput.StatusName(s), result.Count(s));
                }

                w.WriteNumber("pdbsLoaded", pdbsLoaded);
                BatchItemResult[] misses = [.. result.Items.Where(i => i.FilterMisses.Count > 0)];
                if (misses.Length > 0)
                {
                    // Captures the filter matched nothing in, so a name only some captures have is visible.
                    w.WriteStartArray("noMatch");
                    foreach (BatchItemResult i in misses)
                    {
                        w.WriteStartObject();
                        w.WriteSafeString("capture", i.Capture.Name);
                        w.WriteSafeString("reason", string.Join(" ", i.FilterMisses));
                        w.WriteEndObject();
                    }

                    w.WriteEndArray();
                }
            }
        );
    }

    /// <inheritdoc/>
    public void Dispose() => _stream.Dispose();

    private void Write(string kind, Action<Utf8JsonWriter> body)
    {
        lock (_gate)
        {
            using (var w = new Utf8JsonWriter(_stream, JsonOutput.Options(indented: false)))
            {
                w.WriteStartObject();
                w.WriteString("event", kind);
                w.WriteTimestamp("utc", DateTime.UtcNow);
                body(w);
                w.WriteEndObject();
            }

            _stream.Write("\n"u8);
            _stream.Flush();
        }
    }
}
