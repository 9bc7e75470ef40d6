-- summary: waits per wait type: completed waits (End events of wait_info and wait_info_external, and wait_completed events), Begin events, total, mean and maximum duration, total signal_duration (ms) and each type's share of the total duration
-- inputs: wait_events (the sqlos.wait_info, sqlos.wait_info_external and sqlos.wait_completed tables; columns event_name, wait_type, opcode, duration, signal_duration)
-- same figures as: xeanalyze waits (per wait type table), over everything the view holds
-- views (DuckDB, over exports in out/<capture>/): the empty SELECT after UNION ALL BY NAME names every column the
-- query reads, so an export without some of its events (or of an action) still binds, with NULLs for what it lacks:
--   CREATE VIEW wait_events AS
--   SELECT * FROM read_parquet('out/*/sqlos.wait_*.parquet', union_by_name = true)
--   UNION ALL BY NAME
--   SELECT CAST(NULL AS VARCHAR) AS event_name, CAST(NULL AS VARCHAR) AS wait_type, CAST(NULL AS VARCHAR) AS opcode,
--          CAST(NULL AS UBIGINT) AS duration, CAST(NULL AS UBIGINT) AS signal_duration
--   WHERE false;
--
-- Only End events carry durations; an event counts as a Begin when its opcode text is Begin (any letter case).
-- total_signal_duration_ms adds the waits whose event has signal_duration (wait_info_external has none on real builds):
-- NULL when none of a type's waits has it.
-- wait_completed events have no opcode: each is a completed wait. Add up one capture by filtering the view on
-- capture_file; a view over many captures gives their sum. Ordered by total duration, then waits, then wait type.
WITH events AS (
    SELECT
        wait_type,
        CASE WHEN event_name <> 'wait_completed' AND UPPER(opcode) = 'BEGIN' THEN 1 ELSE 0 END AS is_begin,
        COALESCE(CAST(duration AS BIGINT), 0) AS duration_ms,
        CAST(signal_duration AS BIGINT) AS signal_duration_ms
    FROM wait_events
    WHERE event_name IN ('wait_info', 'wait_info_external', 'wait_completed') AND wait_type IS NOT NULL
),
per_type AS (
    SELECT
        wait_type,
        CAST(SUM(1 - is_begin) AS BIGINT) AS waits,
        CAST(SUM(is_begin) AS BIGINT) AS begins,
        CAST(SUM(CASE WHEN is_begin = 0 THEN duration_ms ELSE 0 END) AS BIGINT) AS total_duration_ms,
        CAST(MAX(CASE WHEN is_begin = 0 THEN duration_ms ELSE 0 END) AS BIGINT) AS max_duration_ms,
        CAST(SUM(CASE WHEN is_begin = 0 THEN signal_duration_ms END) AS BIGINT) AS total_signal_duration_ms
    FROM events
    GROUP BY wait_type
)
SELECT
    wait_type,
    waits,
    begins,
    total_duration_ms,
    CASE WHEN waits > 0 THEN CAST(total_duration_ms AS DOUBLE) / waits ELSE 0 END AS mean_duration_ms,
    max_duration_ms,
    total_signal_duration_ms,
    CASE WHEN SUM(total_duration_ms) OVER () > 0
        THEN CAST(total_duration_ms AS DOUBLE) / SUM(total_duration_ms) OVER () ELSE 0 END AS share_of_duration
FROM per_type
ORDER BY total_duration_ms DESC, waits DESC, wait_type
