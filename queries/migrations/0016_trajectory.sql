-- Migration 0016: trajectory and efficiency per judged case run (docs/results.md,
-- "Trajectory and efficiency"). Derived by the judge from the audit (the tool-call lines of
-- .opencode/telemetry.log, the evidence a critical-evidence check cited, manifest.json's
-- duration and usage) in queries/judge/trajectory.sql, so rejudging rebuilds them.
-- rule_budget holds a case's optional judge.yaml `efficiency:` budgets.

CREATE TABLE IF NOT EXISTS rule_budget (
    case_id      VARCHAR NOT NULL,
    rules_hash   VARCHAR NOT NULL,
    max_steps    INTEGER,             -- tool calls
    max_tokens   BIGINT,              -- input + output tokens
    max_seconds  DOUBLE,              -- the case run's wall time (manifest duration_s)
    enforce      BOOLEAN NOT NULL,    -- over budget turns a pass into fail (over_budget)
    PRIMARY KEY (case_id, rules_hash)
);

CREATE TABLE IF NOT EXISTS eval_trajectory (
    run_id            VARCHAR NOT NULL,
    case_id           VARCHAR NOT NULL,
    steps             INTEGER NOT NULL,  -- tool calls recorded (tool.call + tool.error lines)
    failed_calls      INTEGER NOT NULL,  -- tool.error lines
    repeated_calls    INTEGER NOT NULL,  -- calls identical (tool and arguments) to an earlier one
    tools_used        INTEGER NOT NULL,  -- distinct tools called
    channels_queried  INTEGER NOT NULL,  -- distinct evidence channels called
    calls_seconds     DOUBLE,            -- first to last telemetry line
    evidence_step     INTEGER,           -- 1-based step of the first call that returned a
                                         -- record a passing critical-evidence check cited
    evidence_seconds  DOUBLE,            -- seconds from the first telemetry line to that call
    evidence_check    VARCHAR,           -- that check
    evidence_id       VARCHAR,           -- that record's id
    wall_seconds      DOUBLE,            -- manifest.json duration_s
    input_tokens      BIGINT,
    output_tokens     BIGINT,
    total_tokens      BIGINT,            -- input + output (NULL: neither reported)
    cost_usd          DOUBLE,
    max_steps         INTEGER,           -- the case's budgets (rule_budget), NULL: none
    max_tokens        BIGINT,
    max_seconds       DOUBLE,
    budget_enforced   BOOLEAN NOT NULL,
    efficiency        VARCHAR NOT NULL,  -- no_budget | within_budget | over_budget | unmeasured
    over_budget       VARCHAR[] NOT NULL,-- the budgets exceeded: steps, tokens, seconds
    efficiency_reason VARCHAR NOT NULL,
    PRIMARY KEY (run_id, case_id)
);

CREATE TABLE IF NOT EXISTS eval_trajectory_tool (
    run_id         VARCHAR NOT NULL,
    case_id        VARCHAR NOT NULL,
    tool           VARCHAR NOT NULL,
    channel        VARCHAR,              -- the evidence channel the tool reads, NULL: none
    calls          INTEGER NOT NULL,
    failed_calls   INTEGER NOT NULL,
    repeated_calls INTEGER NOT NULL,
    first_step     INTEGER NOT NULL,
    PRIMARY KEY (run_id, case_id, tool)
);
