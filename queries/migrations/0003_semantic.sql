-- Migration 0003: the semantic shadow (docs/semantic.md).
-- An LLM (or any provider) reads the final answer and gives its own verdict on every diagnosis
-- check. The deterministic judgment in eval_judgment is never changed by it: the shadow's
-- per-case status and packet live in eval_semantic, its per-check verdicts next to the
-- deterministic ones in eval_semantic_check, and -- only for cases in diagnosis mode
-- `blended` whose packet is ok -- the second judging pass in eval_judgment_blended.
-- semantic_cache keeps provider answers by content address, so re-judging stored runs does
-- not call the model again.

CREATE TABLE IF NOT EXISTS eval_semantic (
    run_id          VARCHAR NOT NULL,
    case_id         VARCHAR NOT NULL,
    status          VARCHAR NOT NULL,   -- ok | missing_provider | provider_failure | timeout | unsupported_provider
    detail          VARCHAR,            -- why, for a non-ok status
    diagnosis_mode  VARCHAR,            -- deterministic_only | blended
    second_pass     BOOLEAN NOT NULL,   -- blended and ok: eval_judgment_blended has the result
    provider        VARCHAR,
    model           VARCHAR,
    prompt_version  VARCHAR,
    samples         INTEGER,
    context_sha256  VARCHAR,
    cache_key       VARCHAR,
    cache_hit       BOOLEAN NOT NULL,   -- answered from semantic_cache, no provider call
    requests        INTEGER,            -- provider requests behind the packet's verdicts
    input_tokens    BIGINT,
    output_tokens   BIGINT,
    cost_usd        DOUBLE,
    context_json    VARCHAR,            -- semantic_context_v1.json, byte-identical
    packet_json     VARCHAR,            -- semantic_packet_v1.json, byte-identical
    judged_at       TIMESTAMPTZ,
    PRIMARY KEY (run_id, case_id)
);

CREATE TABLE IF NOT EXISTS eval_semantic_check (
    run_id      VARCHAR NOT NULL,
    case_id     VARCHAR NOT NULL,
    check_id    VARCHAR NOT NULL,
    kind        VARCHAR,               -- hard | supporting
    det_passed  BOOLEAN,               -- the deterministic (primary) verdict
    sem_passed  BOOLEAN,               -- the samples' majority; NULL on a tie
    votes_pass  INTEGER NOT NULL,
    votes_fail  INTEGER NOT NULL,
    spread      DOUBLE NOT NULL,       -- share of samples against the majority (0 = unanimous)
    rationale   VARCHAR,               -- the first majority sample's rationale
    PRIMARY KEY (run_id, case_id, check_id)
);

CREATE TABLE IF NOT EXISTS eval_judgment_blended (
    run_id           VARCHAR NOT NULL,
    case_id          VARCHAR NOT NULL,
    verdict          VARCHAR NOT NULL,
    subtype          VARCHAR,
    score            DOUBLE,
    raw_score        DOUBLE,
    hard_gate        BOOLEAN,
    diagnosis_status VARCHAR,
    diagnosis_score  DOUBLE,
    reason           VARCHAR,
    judgment_json    VARCHAR,          -- judgment_blended.json, byte-identical
    judged_at        TIMESTAMPTZ,
    PRIMARY KEY (run_id, case_id)
);

CREATE TABLE IF NOT EXISTS semantic_cache (
    cache_key   VARCHAR PRIMARY KEY,   -- sha256 of judge input + prompt + provider/model + settings
    provider    VARCHAR,
    model       VARCHAR,
    prompt_version VARCHAR,
    answer_json VARCHAR NOT NULL,      -- the samples (verdicts, rationales, usage)
    created_at  TIMESTAMPTZ
);
