"""Run the judge's SQL: facts -> checks -> buckets -> scores -> verdicts, for every judged
(run, case) at once. Python only sequences the SQL files of ``queries/`` and binds the
per-detector regexes; all bucket logic is in SQL.

Inputs already in the database: ``raw_*`` (extraction), ``case_meta`` and the ``rule_*``
tables (see :mod:`rcaeval.judge._load`). The judged set is ``keys`` (default: every
``case_meta`` row). Intermediate results are TEMP tables/views named ``j_*``, ``fx_*``,
``bk_*`` on the connection, so they can be inspected after a run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._paths import queries_dir, read_query
from rcaeval._vocab import BUCKETS, BUCKETS_SQL_LIST, EVIDENCE_METHODS
from rcaeval.errors import InputError
from rcaeval.grammar import NEVER_MATCHES, REGEX_KEYS, defaults_digest_bytes, detector_regexes
from rcaeval.judge._profiles import load_profiles, profile_tables

STAGE1_FILES = (
    "facts/catalog.sql",
    "facts/files.sql",
    "facts/trace.sql",
    "facts/evidence.sql",
    "facts/analysis.sql",
    "facts/detector_hits.sql",
    "facts/output.sql",
    "facts/base.sql",
)
DETECTOR_HITS_FILE = "facts/detector_hits.sql"
"""Creates ``j_detector_hit``, which the output detectors fill (facts/detector_match.sql)."""
BUCKET_FILES = tuple(f"buckets/{b}.sql" for b in BUCKETS)
METHOD_FILES = tuple(f"methods/{m}.sql" for m in EVIDENCE_METHODS)
"""One SQL file per evidence method, registered by name (CONTRIBUTING.md, "Add an evidence
method"); each defines ``mx_w_<method>`` (witnesses) and ``mx_miss_<method>`` (the detail
when nothing holds), which the judge unions into ``mx_witness`` / ``mx_miss``."""

CHECK_COLS = (
    "run_id, case_id, bucket, check_id, kind, required, soft, weight, ord, passed, reason, "
    "evidence_file, evidence_path, evidence_line, evidence_excerpt"
)
BUCKET_COLS = "run_id, case_id, bucket, status, reason, frac, frac_hard, frac_supporting"
KEYS_SCHEMA = pa.schema([("run_id", pa.string()), ("case_id", pa.string())])


@dataclass(frozen=True)
class JudgeFrames:
    """What one judging pass produced (polars, deterministically ordered)."""

    judgments: pl.DataFrame
    buckets: pl.DataFrame
    checks: pl.DataFrame
    facts: pl.DataFrame
    scope: pl.DataFrame


def sql_digest() -> str:
    """sha256 (16 hex) over the judge's SQL files: changes whenever judging logic does."""
    h = hashlib.sha256()
    root = queries_dir()
    for sub in ("rules", "facts", "methods", "judge", "buckets"):
        for path in sorted((root / sub).glob("*.sql")):
            h.update(f"{sub}/{path.name}\n".encode())
            h.update(path.read_bytes())
    h.update(b"grammar/defaults.yaml\n")
    h.update(defaults_digest_bytes())
    return h.hexdigest()[:16]


def _run(con: duckdb.DuckDBPyConnection, rel: str, params: dict[str, Any] | None = None) -> None:
    try:
        if params is None:
            con.execute(read_query(rel))
        else:
            con.execute(read_query(rel), params)
    except duckdb.Error as exc:
        raise RuntimeError(f"judge SQL {rel} failed: {exc}") from exc


def _run_methods(con: duckdb.DuckDBPyConnection) -> None:
    """Each registered method's file, then ``mx_witness`` / ``mx_miss`` as the UNION ALL of
    their views (in EVIDENCE_METHODS order), then ``method_eval`` (judge/method_eval.sql)."""
    for rel in METHOD_FILES:
        _run(con, rel)
    for view, prefix in (("mx_witness", "mx_w_"), ("mx_miss", "mx_miss_")):
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW {view} AS "
            + " UNION ALL ".join(f"SELECT * FROM {prefix}{m}" for m in EVIDENCE_METHODS)
        )
    _run(con, "judge/method_eval.sql")


def _set_keys(con: duckdb.DuckDBPyConnection, keys: Any) -> None:
    if keys is None:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE j_keys AS "
            "SELECT DISTINCT run_id, case_id FROM case_meta"
        )
        return
    if isinstance(keys, pl.DataFrame):
        table = keys.select("run_id", "case_id").to_arrow().cast(KEYS_SCHEMA)
    elif isinstance(keys, pa.Table):
        table = keys.select(["run_id", "case_id"]).cast(KEYS_SCHEMA)
    else:
        pairs = list(keys)
        table = pa.table(
            {"run_id": [p[0] for p in pairs], "case_id": [p[1] for p in pairs]},
            schema=KEYS_SCHEMA,
        )
    con.register("__j_keys_in", table)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE j_keys AS "
            "SELECT DISTINCT run_id, case_id FROM __j_keys_in"
        )
    finally:
        con.unregister("__j_keys_in")


