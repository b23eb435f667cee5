"""Run the judge's SQL: facts -> checks -> buckets -> scores -> verdicts, for every judged
(run, case) at once. The run order is the stage manifest ``queries/judge/stages.txt``; Python
only follows it, registers Arrow inputs and binds the per-detector regexes (the manifest's
``!step`` lines, :data:`STEPS`); all judging logic is in SQL.

Inputs already in the database: ``raw_*`` (extraction), ``case_meta`` and the ``rule_*``
tables (see :mod:`rcaeval.judge._load`). The judged set is ``keys`` (default: every
``case_meta`` row). Intermediate results are TEMP tables/views named ``j_*``, ``fx_*``,
``bk_*`` on the connection, so they can be inspected after a run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._paths import queries_dir, read_query
from rcaeval._usage import MAX_COST_USD, MAX_TOKENS
from rcaeval._vocab import BUCKETS, EVIDENCE_METHODS
from rcaeval.errors import InputError
from rcaeval.extract import elided_table
from rcaeval.grammar import NEVER_MATCHES, REGEX_KEYS, defaults_digest_bytes, detector_regexes
from rcaeval.judge._profiles import load_profiles, profile_tables
from rcaeval.store import pin_utc

STAGES_FILE = "judge/stages.txt"
"""The stage manifest: the judge's run order (its header says how to read it)."""
_LISTS = {"{bucket}": BUCKETS, "{method}": EVIDENCE_METHODS}
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


def stages() -> dict[str, tuple[str, ...]]:
    """The manifest's stages by section (``"judge"``: before ``[score]``; ``"score"``): SQL
    file paths (list lines expanded) and ``!step`` names, in run order."""
    out: dict[str, list[str]] = {"judge": [], "score": []}
    section = "judge"
    for raw in read_query(STAGES_FILE).splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line == "[score]":
            section = "score"
            continue
        pattern = next((k for k in _LISTS if k in line), None)
        if pattern:
            out[section].extend(line.replace(pattern, name) for name in _LISTS[pattern])
        else:
            out[section].append(line)
    return {k: tuple(v) for k, v in out.items()}


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


def sql_digest() -> str:
    """sha256 (16 hex) over the judge's SQL files: changes whenever judging logic does."""
    h = hashlib.sha256()
    root = queries_dir()
    for sub in ("rules", "facts", "methods", "judge", "buckets"):
        for path in sorted((root / sub).glob("*.sql")):
            h.update(f"{sub}/{path.name}\n".encode())
            h.update(path.read_bytes())
    h.update(f"{STAGES_FILE}\n".encode())
    h.update((root / STAGES_FILE).read_bytes())
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


def _union_all(con: duckdb.DuckDBPyConnection, target: str, selects: list[str]) -> None:
    """``target`` as the UNION ALL of one SELECT per name of a registered list (the views the
    list's files define): derived from the list, so a new bucket or method needs no edit."""
    con.execute(f"CREATE OR REPLACE TEMP {target} AS " + " UNION ALL ".join(selects))


def _method_union(con: duckdb.DuckDBPyConnection) -> None:
    """``mx_witness`` / ``mx_miss``: every registered method's views, in EVIDENCE_METHODS
    order."""
    for view, prefix in (("mx_witness", "mx_w_"), ("mx_miss", "mx_miss_")):
        _union_all(con, f"VIEW {view}", [f"SELECT * FROM {prefix}{m}" for m in EVIDENCE_METHODS])


def _bucket_union(con: duckdb.DuckDBPyConnection) -> None:
    """``j_check`` / ``j_bucket``: every bucket's check rows and status, in BUCKETS order."""
    _union_all(con, "TABLE j_check", [f"SELECT {CHECK_COLS} FROM bk_{b}_check" for b in BUCKETS])
    _union_all(con, "TABLE j_bucket", [f"SELECT {BUCKET_COLS} FROM bk_{b}" for b in BUCKETS])


