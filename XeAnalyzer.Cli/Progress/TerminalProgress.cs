using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace XeAnalyzer.Cli.Progress;

/// <summary>
/// The progress display of one <c>xeanalyze</c> run, the one place that decides whether progress shows and how: bars
/// for reading captures, resolving stacks, symbol downloads and <c>batch</c> (bytes or items done, rate, time left),
/// drawn by Spectre.Console on stderr. It shows only when stderr is a terminal (<see cref="Console.IsErrorRedirected"/>
/// false) that understands ANSI escapes, never with <c>--quiet</c>, never when the command writes to other writers than
/// the console (tests), and only once work has run for <see cref="DefaultDelay"/>
/// (<c>XEANALYZER_PROGRESS_DELAY_MS</c>), so short runs print nothing. It is redrawn at most five times a second. Any
/// text written to the terminal through <see cref="Output"/> or <see cref="Error"/> first clears the display (it comes
/// back, below that text, once nothing has been written for a fifth of a second and work is still running), so messages
/// never mix with it; disposing clears it for good. Standard output is never touched when it is redirected: its bytes
/// are the same with and without a terminal.
/// </summary>
internal sealed class TerminalProgress : IProgress<WorkProgress>, IDisposable
{
    /// <summary>The environment variable that sets <see cref="DefaultDelay"/> in milliseconds (0 shows progress at
    /// once).</summary>
    public const string DelayVariable = "XEANALYZER_PROGRESS_DELAY_MS";

    /// <summary>How long work runs before progress appears, unless <see cref="DelayVariable"/> says
    /// otherwise.</summary>
    public static readonly TimeSpan DefaultDelay = TimeSpan.FromMilliseconds(500);

    private const string QuietName = "--quiet";
    private const int BarWidth = 12;
    private const int MaxTitle = 32;
    private static readonly TimeSpan Tick = TimeSpan.FromMilliseconds(100);

    /// <summary>Time between two redraws: five a second (each costs a few milliseconds of CPU on a small
    /// machine).</summary>
    private static readonly TimeSpan RenderInterval = TimeSpan.FromMilliseconds(200);
    private static readonly long QuietAfterWrite = Stopwatch.Frequency / 5;
    private static readonly AsyncLocal<TerminalProgress?> s_current = new();

    private readonly IAnsiConsole _console;
    private readonly object _lock = new();
    private readonly Dictionary<(string Kind, string Item), Activity> _activities = [];
    private readonly SemaphoreSlim _screen = new(1, 1);
    private readonly ManualResetEventSlim _wake = new(false);
    private readonly Thread _thread;
    private readonly long _delayTicks;
    private readonly long _created = Stopwatch.GetTimestamp();
    private readonly TerminalProgress? _previous;
    private long _lastWrite;
    private int _waitingWriters;
    private volatile bool _stopping;
    private volatile bool _failed;
    private volatile bool _showing;

    private TerminalProgress(
        IAnsiConsole console,
        TextWriter output,
        TextWriter error,
        bool outputIsTerminal,
        TimeSpan delay
    )
    {
        _console = console;
        _delayTicks = (long)(delay.TotalSeconds * Stopwatch.Frequency);
        Error = new TerminalWriter(this, error);
        Output = outputIsTerminal ? new TerminalWriter(this, output) : output;
        _previous = s_current.Value;
        s_current.Value = this;
        _thread = new Thread(Loop) { IsBackground = true, Name = "xeanalyze-progress" };
        _thread.Start();
    }

    /// <summary>The display of the command running on this flow, or <see langword="null"/> when progress does not
    /// show.</summary>
    public static TerminalProgress? Current => s_current.Value;

    /// <summary>Standard output for the command: the writer given, or, when it is the same terminal, a writer that
    /// clears the display first.</summary>
    public TextWriter Output { get; }

    /// <summary>Standard error for the command: writes clear the display first.</summary>
    public TextWriter Error { get; }