def _check_scope(con: duckdb.DuckDBPyConnection, profiles: dict[str, Any]) -> None:
    missing = con.execute(
        "SELECT k.run_id, k.case_id FROM j_keys k ANTI JOIN case_meta m "
        "ON m.run_id = k.run_id AND m.case_id = k.case_id ORDER BY ALL LIMIT 5"
    ).fetchall()
    if missing:
        raise InputError(f"no case_meta row for {missing} (fill it before judging)")
    no_rules = con.execute(
        "SELECT k.case_id, k.rules_hash FROM j_scope k ANTI JOIN rule_bucket_param p "
        "ON p.case_id = k.case_id AND p.rules_hash = k.rules_hash ORDER BY ALL LIMIT 5"
    ).fetchall()
    if no_rules:
        raise InputError(f"no rule rows loaded for (case_id, rules_hash) {no_rules}")
    unknown = [
        r[0]
        for r in con.execute("SELECT DISTINCT scoring_profile FROM j_scope ORDER BY 1").fetchall()
        if r[0] not in profiles
    ]
    if unknown:
        raise InputError(
            f"unknown scoring profile(s) {unknown}; known: {sorted(profiles)}",
            file="rcaeval/judge/profiles.yaml",
        )


def _load_profiles(con: duckdb.DuckDBPyConnection, profiles: dict[str, Any]) -> None:
    maxima, band = profile_tables(profiles)
    for name, table in (("j_profile", maxima), ("j_band", band)):
        con.register("__j_in", table)
        try:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM __j_in")
        finally:
            con.unregister("__j_in")


def _has_candidates(con: duckdb.DuckDBPyConnection, key: str, any_re: str) -> bool:
    return bool(con.execute(read_query("judge/detector_candidates.sql"),
                            {"key": key, "any": any_re}).fetchall()[0][0])


def _run_detectors(con: duckdb.DuckDBPyConnection) -> None:
    """One detector_match.sql query per distinct compiled pattern set (rule_detector
    .pattern_key) among the judged cases: a loop over rules, never over runs."""
    rows = con.execute(read_query("judge/detector_sets.sql")).fetchall()
    for key, scope, any_re, all_re, negation, pre, post, grammar, any_p in rows:
        regexes = dict(grammar) if grammar else {}
        if any(k not in regexes for k in REGEX_KEYS):
            # rule rows written before the grammar existed: compile the default grammar
            regexes = detector_regexes(list(any_p), scope=scope, negation=bool(negation))
        params = {k: regexes[k] for k in REGEX_KEYS}
        # RE2 compiles every bound pattern once per query, and the grammar's windowed
        # alternations are costly to compile: bind only what the scope uses, and skip a
        # pattern set no sentence of the judged runs matches.
        unused = {"anywhere": ("causal", "heading_conclusion", "heading_alternatives",
                               "heading_role", "label_conclusion", "label_alternatives",
                               "label_role"),
                  "alternatives": ("causal",)}.get(scope, ())
        params.update({k: NEVER_MATCHES for k in unused})
        if not negation:
            params.update({k: NEVER_MATCHES for k in REGEX_KEYS if k.endswith("_cue")})
        if not _has_candidates(con, key, any_re):
            continue
        params.update({
            "pattern_key": key, "scope": scope, "any_regex": any_re,
            "all_regexes": list(all_re or []),
            "neg_pre": pre if negation and pre else NEVER_MATCHES,
            "neg_post": post if negation and post else NEVER_MATCHES,
        })
        _run(con, "facts/detector_match.sql", params)


def detect_outputs(con: duckdb.DuckDBPyConnection, keys: Any) -> None:
    """Run the output detectors once over ``keys`` (a block of several judging chunks, as
    :func:`run_judge_sql` takes keys) into the TEMP table ``j_block_detector_hit``; then
    :func:`run_judge_sql` with ``detected=True`` takes each chunk's rows from it instead of
    running the detector queries again. Each detector query binds a score of RE2 regexes
    that DuckDB compiles per query, a cost independent of the number of runs: per block
    instead of per chunk, it is paid once for many chunks. Keys must already be validated
    (:func:`scope_keys`)."""
    con.execute("SET TimeZone = 'UTC'")
    _set_keys(con, keys)
    _run(con, "rules/scope.sql")
    _run(con, "judge/block_output_sentences.sql")
    _run(con, DETECTOR_HITS_FILE)
    _run_detectors(con)
    _run(con, "judge/block_detector_hits.sql")


