-- summary: stack buckets: events per event and resolved callstack (the callstack_frames column of export --resolve), with their share, first and last time and the number of captures they occur in
-- inputs: stack_events (tables exported with --resolve, for example sqlserver.latch_acquired; columns capture_file, package, event_name, timestamp_utc, callstack_frames)
-- same figures as: xeanalyze stacks (buckets grouped by event; frames rendered as export --resolve rendered them), over everything the view holds
-- views (DuckDB, over exports in out/<capture>/): the empty SELECT after UNION ALL BY NAME names every column the
-- query reads, so an export without some of its events (or of an action) still binds, with NULLs for what it lacks:
--   CREATE VIEW stack_events AS
--   SELECT * FROM read_parquet('out/*/sqlserver.latch_acquired.parquet', union_by_name = true)
--   UNION ALL BY NAME
--   SELECT CAST(NULL AS VARCHAR) AS capture_file, CAST(NULL AS VARCHAR) AS package,
--          CAST(NULL AS VARCHAR) AS event_name, CAST(NULL AS TIMESTAMPTZ) AS timestamp_utc,
--          CAST(NULL AS VARCHAR[]) AS callstack_frames
--   WHERE false;
--
-- Identical resolved stacks merge even when their raw addresses differ (other process lifetimes, other captures).
-- Frames are leaf first; a frame that could not be resolved is its raw address (0x + 16 hex digits). Events without a
-- callstack are left out. event is package.event_name. Ordered by events, most first; ties by event and frames.
WITH stacks AS (
    SELECT
        CASE
            WHEN regexp_extract(capture_file, '^(.*_[0-9]+)_[0-9]{1,20}[.][xX][eE][lL]$', 1) <> ''
            THEN regexp_extract(capture_file, '^(.*_[0-9]+)_[0-9]{1,20}[.][xX][eE][lL]$', 1)
            ELSE capture_file
        END AS capture,
        CONCAT(package, '.', event_name) AS event,
        timestamp_utc,
        callstack_frames AS frames
    FROM stack_events
    WHERE callstack_frames IS NOT NULL
),
buckets AS (
    SELECT
        event,
        frames,
        COUNT(*) AS events,
        COUNT(DISTINCT capture) AS captures,
        MIN(timestamp_utc) AS first_seen,
        MAX(timestamp_utc) AS last_seen
    FROM stacks
    GROUP BY event, frames
)
SELECT
    ROW_NUMBER() OVER (ORDER BY events DESC, event, frames) AS bucket,
    event,
    events,
    CAST(events AS DOUBLE) / SUM(events) OVER () AS share,
    captures,
    first_seen,
    last_seen,
    frames
FROM buckets
ORDER BY events DESC, event, frames