    /// <summary>The <c>--quiet</c> option, given to every command (recursive on the root): no progress
    /// display.</summary>
    public static Option<bool> CreateQuietOption() =>
        new(QuietName, "-q")
        {
            Description =
                "No progress display on stderr (it shows only on a terminal anyway); warnings and errors are still "
                + "written.",
            Recursive = true,
        };

    /// <summary>Whether <c>--quiet</c> was given.</summary>
    public static bool IsQuiet(ParseResult parse)
    {
        ArgumentNullException.ThrowIfNull(parse);
        Option<bool>? quiet = parse
            .RootCommandResult.Command.Options.OfType<Option<bool>>()
            .FirstOrDefault(o => o.Name == QuietName);
        return quiet is not null && parse.GetValue(quiet);
    }

    /// <summary>
    /// Starts the display of a run when progress may show (stderr is the console and a terminal that understands ANSI
    /// escapes, no
    /// <c>--quiet</c>), else returns <see langword="null"/> and the command writes to <paramref name="output"/> and
    /// <paramref name="error"/> as they are.
    /// </summary>
    public static TerminalProgress? Start(ParseResult parse, TextWriter output, TextWriter error)
    {
        if (IsQuiet(parse) || !ReferenceEquals(error, Console.Error) || Console.IsErrorRedirected)
        {
            return null;
        }

        string? term = Environment.GetEnvironmentVariable("TERM");
        if (!OperatingSystem.IsWindows() && (string.IsNullOrEmpty(term) || term == "dumb"))
        {
            return null;
        }

        IAnsiConsole console;
        try
        {
            console = AnsiConsole.Create(
                new AnsiConsoleSettings
                {
                    Ansi = AnsiSupport.Detect,
                    ColorSystem = ColorSystemSupport.Detect,
                    Interactive = InteractionSupport.Yes,
                    Out = new StderrOutput(error),
                    Enrichment = new ProfileEnrichment { UseDefaultEnrichers = false },
                }
            );
        }
#pragma warning disable CA1031 // A console the library cannot set up means no progress display, never a failed command.
        catch (Exception)
#pragma warning restore CA1031
        {
            return null;
        }

        if (!console.Profile.Capabilities.Ansi)
        {
            return null;
        }

        bool outputIsTerminal = ReferenceEquals(output, Console.Out) && !Console.IsOutputRedirected;
        return new TerminalProgress(console, output, error, outputIsTerminal, Delay());
    }

    /// <inheritdoc/>
    public void Report(WorkProgress value)
    {
        string kind = value.Kind switch
        {
            WorkKind.Reading => "reading",
            WorkKind.Resolving => "resolving",
            _ => "downloading",
        };
        Update(
            kind,
            value.Item ?? string.Empty,
            value.Kind == WorkKind.Resolving ? Unit.Items : Unit.Bytes,
            value.Done,
            value.Total,
            value.Finished,
            null
        );
    }

    /// <summary>Batch progress: captures done of the total, and how many are running.</summary>
    public void ReportCaptures(int done, int total, int running, bool finished) =>
        Update(
            "batch",
            string.Empty,
            Unit.Captures,
            done,
            total,
            finished,
            running.ToString("N0", CultureInfo.InvariantCulture) + " running"
        );

    /// <summary>A stream that reports <see cref="WorkKind.Reading"/> progress of <paramref name="inner"/> (for inputs
    /// the CLI opens itself).</summary>
    public Stream Track(Stream inner, string item) => new ReadTrackingStream(inner, this, item);

    /// <summary>Clears the display for good and waits for it to be gone.</summary>
    public void Dispose()
    {
        if (_stopping)
        {
            return;
        }

        _stopping = true;
        _wake.Set();
        _thread.Join(TimeSpan.FromSeconds(5));
        s_current.Value = _previous;
    }