def _with_arrow(con: duckdb.DuckDBPyConnection, rel: str, tables: dict[str, Any]) -> None:
    """Run ``rel`` with ``tables`` registered under their names for it."""
    for name, table in tables.items():
        con.register(name, table)
    try:
        _run(con, rel)
    finally:
        for name in tables:
            con.unregister(name)


def _set_keys(con: duckdb.DuckDBPyConnection, keys: Any) -> None:
    if keys is None:
        _run(con, "judge/keys_all.sql")
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
    _with_arrow(con, "judge/keys_given.sql", {"__j_keys_in": table})


def _check_scope(con: duckdb.DuckDBPyConnection, profiles: dict[str, Any]) -> None:
    missing = con.execute(read_query("judge/scope_no_meta.sql")).fetchall()
    if missing:
        raise InputError(f"no case_meta row for {missing} (fill it before judging)")
    no_rules = con.execute(read_query("judge/scope_no_rules.sql")).fetchall()
    if no_rules:
        raise InputError(f"no rule rows loaded for (case_id, rules_hash) {no_rules}")
    unknown = [
        r[0]
        for r in con.execute(read_query("judge/scope_profiles.sql")).fetchall()
        if r[0] not in profiles
    ]
    if unknown:
        raise InputError(
            f"unknown scoring profile(s) {unknown}; known: {sorted(profiles)}",
            file="rcaeval/judge/profiles.yaml",
        )


def _load_profiles(con: duckdb.DuckDBPyConnection, profiles: dict[str, Any]) -> None:
    maxima, band = profile_tables(profiles)
    _with_arrow(con, "judge/profiles.sql", {"__j_profile_in": maxima, "__j_band_in": band})


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
                               "label_role", "label_evidence", "lead", "bold_lead",
                               "lead_conclusion", "lead_alternatives", "lead_role",
                               "lead_evidence", "subordinate", "causal_bound",
                               "anaphora_in", "anaphora_next", "anaphora_cue", "pick"),
                  "alternatives": ("causal", "causal_bound", "anaphora_in", "anaphora_next",
                                   "anaphora_cue", "pick")}.get(scope, ())
        params.update({k: NEVER_MATCHES for k in unused})
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
        _run(con, "facts/detector_match.sql", params)


def detect_outputs(con: duckdb.DuckDBPyConnection, keys: Any) -> None:
    """Run the output detectors once over ``keys`` (a block of several judging chunks, as
    :func:`run_judge_sql` takes keys) into the TEMP table ``j_block_detector_hit``; then
    :func:`run_judge_sql` with ``detected=True`` takes each chunk's rows from it instead of
    running the detector queries again. Each detector query binds a score of RE2 regexes
    that DuckDB compiles per query, a cost independent of the number of runs: per block
    instead of per chunk, it is paid once for many chunks. Keys must already be validated
    (:func:`scope_keys`)."""
    pin_utc(con)
    _set_keys(con, keys)
    _run(con, "rules/scope.sql")
    _run(con, "judge/block_output_sentences.sql")
    _run(con, DETECTOR_HITS_FILE)
    _run_detectors(con)
    _run(con, "judge/block_detector_hits.sql")


def _set_semantic(con: duckdb.DuckDBPyConnection, table: pa.Table | None) -> None:
    """``j_semantic_check`` (empty unless a second pass gives semantic verdicts), then apply
    it to the diagnosis rows of ``j_check_eval`` (queries/judge/semantic_checks.sql)."""
    _run(con, "judge/semantic_table.sql")
    if table is None:
        return
    _with_arrow(con, "judge/semantic_rows.sql", {"__j_semantic_in": table})
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
    pin_utc(con)
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
    pin_utc(con)
    _set_keys(con, keys)
    steps = {
        "check_scope": lambda: _check_scope(con, profiles),
        "profiles": lambda: _load_profiles(con, profiles),
        "elided_json": lambda: _elided_json(con),
        "detector_hits": lambda: _detector_hits(con, detected=detected),
        "method_union": lambda: _method_union(con),
        "semantic": lambda: _set_semantic(con, semantic_checks),
        "bucket_union": lambda: _bucket_union(con),
    }
    _run_stages(con, stages()["judge"], steps)
    return score_and_verdict(con)


