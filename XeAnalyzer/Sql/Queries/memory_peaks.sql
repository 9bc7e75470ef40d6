-- summary: per capture, overall and per session: page_allocated and page_freed events and pages, the final running total, its peak and the time the peak is first reached (running total in (timestamp, event_sequence) order, as memory_running_total)
-- inputs: page_events (the sqlos.page_allocated and sqlos.page_freed tables; columns capture_file, file_offset, timestamp_utc, event_sequence, event_name, number_pages, session_id)
-- same figures as: xeanalyze memory (summary and per session table), one capture at a time
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
-- scope 'all' is the whole capture (session_id NULL), scope 'session' one session. Sessions are ordered by peak, highest
-- first. Bytes are pages x 8192.
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
        CAST(session_id AS BIGINT) AS session_id,
        CASE WHEN event_name = 'page_allocated' THEN 1 ELSE 0 END AS is_allocation,
        CASE WHEN CAST(number_pages AS BIGINT) > 0 THEN CAST(number_pages AS BIGINT) ELSE 0 END AS pages
    FROM page_events
    WHERE event_name IN ('page_allocated', 'page_freed') AND number_pages IS NOT NULL
),
steps AS (
    -- Every event twice: once for the whole capture (scope all), once for its session (when it has one).
    SELECT capture, 'all' AS scope, CAST(NULL AS BIGINT) AS session_id, capture_file, file_offset, timestamp_utc, event_sequence, is_allocation, pages
    FROM events
    UNION ALL
    SELECT capture, 'session' AS scope, session_id, capture_file, file_offset, timestamp_utc, event_sequence, is_allocation, pages
    FROM events
    WHERE session_id IS NOT NULL
),
running AS (
    SELECT
        capture,
        scope,
        session_id,
        timestamp_utc,
        is_allocation,
        pages,
        SUM(CASE WHEN is_allocation = 1 THEN pages ELSE -pages END) OVER (
            PARTITION BY capture, scope, session_id
            ORDER BY timestamp_utc, event_sequence NULLS LAST, capture_file, file_offset
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS total_pages,
        ROW_NUMBER() OVER (
            PARTITION BY capture, scope, session_id
            ORDER BY timestamp_utc, event_sequence NULLS LAST, capture_file, file_offset) AS step
    FROM steps
),
peaks AS (
    SELECT
        capture,
        scope,
        session_id,
        timestamp_utc,
        total_pages,
        ROW_NUMBER() OVER (PARTITION BY capture, scope, session_id ORDER BY total_pages DESC, step) AS peak_rank
    FROM running
),
totals AS (
    SELECT
        capture,
        scope,
        session_id,
        SUM(is_allocation) AS allocation_events,
        SUM(1 - is_allocation) AS free_events,
        SUM(CASE WHEN is_allocation = 1 THEN pages ELSE 0 END) AS pages_allocated,
        SUM(CASE WHEN is_allocation = 0 THEN pages ELSE 0 END) AS pages_freed
    FROM running
    GROUP BY capture, scope, session_id
)
SELECT
    t.capture,
    t.scope,
    t.session_id,
    CAST(t.allocation_events AS BIGINT) AS allocation_events,
    CAST(t.free_events AS BIGINT) AS free_events,
    CAST(t.pages_allocated AS BIGINT) AS pages_allocated,
    CAST(t.pages_freed AS BIGINT) AS pages_freed,
    CAST(t.pages_allocated - t.pages_freed AS BIGINT) AS final_pages,
    CAST(p.total_pages AS BIGINT) AS peak_pages,
    CAST(p.total_pages AS BIGINT) * 8192 AS peak_bytes,
    p.timestamp_utc AS peak_time
FROM totals t
JOIN peaks p
    ON p.capture = t.capture AND p.scope = t.scope
    AND (p.session_id = t.session_id OR (p.session_id IS NULL AND t.session_id IS NULL))
    AND p.peak_rank = 1
ORDER BY t.capture, CASE WHEN t.scope = 'all' THEN 0 ELSE 1 END, p.total_pages DESC, t.session_id
