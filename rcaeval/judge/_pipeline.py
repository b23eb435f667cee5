"""Run the judge's SQL: facts -> checks -> buckets -> scores -> verdicts, for every judged
(run, case) at once. The run order is the manifest ``queries/judge/stages.txt`` (phases
[scope], [detect], [decide], [decide.verdict], :mod:`rcaeval.judge._manifest`); Python only
follows it, registers Arrow inputs and binds the per-detector regexes (the manifest's
``!step`` lines, each naming the SQL files it runs); all judging logic is in SQL.

Inputs already in the database: ``raw_*`` (extraction), ``case_meta`` and the ``rule_*``
tables (see :mod:`rcaeval.judge._load`). The judged set is ``keys`` (default: every
``case_meta`` row). Intermediate results are TEMP tables/views named ``j_*``, ``fx_*``,
``bk_*`` on the connection, so they can be inspected after a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._usage import MAX_COST_USD, MAX_TOKENS
from rcaeval._vocab import BUCKETS
from rcaeval.errors import InputError
from rcaeval.extract import elided_table
from rcaeval.grammar import NEVER_MATCHES, REGEX_KEYS, detector_regexes
from rcaeval.judge._manifest import run_file, run_phase, sql_digest, statement
from rcaeval.judge._profiles import load_profiles, profile_tables
from rcaeval.store import pin_utc, registered, threads_lowered

KEYS_SCHEMA = pa.schema([("run_id", pa.string()), ("case_id", pa.string())])

__all__ = ["JudgeFrames", "detect_outputs", "run_judge_sql", "score_and_verdict", "scope_keys",
           "sql_digest"]


@dataclass(frozen=True)
class JudgeFrames:
    """What one judging pass produced (polars, deterministically ordered)."""

    judgments: pl.DataFrame
    buckets: pl.DataFrame
    checks: pl.DataFrame
    facts: pl.DataFrame
    scope: pl.DataFrame
    trajectory: pl.DataFrame = field(default_factory=pl.DataFrame)
    trajectory_tools: pl.DataFrame = field(default_factory=pl.DataFrame)


def _sql(step: str, rel: str, phase: str = "decide") -> str:
    return statement(phase, step, rel)


def _with_arrow(con: duckdb.DuckDBPyConnection, phase: str, step: str, rel: str,
                tables: dict[str, Any]) -> None:
    """Run ``rel`` (named by ``phase``'s ``!step``) with ``tables`` registered for it."""
    with registered(con, tables):
        run_file(con, phase, step, rel)


def _set_keys(con: duckdb.DuckDBPyConnection, keys: Any) -> None:
    if keys is None:
        run_file(con, "scope", "keys", "judge/keys_all.sql")
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
    _with_arrow(con, "scope", "keys", "judge/keys_given.sql", {"__j_keys_in": table})


def _check_scope(con: duckdb.DuckDBPyConnection, profiles: dict[str, Any]) -> None:
    missing = con.execute(_sql("check_scope", "judge/scope_no_meta.sql", "scope")).fetchall()
    if missing:
        raise InputError(f"no case_meta row for {missing} (fill it before judging)")
    no_rules = con.execute(_sql("check_scope", "judge/scope_no_rules.sql", "scope")).fetchall()
    if no_rules:
        raise InputError(f"no rule rows loaded for (case_id, rules_hash) {no_rules}")
    unknown = [
        r[0]
        for r in con.execute(_sql("check_scope", "judge/scope_profiles.sql", "scope")).fetchall()
        if r[0] not in profiles
    ]
    if unknown:
        raise InputError(
            f"unknown scoring profile(s) {unknown}; known: {sorted(profiles)}",
            file="rcaeval/judge/profiles.yaml",
        )


def _scope(con: duckdb.DuckDBPyConnection, keys: Any, profiles: dict[str, Any],
           read_keys: Any = None) -> None:
    """The [scope] phase over ``keys``: ``j_keys``, ``j_scope``, the scope checks."""
    pin_utc(con)
    run_phase(con, "scope", {
        "keys": lambda: _set_keys(con, keys),
        "check_scope": lambda: _check_scope(con, profiles),
        "scope_keys": read_keys or (lambda: None),
    })


def _load_profiles(con: duckdb.DuckDBPyConnection, profiles: dict[str, Any]) -> None:
    maxima, band = profile_tables(profiles)
    _with_arrow(con, "decide", "profiles", "judge/profiles.sql",
                {"__j_profile_in": maxima, "__j_band_in": band})


def _has_candidates(con: duckdb.DuckDBPyConnection, key: str, any_re: str) -> bool:
    return bool(con.execute(_sql("detectors", "judge/detector_candidates.sql", "detect"),
                            {"key": key, "any": any_re}).fetchall()[0][0])


def _unused_keys(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    """Per detector scope, the grammar keys it never reads (judge/detector_unused.sql)."""
    out: dict[str, set[str]] = {}
    for scope, key in con.execute(_sql("detectors", "judge/detector_unused.sql",
                                       "detect")).fetchall():
        out.setdefault(scope, set()).add(key)
    return out


def _run_detectors(con: duckdb.DuckDBPyConnection) -> None:
    """One detector_match.sql query per distinct compiled pattern set (rule_detector
    .pattern_key) among the judged cases: a loop over rules, never over runs. On one DuckDB
    thread: a detector query's cost is mostly its regexes' compilation, which DuckDB repeats
    in every thread's operator state (bench/RESULTS.md, session 24)."""
    rows = con.execute(_sql("detectors", "judge/detector_sets.sql", "detect")).fetchall()
    if not rows:
        return
    with threads_lowered(con, 1):
        _detector_queries(con, rows)


def _detector_queries(con: duckdb.DuckDBPyConnection, rows: list[tuple[Any, ...]]) -> None:
    unused_by_scope = _unused_keys(con)
    run_file(con, "detect", "detectors", "facts/detector_cue.sql")
    for key, scope, any_re, all_re, negation, pre, post, grammar, any_p in rows:
        regexes = dict(grammar) if grammar else {}
        if any(k not in regexes for k in REGEX_KEYS):
            # rule rows written before the grammar existed: compile the default grammar
            regexes = detector_regexes(list(any_p), scope=scope, negation=bool(negation))
        params = {k: regexes[k] for k in REGEX_KEYS}
        # RE2 compiles every bound pattern once per query, and the grammar's windowed
        # alternations are costly to compile: bind only what the scope uses, and skip a
        # pattern set no sentence of the judged runs matches.
        params.update({k: NEVER_MATCHES for k in unused_by_scope.get(scope, ())})
        if not negation:
            params.update({k: NEVER_MATCHES for k in REGEX_KEYS if k.endswith("_cue")})
        if not regexes.get("fuzzy_words") and not _has_candidates(con, key, any_re):
            continue  # (a fuzzy detector's candidates show only after correction)
        params.update({
            "pattern_key": key, "scope": scope, "any_regex": any_re,
            "all_regexes": list(all_re or []),
            "neg_pre": pre if negation and pre else NEVER_MATCHES,
            "neg_post": post if negation and post else NEVER_MATCHES,
        })
        run_file(con, "detect", "detectors", "facts/detector_match.sql", params)


def detect_outputs(con: duckdb.DuckDBPyConnection, keys: Any, *,
                   profiles: dict[str, Any] | None = None) -> None:
    """Run the output detectors once over ``keys`` (a block of several judging chunks, as
    :func:`run_judge_sql` takes keys) into the TEMP table ``j_block_detector_hit`` (the
    manifest's [scope] and [detect] phases); then :func:`run_judge_sql` with
    ``detected=True`` takes each chunk's rows from it instead of running the detector queries
    again. Each detector query binds a score of RE2 regexes that DuckDB compiles per query, a
    cost independent of the number of runs: per block instead of per chunk, it is paid once
    for many chunks. Keys must already be validated (:func:`scope_keys`)."""
    _scope(con, keys, profiles if profiles is not None else load_profiles())
    run_phase(con, "detect", {"detectors": lambda: _run_detectors(con)})


def _set_semantic(con: duckdb.DuckDBPyConnection, table: pa.Table | None) -> None:
    """Apply a second pass's semantic verdicts (``j_semantic_check``, created empty by
    judge/semantic_table.sql) to the diagnosis rows of ``j_check_eval``."""
    if table is None:
        return
    _with_arrow(con, "decide", "semantic", "judge/semantic_rows.sql",
                {"__j_semantic_in": table})
    run_file(con, "decide", "semantic", "judge/semantic_checks.sql")


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
    validate everything before judging in chunks (the manifest's [scope] phase)."""
    out: list[pa.Table] = []
    _scope(con, keys, profiles if profiles is not None else load_profiles(),
           read_keys=lambda: out.append(con.sql(_sql(
               "scope_keys", "chunking/scope_keys.sql", "scope")).to_arrow_table()))
    return out[0].cast(KEYS_SCHEMA)


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
    nothing outside TEMP objects (see :func:`rcaeval.judge.write_results`). Runs the
    manifest's [scope], [decide] and [decide.verdict] phases.

    ``semantic_checks`` (the semantic shadow's second pass, docs/semantic.md): rows
    ``(run_id, case_id, check_id, passed, votes_pass, votes_fail, rationale)`` whose verdicts
    decide those diagnosis checks instead of the detectors.

    ``detected``: :func:`detect_outputs` already ran the output detectors over a set of keys
    containing ``keys``; their sentence matches are taken from it (same rows)."""
    profiles = profiles if profiles is not None else load_profiles()
    _scope(con, keys, profiles)
    run_phase(con, "decide", {
        "profiles": lambda: _load_profiles(con, profiles),
        "elided_json": lambda: _elided_json(con),
        "detector_hits": lambda: _detector_hits(con, detected=detected),
        "semantic": lambda: _set_semantic(con, semantic_checks),
    })
    return score_and_verdict(con)


def _usage_bounds(con: duckdb.DuckDBPyConnection, measured: bool) -> None:
    """``j_usage_bounds``: the usage bounds of rcaeval._usage, for judge/trajectory.sql."""
    if measured:
        run_file(con, "decide.verdict", "usage_bounds", "judge/usage_bounds.sql",
                 {"max_tokens": MAX_TOKENS, "max_cost": MAX_COST_USD})


def _elided_json(con: duckdb.DuckDBPyConnection) -> None:
    """Add to ``j_raw_json`` the values of the elided containers a method condition of the
    chunk may read (``judge/elided_json.sql``), rebuilt as extraction would have written
    them (``rcaeval.extract.elided_table``)."""
    containers = con.execute(_sql("elided_json", "judge/elided_json.sql")).fetchall()
    if not containers:
        return
    _with_arrow(con, "decide", "elided_json", "judge/elided_json_insert.sql",
                {_ELIDED_VIEW: elided_table(containers)})


_ELIDED_VIEW = "_rcaeval_elided_rows"
"""The Arrow input of judge/elided_json_insert.sql."""


def _detector_hits(con: duckdb.DuckDBPyConnection, *, detected: bool) -> None:
    """``j_detector_hit``: the block's hits (:func:`detect_outputs` ran) or this chunk's (the
    [detect] phase's detector files over the chunk)."""
    if detected:
        run_file(con, "decide", "detector_hits", "judge/chunk_detector_hits.sql")
        return
    run_file(con, "decide", "detector_hits", "facts/detector_hits.sql")
    _run_detectors(con)


def _temp_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(con.execute(_sql("usage_bounds", "judge/temp_table_exists.sql",
                                 "decide.verdict"), {"name": name}).fetchall()[0][0])


def score_and_verdict(con: duckdb.DuckDBPyConnection) -> JudgeFrames:
    """Scores, verdicts and banding over ``j_bucket`` / ``j_scope`` / ``j_profile`` /
    ``j_band`` (already on the connection): the manifest's [decide.verdict] phase; returns
    every frame. Without telemetry (``j_raw_telemetry``: scoring bucket rows alone) there is
    no trajectory."""
    measured = _temp_table(con, "j_raw_telemetry")
    out: list[JudgeFrames] = []
    run_phase(con, "decide.verdict", {
        "usage_bounds": lambda: _usage_bounds(con, measured),
        "trajectory": lambda: measured and run_file(con, "decide.verdict", "trajectory",
                                                    "judge/trajectory.sql"),
        "frames": lambda: out.append(_frames(con, measured)),
    })
    return out[0]


def _frame(con: duckdb.DuckDBPyConnection, rel: str, params: Any = None) -> pl.DataFrame:
    return con.sql(_sql("frames", rel, "decide.verdict"), params=params).pl()


def _frames(con: duckdb.DuckDBPyConnection, measured: bool) -> JudgeFrames:
    order = {"buckets": list(BUCKETS)}
    return JudgeFrames(
        judgments=_frame(con, "judge/frame_judgments.sql"),
        buckets=_frame(con, "judge/frame_buckets.sql", order),
        checks=(_frame(con, "judge/frame_checks.sql", order)
                if _temp_table(con, "j_check") else pl.DataFrame()),
        facts=(_frame(con, "judge/frame_facts.sql")
               if _temp_table(con, "j_fact") else pl.DataFrame()),
        scope=_frame(con, "judge/frame_scope.sql"),
        trajectory=(_frame(con, "judge/frame_trajectory.sql") if measured
                    else pl.DataFrame()),
        trajectory_tools=(_frame(con, "judge/frame_trajectory_tools.sql") if measured
                          else pl.DataFrame()),
    )