def _set_semantic(con: duckdb.DuckDBPyConnection, table: pa.Table | None) -> None:
    """``j_semantic_check`` (empty unless a second pass gives semantic verdicts), then apply
    it to the diagnosis rows of ``j_check_eval`` (queries/judge/semantic_checks.sql)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE j_semantic_check (run_id VARCHAR, case_id VARCHAR, "
        "check_id VARCHAR, passed BOOLEAN, votes_pass INTEGER, votes_fail INTEGER, "
        "rationale VARCHAR)"
    )
    if table is None:
        return
    con.register("__j_semantic_in", table)
    try:
        con.execute("INSERT INTO j_semantic_check BY NAME SELECT * FROM __j_semantic_in")
    finally:
        con.unregister("__j_semantic_in")
    _run(con, "judge/semantic_checks.sql")


def scope_keys(
    con: duckdb.DuckDBPyConnection,
    keys: Any = None,
    *,
    profiles: dict[str, Any] | None = None,
) -> pa.Table:
    """Check that every key of ``keys`` (as :func:`run_judge_sql` takes them) can be judged
    (case_meta row, loaded rules, known scoring profile: :class:`InputError` otherwise) and
    return the distinct keys as an Arrow table ``(run_id, case_id)`` ordered by run_id,
    case_id, the order of every judge frame. Cheap (one row per key): callers use it to
    validate everything before judging in chunks."""
    profiles = profiles if profiles is not None else load_profiles()
    con.execute("SET TimeZone = 'UTC'")
    _set_keys(con, keys)
    _run(con, "rules/scope.sql")
    _check_scope(con, profiles)
    return con.sql(read_query("chunking/scope_keys.sql")).to_arrow_table().cast(
        KEYS_SCHEMA
    )


def run_judge_sql(
    con: duckdb.DuckDBPyConnection,
    keys: Any = None,
    *,
    profiles: dict[str, Any] | None = None,
    semantic_checks: pa.Table | None = None,
    detected: bool = False,
) -> JudgeFrames:
    """Judge ``keys`` (``(run_id, case_id)`` pairs, a frame with those columns, or ``None``
    for every ``case_meta`` row) from what is in the database; return the frames. Writes
    nothing outside TEMP objects (see :func:`rcaeval.judge.write_results`).

    ``semantic_checks`` (the semantic shadow's second pass, docs/semantic.md): rows
    ``(run_id, case_id, check_id, passed, votes_pass, votes_fail, rationale)`` whose verdicts
    decide those diagnosis checks instead of the detectors.

    ``detected``: :func:`detect_outputs` already ran the output detectors over a set of keys
    containing ``keys``; their sentence matches are taken from it (same rows)."""
    profiles = profiles if profiles is not None else load_profiles()
    con.execute("SET TimeZone = 'UTC'")
    _set_keys(con, keys)
    _run(con, "rules/scope.sql")
    _check_scope(con, profiles)
    _load_profiles(con, profiles)
    _run(con, "judge/chunk_inputs.sql")

    for rel in STAGE1_FILES:
        if rel == DETECTOR_HITS_FILE and detected:
            _run(con, "judge/chunk_detector_hits.sql")
            continue
        _run(con, rel)
        if rel == DETECTOR_HITS_FILE:
            _run_detectors(con)
    _run(con, "judge/stage1_facts.sql")
    _run(con, "facts/derived.sql")
    _run(con, "judge/stage2_facts.sql")
    _run(con, "facts/methods.sql")
    _run_methods(con)
    _run(con, "judge/method_results.sql")
    _run(con, "judge/conditions.sql")
    _run(con, "judge/workflow_checks.sql")
    _run(con, "facts/contract.sql")
    _run(con, "judge/stage3_facts.sql")
    _set_semantic(con, semantic_checks)

    _run(con, "judge/bucket_rows.sql")
    for rel in BUCKET_FILES:
        _run(con, rel)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE j_check AS "
        + " UNION ALL ".join(f"SELECT {CHECK_COLS} FROM bk_{b}_check" for b in BUCKETS)
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE j_bucket AS "
        + " UNION ALL ".join(f"SELECT {BUCKET_COLS} FROM bk_{b}" for b in BUCKETS)
    )
    return score_and_verdict(con)


def score_and_verdict(con: duckdb.DuckDBPyConnection) -> JudgeFrames:
    """Scores, verdicts and banding over ``j_bucket`` / ``j_scope`` / ``j_profile`` /
    ``j_band`` (already on the connection); returns every frame."""
    _run(con, "judge/scores.sql")
    _run(con, "judge/verdict.sql")
    _run(con, "judge/verdict_tables.sql")
    order = f"list_position({BUCKETS_SQL_LIST}, bucket)"
    judgments = con.sql("SELECT * FROM j_verdict ORDER BY run_id, case_id").pl()
    buckets = con.sql(f"SELECT * FROM j_bucket_scored ORDER BY run_id, case_id, {order}").pl()
    has_checks = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'j_check' AND temporary"
    ).fetchall()[0][0]
    checks = (
        con.sql(f"SELECT * FROM j_check ORDER BY run_id, case_id, {order}, ord, check_id").pl()
        if has_checks
        else pl.DataFrame()
    )
    has_facts = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'j_fact' AND temporary"
    ).fetchall()[0][0]
    facts = (
        con.sql("SELECT * FROM j_fact ORDER BY run_id, case_id, fact").pl()
        if has_facts
        else pl.DataFrame()
    )
    scope = con.sql("SELECT * FROM j_scope ORDER BY run_id, case_id").pl()
    return JudgeFrames(
        judgments=judgments, buckets=buckets, checks=checks, facts=facts, scope=scope
    )
