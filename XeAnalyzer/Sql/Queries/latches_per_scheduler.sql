-- summary: latch_acquired per sqlos.scheduler_id and capture, with each scheduler's deviation from the mean of its peers, from the mean of all schedulers and from their median (outliers at 5 % from the median)
-- inputs: latch_acquired (the sqlserver.latch_acquired tables of one or more exports; columns capture_file, scheduler_id)
-- same figures as: xeanalyze latches (per scheduler table), one capture at a time
-- views (DuckDB, over exports in out/<capture>/): the empty SELECT after UNION ALL BY NAME names every column the
-- query reads, so an export without some of its events (or of an action) still binds, with NULLs for what it lacks:
--   CREATE VIEW latch_acquired AS
--   SELECT * FROM read_parquet('out/*/sqlserver.latch_acquired.parquet', union_by_name = true)
--   UNION ALL BY NAME
--   SELECT CAST(NULL AS VARCHAR) AS capture_file, CAST(NULL AS UINTEGER) AS scheduler_id
--   WHERE false;
--
-- A capture is a rollover set (capture_file without _<FILETIME>.xel) or a single file: schedulers of different captures
-- are different servers or process lifetimes, so every comparison stays within its capture. Events without
-- scheduler_id are left out. Deviations are fractions (-0.1 = 10 % fewer), NULL where the reference is 0 or there is no peer.
WITH events AS (
    SELECT
        CASE
            WHEN regexp_extract(capture_file, '^(.*_[0-9]+)_[0-9]{1,20}[.][xX][eE][lL]$', 1) <> ''
            THEN regexp_extract(capture_file, '^(.*_[0-9]+)_[0-9]{1,20}[.][xX][eE][lL]$', 1)
            ELSE capture_file
        END AS capture,
        CAST(scheduler_id AS BIGINT) AS scheduler_id
    FROM latch_acquired
    WHERE scheduler_id IS NOT NULL
),
per_scheduler AS (
    SELECT capture, scheduler_id, COUNT(*) AS acquires
    FROM events
    GROUP BY capture, scheduler_id
),
ranked AS (
    SELECT
        capture,
        scheduler_id,
        acquires,
        SUM(acquires) OVER (PARTITION BY capture) AS total,
        COUNT(*) OVER (PARTITION BY capture) AS schedulers,
        ROW_NUMBER() OVER (PARTITION BY capture ORDER BY acquires, scheduler_id) AS position
    FROM per_scheduler
),
medians AS (
    -- The middle count (odd number of schedulers) or the mean of the two middle counts (even).
    SELECT capture, AVG(CAST(acquires AS DOUBLE)) AS median_acquires
    FROM ranked
    WHERE position * 2 IN (schedulers, schedulers + 1, schedulers + 2)
    GROUP BY capture
),
compared AS (
    SELECT
        r.capture,
        r.scheduler_id,
        r.acquires,
        r.total,
        r.schedulers,
        CAST(r.total AS DOUBLE) / r.schedulers AS mean_acquires,
        CASE WHEN r.schedulers > 1 THEN CAST(r.total - r.acquires AS DOUBLE) / (r.schedulers - 1) END AS peer_mean_acquires,
        m.median_acquires
    FROM ranked r
    JOIN medians m ON m.capture = r.capture
)
SELECT
    capture,
    scheduler_id,
    acquires,
    CAST(acquires AS DOUBLE) / total AS share,
    peer_mean_acquires,
    CASE WHEN peer_mean_acquires > 0 THEN (acquires - peer_mean_acquires) / peer_mean_acquires END AS deviation_from_peer_mean,
    mean_acquires,
    CASE WHEN mean_acquires > 0 THEN (acquires - mean_acquires) / mean_acquires END AS deviation_from_mean,
    median_acquires,
    CASE WHEN median_acquires > 0 THEN (acquires - median_acquires) / median_acquires END AS deviation_from_median,
    CASE
        WHEN schedulers >= 2 AND median_acquires > 0 AND ABS(acquires - median_acquires) >= 0.05 * median_acquires THEN TRUE
        ELSE FALSE
    END AS is_outlier
FROM compared
ORDER BY capture, scheduler_id
