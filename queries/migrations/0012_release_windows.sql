-- Migration 0012: the history of measured release windows (docs/release.md, "Stored windows").
-- One release_windows row per recorded release_metrics/1 artifact: its incident window, stage,
-- gate decision and provenance; one release_window_metrics row per gate metric of it. Recording
-- is idempotent per (window, stage, artifact checksum): recording the same artifact again
-- changes nothing, a re-measurement of a window (another checksum) is kept beside the earlier
-- one and the trend reads the latest (queries/charts/release_trend.sql).

CREATE TABLE IF NOT EXISTS release_windows (
    window_start          TIMESTAMPTZ NOT NULL,
    window_end            TIMESTAMPTZ NOT NULL,   -- exclusive
    window_spec           VARCHAR,                -- as given to --window
    stage                 VARCHAR NOT NULL,       -- the measured stage, 'all' for every stage
    artifact_sha256       VARCHAR NOT NULL,       -- provenance.output.sha256 of the artifact
    synthetic             BOOLEAN NOT NULL,       -- a release_gate.synthetic.* artifact
    gate_passed           BOOLEAN NOT NULL,       -- every metric meets its threshold (point)
    gate_passed_strict    BOOLEAN NOT NULL,       -- ... with rates' Wilson bounds (--strict)
    failed                VARCHAR[] NOT NULL,     -- metrics failing the point-estimate gate
    failed_strict         VARCHAR[] NOT NULL,     -- metrics failing the strict gate
    captures_in_window    BIGINT,
    captures_invalid      BIGINT,
    reviews               BIGINT,
    package_version       VARCHAR,
    git_revision          VARCHAR,
    metric_queries_sha256 VARCHAR,                -- measurement job revision
    artifact_path         VARCHAR,                -- where it was recorded from
    computed_at           TIMESTAMPTZ NOT NULL,   -- provenance.computed_at
    recorded_at           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (window_start, window_end, stage, artifact_sha256)
);

CREATE TABLE IF NOT EXISTS release_window_metrics (
    window_start    TIMESTAMPTZ NOT NULL,
    window_end      TIMESTAMPTZ NOT NULL,
    stage           VARCHAR NOT NULL,
    artifact_sha256 VARCHAR NOT NULL,
    metric          VARCHAR NOT NULL,   -- a gate metric (rcaeval.release.GATE_METRICS)
    kind            VARCHAR,            -- rate | count | value | bool
    value           DOUBLE,             -- NULL when not measured; bool as 1.0 / 0.0
    numerator       DOUBLE,
    denominator     DOUBLE,
    sample_size     BIGINT,
    ci_low          DOUBLE,             -- Wilson interval (rates only)
    ci_high         DOUBLE,
    threshold       VARCHAR NOT NULL,   -- as printed by the gate, e.g. '>= 0.95'
    threshold_op    VARCHAR NOT NULL,   -- >= | <= | < | ==
    threshold_value DOUBLE NOT NULL,    -- the limit (true = 1.0)
    passed          BOOLEAN NOT NULL,   -- point estimate meets the threshold
    passed_strict   BOOLEAN NOT NULL,   -- ... and, for a rate, its interval bound too
    PRIMARY KEY (window_start, window_end, stage, artifact_sha256, metric)
);