    private static TimeSpan Delay()
    {
        string? text = Environment.GetEnvironmentVariable(DelayVariable);
        return
            text is not null
            && int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int ms)
            && ms <= 600_000
            ? TimeSpan.FromMilliseconds(ms)
            : DefaultDelay;
    }

    private void Update(string kind, string item, Unit unit, long done, long total, bool finished, string? note)
    {
        bool added = false;
        lock (_lock)
        {
            if (finished)
            {
                _activities.Remove((kind, item));
                return;
            }

            if (!_activities.TryGetValue((kind, item), out Activity? a))
            {
                a = new Activity(kind, item, unit, Stopwatch.GetTimestamp(), done);
                _activities.Add((kind, item), a);
                added = true;
            }

            a.Done = done;
            a.Total = total;
            a.Note = note;
        }

        // Work that starts while nothing is drawn is looked at now rather than at the next tick, so with no delay a
        // short read still shows; while the display is up, new work waits for the next redraw (at most five a second).
        if (added && !_showing)
        {
            _wake.Set();
        }
    }

    private bool HasWork()
    {
        lock (_lock)
        {
            return _activities.Count > 0;
        }
    }

    /// <summary>Whether the display may be drawn now: work is running, nobody is writing, and nothing was written for a
    /// moment.</summary>
    private bool MayShow(long now) =>
        !_stopping
        && !_failed
        && now - _created >= _delayTicks
        && Volatile.Read(ref _waitingWriters) == 0
        && now - Volatile.Read(ref _lastWrite) >= QuietAfterWrite
        && HasWork();

    private void Loop()
    {
        while (!_stopping && !_failed)
        {
            _wake.Wait(Tick);
            _wake.Reset();
            if (!MayShow(Stopwatch.GetTimestamp()) || !_screen.Wait(0))
            {
                continue;
            }

            try
            {
                if (MayShow(Stopwatch.GetTimestamp()))
                {
                    Show();
                }
            }
            // The display must never fail the command (a closed terminal, a console the library rejects): it stops
            // instead.
#pragma warning disable CA1031
            catch (Exception)
#pragma warning restore CA1031
            {
                _failed = true;
            }
            finally
            {
                _screen.Release();
            }
        }
    }

    /// <summary>Draws the display until the work ends, a writer needs the terminal, or the run ends; then clears
    /// it.</summary>
    private void Show()
    {
        var progress = new Spectre.Console.Progress(_console)
        {
            // Redrawn by the loop below only (no refresh thread of its own): one redraw per interval, after the figures
            // are brought up to date.
            AutoClear = true,
            AutoRefresh = false,
            HideCompleted = false,
            RefreshRate = RenderInterval,
            ExcludeVerticalPadding = true,
        };
        progress.Columns(
            new TaskDescriptionColumn { Alignment = Justify.Left },
            new ProgressBarColumn { Width = BarWidth },
            new PercentageColumn(),
            new DetailColumn()
        );
        _showing = true;
        try
        {
            Draw(progress);
        }
        finally
        {
            _showing = false;
        }
    }

    private void Draw(Spectre.Console.Progress progress) =>
        progress.Start(ctx =>
        {
            var tasks = new Dictionary<Activity, ProgressTask>(ReferenceEqualityComparer.Instance);
            while (true)
            {
                Sync(ctx, tasks);
                ctx.Refresh();
                if (_stopping || Volatile.Read(ref _waitingWriters) > 0 || tasks.Count == 0)
                {
                    return;
                }

                _wake.Wait(RenderInterval);
                _wake.Reset();
            }
        });

    /// <summary>Brings the display's tasks in line with the activities (added, removed, values and texts).</summary>
    private void Sync(ProgressContext ctx, Dictionary<Activity, ProgressTask> tasks)
    {
        Activity[] current;
        lock (_lock)
        {
            current = [.. _activities.Values];
        }

        foreach (Activity gone in tasks.Keys.Where(a => !current.Contains(a)).ToList())
        {
            ctx.RemoveTask(tasks[gone]);
            tasks.Remove(gone);
        }

        // One row per activity, fitted to the terminal's width so a row never wraps: the titles' column, the bar, the
        // percentage, and what is left for the figures (the time left, then the rate, are dropped when they do not
        // fit).
        long now = Stopwatch.GetTimestamp();
        int titleWidth = current.Length == 0 ? 0 : current.Max(a => a.Title.Length);
        int detailWidth = Math.Max(0, _console.Profile.Width - 1 - titleWidth - BarWidth - 4 - 3);
        foreach (Activity a in current)
        {
            long done,
                total;
            string? note;
            lock (_lock)
            {
                done = a.Done;
                total = a.Total;
                note = a.Note;
            }

            if (!tasks.TryGetValue(a, out ProgressTask? task))
            {
                task = ctx.AddTask(Markup.Escape(a.Title), autoStart: true, maxValue: 1);
                tasks.Add(a, task);
            }

            bool known = total > 0;
            task.IsIndeterminate = !known;
            task.MaxValue = known ? total : 1;
            task.Value = known ? Math.Min(done, total) : 0;
            task.Tag = a.Detail(done, total, note, now, detailWidth);
        }
    }

    private void BeforeWrite()
    {
        Interlocked.Increment(ref _waitingWriters);
        _wake.Set();
        _screen.Wait();
        Interlocked.Decrement(ref _waitingWriters);
    }

    private void AfterWrite()
    {
        Volatile.Write(ref _lastWrite, Stopwatch.GetTimestamp());
        _screen.Release();
    }

    internal enum Unit
    {
        Bytes,
        Items,
        Captures,
    }

    /// <summary>One piece of work on display: what it is, how far it is, and since when it runs (for its rate and time
    /// left).</summary>
    internal sealed class Activity(string kind, string item, Unit unit, long started, long startDone)
    {
        public long Done { get; set; }

        public long Total { get; set; }

        public string? Note { get; set; }

        /// <summary>What and which: <c>reading latch_0_1336.xel</c> (a path is shown by its file or folder name), at
        /// most <see cref="MaxTitle"/> characters.</summary>
        public string Title { get; } = Shorten(item.Length == 0 ? kind : kind + " " + NameOf(item));

        /// <summary><c>12.3 MiB of 1.0 GiB, 45.6 MiB/s, 0:07 left</c> (items and captures as counts), shortened to
        /// <paramref name="width"/>.</summary>
        public string Detail(long done, long total, string? note, long now, int width)
        {
            string amount =
                Amount(done)
                + (total > 0 ? " of " + Amount(total) : string.Empty)
                + (unit == Unit.Captures ? " captures" : string.Empty)
                + (note is null ? string.Empty : ", " + note);
            double seconds = (now - started) / (double)Stopwatch.Frequency;
            double rate = seconds >= 0.25 ? (done - startDone) / seconds : 0;
            string speed =
                rate > 0
                    ? ", "
                        + (
                            unit == Unit.Bytes
                                ? Bytes(rate)
                                : rate.ToString(rate < 10 ? "N1" : "N0", CultureInfo.InvariantCulture)
                        )
                        + "/s"
                    : string.Empty;
            string left =
                rate > 0 && total > done
                    ? ", " + Duration(TimeSpan.FromSeconds(Math.Min((total - done) / rate, 359_999))) + " left"
                    : string.Empty;
            foreach (string text in new[] { amount + speed + left, amount + speed, amount })
            {
                if (text.Length <= width)
                {
                    return text;
                }
            }

            return width <= 1 ? string.Empty : amount[..(width - 1)] + "…";
        }

        private string Amount(long n) => unit == Unit.Bytes ? Bytes(n) : n.ToString("N0", CultureInfo.InvariantCulture);

        private static string Bytes(double n) =>
            n >= 1 << 30 ? (n / (1 << 30)).ToString("N1", CultureInfo.InvariantCulture) + " GiB"
            : n >= 1 << 20 ? (n / (1 << 20)).ToString("N1", CultureInfo.InvariantCulture) + " MiB"
            : n >= 1 << 10 ? (n / (1 << 10)).ToString("N1", CultureInfo.InvariantCulture) + " KiB"
            : n.ToString("N0", CultureInfo.InvariantCulture) + " B";

        private static string Duration(TimeSpan t) =>
            t.TotalHours >= 1
                ? string.Create(CultureInfo.InvariantCulture, $"{(int)t.TotalHours}:{t.Minutes:00}:{t.Seconds:00}")
                : string.Create(CultureInfo.InvariantCulture, $"{t.Minutes}:{t.Seconds:00}");

        private static string NameOf(string item)
        {
            string name = Path.GetFileName(item.TrimEnd('/', '\\'));
            return name.Length > 0 ? name : item;
        }

        private static string Shorten(string s) => s.Length <= MaxTitle ? s : s[..(MaxTitle - 1)] + "…";
    }

    /// <summary>The rate and time-left column: the text <see cref="Sync"/> put in the task's tag.</summary>
    private sealed class DetailColumn : ProgressColumn
    {
        public override IRenderable Render(RenderOptions options, ProgressTask task, TimeSpan deltaTime) =>
            new Text(task.Tag as string ?? string.Empty);
    }

    /// <summary>
    /// The real stderr for Spectre.Console, as a terminal of the console's width; it never changes the console's
    /// encoding (which would replace <see cref="Console.Out"/>).
    /// </summary>
    private sealed class StderrOutput(TextWriter writer) : IAnsiConsoleOutput
    {
        public TextWriter Writer => writer;

        public bool IsTerminal => true;

        public int Width => Size(() => Console.WindowWidth, 80);

        public int Height => Size(() => Console.WindowHeight, 24);

        public void SetEncoding(Encoding encoding) { }

        private static int Size(Func<int> get, int fallback)
        {
            try
            {
                int n = get();
                return n > 0 ? n : fallback;
            }
            catch (Exception ex) when (ex is IOException or PlatformNotSupportedException or InvalidOperationException)
            {
                return fallback;
            }
        }
    }

    /// <summary>A writer to the terminal that clears the display before it writes (the text passes
    /// unchanged).</summary>
    private sealed class TerminalWriter(TerminalProgress owner, TextWriter inner)
        : TextWriter(CultureInfo.InvariantCulture)
    {
        public override Encoding Encoding => inner.Encoding;

        [System.Diagnostics.CodeAnalysis.AllowNull]
        public override string NewLine
        {
            get => inner.NewLine;
            set => inner.NewLine = value;
        }

        public override void Write(char value) => Around(() => inner.Write(value));

        public override void Write(string? value) => Around(() => inner.Write(value));

        public override void Write(char[] buffer, int index, int count) =>
            Around(() => inner.Write(buffer, index, count));

        public override void Write(ReadOnlySpan<char> buffer)
        {
            string text = buffer.ToString();
            Around(() => inner.Write(text));
        }

        public override void WriteLine() => Around(inner.WriteLine);

        public override void WriteLine(string? value) => Around(() => inner.WriteLine(value));

        public override void WriteLine(ReadOnlySpan<char> buffer)
        {
            string text = buffer.ToString();
            Around(() => inner.WriteLine(text));
        }

        public override void Flush() => inner.Flush();

        private void Around(Action write)
        {
            owner.BeforeWrite();
            try
            {
                write();
            }
            finally
            {
                owner.AfterWrite();
            }
        }
    }

    /// <summary>Reports the position of a stream the CLI reads itself (the <c>resolve</c> input) as
    /// <see cref="WorkKind.Reading"/>.</summary>
    private sealed class ReadTrackingStream(Stream inner, TerminalProgress owner, string item) : Stream
    {
        private readonly long _length = inner.CanSeek ? inner.Length : -1;
        private long _position;
        private long _reported = -1;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => _position;
            set => throw new NotSupportedException();
        }

        public override int Read(byte[] buffer, int offset, int count) => Count(inner.Read(buffer, offset, count));

        public override int Read(Span<byte> buffer) => Count(inner.Read(buffer));

        public override void Flush() { }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                owner.Report(new WorkProgress(WorkKind.Reading, item, _position, _length, true));
                inner.Dispose();
            }

            base.Dispose(disposing);
        }

        private int Count(int n)
        {
            _position += n;
            if (_position - _reported >= 1 << 20 || (n == 0 && _position != _reported))
            {
                _reported = _position;
                owner.Report(new WorkProgress(WorkKind.Reading, item, _position, _length, false));
            }

            return n;
        }
    }
}