STEPS = ("check_scope", "profiles", "elided_json", "detector_hits", "method_union", "semantic",
         "bucket_union", "usage_bounds")
"""The ``!step`` names the stage manifest may use (tests/judge/test_stages.py checks it uses
exactly these, and names only SQL files that exist)."""


def _run_stages(con: duckdb.DuckDBPyConnection, names: tuple[str, ...],
                steps: dict[str, Any]) -> None:
    for name in names:
        if name.startswith("!"):
            steps[name[1:]]()
        else:
            _run(con, name)


def _usage_bounds(con: duckdb.DuckDBPyConnection) -> None:
    """``j_usage_bounds``: the usage bounds of rcaeval._usage, for judge/trajectory.sql."""
    _run(con, "judge/usage_bounds.sql", {"max_tokens": MAX_TOKENS, "max_cost": MAX_COST_USD})


def _elided_json(con: duckdb.DuckDBPyConnection) -> None:
    """Add to ``j_raw_json`` the values of the elided containers a method condition of the
    chunk may read (``judge/elided_json.sql``), rebuilt as extraction would have written
    them (``rcaeval.extract.elided_table``)."""
    containers = con.execute(read_query("judge/elided_json.sql")).fetchall()
    if not containers:
        return
    con.register(_ELIDED_VIEW, elided_table(containers))
    try:
        _run(con, "judge/elided_json_insert.sql")
    finally:
        con.unregister(_ELIDED_VIEW)


_ELIDED_VIEW = "_rcaeval_elided_rows"
"""The Arrow input of judge/elided_json_insert.sql."""


def _detector_hits(con: duckdb.DuckDBPyConnection, *, detected: bool) -> None:
    """``j_detector_hit``: the block's hits (:func:`detect_outputs` ran) or this chunk's."""
    if detected:
        _run(con, "judge/chunk_detector_hits.sql")
        return
    _run(con, DETECTOR_HITS_FILE)
    _run_detectors(con)


def _temp_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(con.execute(read_query("judge/temp_table_exists.sql"),
                            {"name": name}).fetchall()[0][0])


def score_and_verdict(con: duckdb.DuckDBPyConnection) -> JudgeFrames:
    """Scores, verdicts and banding over ``j_bucket`` / ``j_scope`` / ``j_profile`` /
    ``j_band`` (already on the connection); returns every frame."""
    names = stages()["score"]
    measured = _temp_table(con, "j_raw_telemetry")  # scoring bucket rows alone: no trajectory
    if not measured:
        names = names[:names.index("!usage_bounds")]
    _run_stages(con, names, {"usage_bounds": lambda: _usage_bounds(con)})
    order = {"buckets": list(BUCKETS)}
    judgments = con.sql(read_query("judge/frame_judgments.sql")).pl()
    buckets = con.sql(read_query("judge/frame_buckets.sql"), params=order).pl()
    checks = (con.sql(read_query("judge/frame_checks.sql"), params=order).pl()
              if _temp_table(con, "j_check") else pl.DataFrame())
    facts = (con.sql(read_query("judge/frame_facts.sql")).pl()
             if _temp_table(con, "j_fact") else pl.DataFrame())
    scope = con.sql(read_query("judge/frame_scope.sql")).pl()
    trajectory = (con.sql(read_query("judge/frame_trajectory.sql")).pl() if measured
                  else pl.DataFrame())
    tools = (con.sql(read_query("judge/frame_trajectory_tools.sql")).pl() if measured
             else pl.DataFrame())
    return JudgeFrames(
        judgments=judgments, buckets=buckets, checks=checks, facts=facts, scope=scope,
        trajectory=trajectory, trajectory_tools=tools,
    )
