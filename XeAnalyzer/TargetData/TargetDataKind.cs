namespace XeAnalyzer.TargetData;

/// <summary>The kind of an Extended Events target-data root element.</summary>
public enum TargetDataKind
{
    /// <summary><c>HistogramTarget</c> (SQL 2012+), <c>BucketizerTarget</c> (2008/R2) or <c>Slots</c> (2014
    /// documentation): slots with a count and a value.</summary>
    Histogram,

    /// <summary><c>RingBufferTarget</c>: events.</summary>
    RingBuffer,

    /// <summary><c>CounterTarget</c> (event_counter): a count per package and event.</summary>
    EventCounter,

    /// <summary><c>unpaired</c> (pair_matching): the events that found no partner.</summary>
    PairMatching,

    /// <summary><c>EventFileTarget</c>: buffer counts and the current file name.</summary>
    EventFile,

    /// <summary>A bare <c>&lt;event&gt;</c> element, as in the <c>event_data</c> column of
    /// <c>sys.fn_xe_file_target_read_file</c>.</summary>
    Event,

    /// <summary>An <c>&lt;Events&gt;</c> list of events (the shape SQLCallStackResolver's XEL import
    /// produces).</summary>
    EventList,
}
