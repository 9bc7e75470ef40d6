-- summary: the running total of pages allocated (page_allocated adds number_pages, page_freed subtracts it) per capture, overall and per session, in (timestamp, event_sequence) order: one row per event
-- inputs: page_events (the sqlos.page_allocated and sqlos.page_freed tables; columns capture_file, file_offset, timestamp_utc, event_sequence, event_name, number_pages, session_id)
-- same figures as: xeanalyze memory --series FILE.csv, one capture at a time
-- views (DuckDB, over exports in out/<capture>/): the empty SELECT after UNION ALL BY NAME names every column the
-- query reads, so an export without some of its events (or of an action) still binds, with NULLs for what it lacks:
--   CREATE VIEW page_events AS
--   SELECT * FROM read_parquet('out/*/sqlos.page_*.parquet', union_by_name = true)
--   UNION ALL BY NAME
--   SELECT CAST(NULL AS VARCHAR) AS capture_file, CAST(NULL AS BIGINT) AS file_offset,
--          CAST(NULL AS TIMESTAMPTZ) AS timestamp_utc, CAST(NULL AS UBIGINT) AS event_sequence,
--          CAST(NULL AS VARCHAR) AS event_name, CAST(NULL AS UBIGINT) AS number_pages,
--          CAST(NULL AS USMALLINT) AS session_id
--   WHERE false;
--
-- Order: timestamp_utc, then event_sequence (events without it after those with it at the same time), then file order
-- (capture_file, file_offset). The export keeps whole microseconds, so events within one microsecond are ordered by
-- event_sequence. A negative page count counts as 0. session_pages is NULL for events without session_id.
WITH events AS (
    SELECT
        CASE
            WHEN regexp_extract(capture_file, '^(.*_[0-9]+)_[0-9]{1,20}[.][xX][eE][lL]$', 1) <> ''
            THEN regexp_extract(capture_file, '^(.*_[0-9]+)_[0-9]{1,20}[.][xX][eE][lL]$', 1)
            ELSE capture_file
        END AS capture,
        capture_file,
        file_offset,
        timestamp_utc,
        event_sequence,
        event_name,
        CAST(session_id AS BIGINT) AS session_id,
        CASE WHEN event_name = 'page_allocated' THEN 1 ELSE -1 END
            * CASE WHEN CAST(number_pages AS BIGINT) > 0 THEN CAST(number_pages AS BIGINT) ELSE 0 END AS delta_pages
    FROM page_events
    WHERE event_name IN ('page_allocated', 'page_freed') AND number_pages IS NOT NULL
)
SELECT
    capture,
    timestamp_utc,
    event_sequence,
    event_name,
    session_id,
    delta_pages,
    SUM(delta_pages) OVER (
        PARTITION BY capture
        ORDER BY timestamp_utc, event_sequence NULLS LAST, capture_file, file_offset
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS total_pages,
    CASE WHEN session_id IS NOT NULL THEN SUM(delta_pages) OVER (
        PARTITION BY capture, session_id
        ORDER BY timestamp_utc, event_sequence NULLS LAST, capture_file, file_offset
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) END AS session_pages
FROM events
ORDER BY capture, timestamp_utc, event_sequence NULLS LAST, capture_file, file_offset
