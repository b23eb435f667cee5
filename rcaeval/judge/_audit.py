"""Judging orchestration: registry -> rule tables + case_meta -> extraction -> SQL -> packets.

Python here only does I/O and sequencing; every decision is in ``queries/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._paths import read_query, read_statement, registry_dir
from rcaeval._usage import MAX_COST_USD, MAX_TOKENS
from rcaeval._vocab import DEFAULT_CHUNK_SIZE
from rcaeval.errors import InputError, RcaevalError
from rcaeval.extract import RAW_TABLES
from rcaeval.judge._copies import cite_copies, find_copies, refuse_copies
from rcaeval.judge._load import (
    case_fields,
    case_meta_table,
    concat_rule_tables,
    load_case_meta,
    load_rules,
)
from rcaeval.judge._packet import build_packets, judgments_frame, write_packets, write_results
from rcaeval.judge._pipeline import detect_outputs, run_judge_sql, scope_keys
from rcaeval.judge._profiles import load_profiles
from rcaeval.judge._rules import compute_rules_hash, flatten_rules
from rcaeval.judge._unloadable import (
    SUBTYPE_BUNDLE_ID_INVALID,
    describe_load_error,
    record_unloadable,
)
from rcaeval.judge._version import JUDGE_VERSION
from rcaeval.store import (
    base_tables,
    checkpoint,
    checkpoints_deferred,
    pin_utc,
    release_cache,
)

BULK_MEMORY_LIMIT = "1GB"
"""DuckDB ``memory_limit`` that ``rcaeval judge`` (and bench/bench_judge.py) sets on a file
store when neither ``--memory-limit`` nor ``$RCAEVAL_DB_MEMORY_LIMIT`` is given: ample for
:data:`DEFAULT_CHUNK_SIZE` cases per pass (about twice what such a pass needs on generated
runs) and keeps the buffer pool from growing with the number of runs (docs/judge.md)."""


@dataclass(frozen=True)
class CaseRules:
    """One case as the judge needs it: the case.yaml-shaped dict (``case_type``,
    ``environment.cluster_id``, ``time_window``) and the judge spec dict (judge.yaml shape,
    defaults applied), with the registry's ``rules_hash`` when known."""

    case_id: str
    case_doc: Mapping[str, Any]
    judge_doc: Mapping[str, Any]
    rules_hash: str | None = None

    @property
    def effective_hash(self) -> str:
        return self.rules_hash or compute_rules_hash(self.judge_doc)


def raw_connection(con: Any) -> duckdb.DuckDBPyConnection:
    """The DuckDB connection of ``con`` (a connection, or a store object with ``.con``)."""
    inner = getattr(con, "con", con)
    if not isinstance(inner, duckdb.DuckDBPyConnection):
        raise TypeError(f"expected a DuckDB connection or a store, got {type(con).__name__}")
    return inner


def _require_schema(con: duckdb.DuckDBPyConnection) -> None:
    have = set(base_tables(con))
    need = {"case_meta", "raw_bundle", "rule_check", "eval_fact", "eval_judgment"}
    if not need <= have:
        raise InputError(
            f"the store lacks tables {sorted(need - have)}: open it with rcaeval.store.connect() "
            "so migrations 0001/0002 are applied"
        )


def register_cases(
    con: Any,
    runs: Iterable[tuple[str, str]],
    cases: Mapping[str, CaseRules],
    *,
    scoring_profile: str | None = None,
) -> None:
    """Load rule tables for ``cases`` and ``case_meta`` rows for every ``(run_id, case_id)``
    of ``runs``. ``scoring_profile`` overrides each judge spec's ``scoring_profile``."""
    con = raw_connection(con)
    _require_schema(con)
    runs = list(runs)
    used = sorted({c for _, c in runs})
    unknown = [c for c in used if c not in cases]
    if unknown:
        raise InputError(f"no registry case for case id(s) {unknown}")
    tables = concat_rule_tables(
        flatten_rules(cid, cases[cid].judge_doc, rules_hash=cases[cid].effective_hash)
        for cid in used
    )
    load_rules(con, tables)
    record_case_meta(con, runs, cases, scoring_profile=scoring_profile)


def record_case_meta(con: Any, runs: Iterable[tuple[str, str]], cases: Mapping[str, CaseRules],
                     *, scoring_profile: str | None = None) -> None:
    """Upsert the ``case_meta`` rows (case type, cluster, window, rules hash, profile) of
    ``runs``. The runner records them for every case it starts, so a case that errors or is
    interrupted before it is judged keeps its case type."""
    meta = []
    for run_id, case_id in runs:
        spec = cases[case_id]
        profile = scoring_profile or spec.judge_doc.get("scoring_profile") or "default"
        meta.append({
            "run_id": run_id, "case_id": case_id, "rules_hash": spec.effective_hash,
            "scoring_profile": profile, **case_fields(spec.case_doc),
        })
    if meta:
        load_case_meta(raw_connection(con), case_meta_table(meta))


def _check_chunk_size(chunk_size: int | None) -> None:
    if chunk_size is not None and chunk_size < 1:
        raise InputError(f"chunk_size must be >= 1, got {chunk_size}", field="chunk_size")


def _chunks(keys: pa.Table, chunk_size: int | None) -> Iterator[pa.Table]:
    """``keys`` in consecutive slices of ``chunk_size`` rows (one slice when ``None`` or when
    there are no keys, so an empty judging pass still yields an empty frame)."""
    if chunk_size is None or keys.num_rows <= chunk_size:
        yield keys
        return
    for start in range(0, keys.num_rows, chunk_size):
        yield keys.slice(start, chunk_size)


DETECTOR_BLOCK_CHUNKS = 10
"""Judging chunks per detector block: the output detectors run once over a block's case runs
(:func:`rcaeval.judge._pipeline.detect_outputs`), their fixed per-query cost (RE2 compiling
the grammar's regexes) paid once per block; a block keeps only its output sentences and
detector matches, a small fraction of a chunk's raw rows."""


def _blocks(keys: pa.Table, chunk_size: int | None) -> Iterator[pa.Table]:
    """``keys`` in slices of :data:`DETECTOR_BLOCK_CHUNKS` chunks (one when unchunked)."""
    return _chunks(keys, None if chunk_size is None else chunk_size * DETECTOR_BLOCK_CHUNKS)


def _oom_guard(con: duckdb.DuckDBPyConnection, n_runs: int, call: Any) -> Any:
    try:
        return call()
    except (duckdb.OutOfMemoryException, RuntimeError) as exc:
        oom = exc if isinstance(exc, duckdb.OutOfMemoryException) else exc.__cause__
        if not isinstance(oom, duckdb.OutOfMemoryException):
            raise
        limit = con.execute(read_query("store/current_memory_limit.sql")).fetchall()[0][0]
        raise InputError(
            f"DuckDB ran out of memory judging {n_runs} case runs in one pass "
            f"(memory_limit {limit}): raise it (--memory-limit, $RCAEVAL_DB_MEMORY_LIMIT, "
            f"connect(memory_limit=...)) or lower the chunk size (--chunk-size). {oom}",
            field="memory_limit",
        ) from exc


def judge_loaded(
    con: Any,
    keys: Iterable[tuple[str, str]] | None = None,
    *,
    out_dir: str | Path | None = None,
    write_files: bool = True,
    profiles: dict[str, Any] | None = None,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    semantic: Any = None,
    cases: Mapping[str, CaseRules] | None = None,
) -> pl.DataFrame:
    """Judge (run, case) pairs whose raw rows, rules and case_meta are already loaded; write
    eval_fact/eval_check/eval_bucket/eval_judgment and (``write_files``) each judgment.json to
    ``out_dir/<run_id>/<case_id>/`` or, without ``out_dir``, into the case dir recorded by
    extraction. Returns one row per judgment (verdict, subtype, score, bucket statuses),
    ordered by (run_id, case_id).

    Every key is validated first (case_meta row, rules, scoring profile), then the keys are
    judged ``chunk_size`` at a time (``None``: all in one pass), each chunk's eval_* rows
    written in one transaction, so memory is bounded by the chunk, not by the number of runs.
    Results are identical whatever the chunk size: judging is per (run, case). Afterwards the
    TEMP ``j_*`` tables hold the last chunk.

    ``semantic`` (a :class:`rcaeval.semantic.SemanticConfig`) adds the semantic shadow after
    each chunk (docs/semantic.md); ``cases`` gives it the ground truth. The deterministic
    judgment written here is the same with or without it."""
    _check_chunk_size(chunk_size)
    con = raw_connection(con)
    _require_schema(con)
    profiles = profiles if profiles is not None else load_profiles()
    all_keys = scope_keys(con, keys, profiles=profiles)
    judged_at = datetime.now(UTC)
    parts: list[pl.DataFrame] = []
    with checkpoints_deferred(con):
        for block in _blocks(all_keys, chunk_size):
            if parts:
                _release_chunk_inputs(con)
            _oom_guard(con, block.num_rows, lambda b=block: detect_outputs(con, b))
            for i, chunk in enumerate(_chunks(block, chunk_size)):
                if i:
                    _release_chunk_inputs(con)
                parts.append(_judge_one(con, chunk, profiles, out_dir=out_dir,
                                        write_files=write_files, judged_at=judged_at,
                                        semantic=semantic, cases=cases))
    return parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical")


def _release_chunk_inputs(con: duckdb.DuckDBPyConnection) -> None:
    """Between chunks (and before a detector block): drop the last chunk's input tables,
    checkpoint what its commit wrote, and give DuckDB's cached blocks back
    (``rcaeval.store.release_cache``), so each chunk starts from the same memory whatever
    the store's size and the number of chunks before it. The checkpoint runs here, not in
    the chunk's commit (``checkpoints_deferred``), so that its own memory comes on top of
    the least the judge holds."""
    for table in RAW_TABLES:
        if table != "raw_bundle":
            con.execute(read_statement("judge/drop_chunk_input.sql", table=table))
    checkpoint(con)
    release_cache(con)


def _judge_one(con: duckdb.DuckDBPyConnection, chunk: pa.Table, profiles: dict[str, Any], *,
               out_dir: str | Path | None, write_files: bool, judged_at: datetime,
               semantic: Any, cases: Mapping[str, CaseRules] | None) -> pl.DataFrame:
    """Judge one chunk whose detector block already ran; write its eval_* rows and packets."""
    frames = _oom_guard(con, chunk.num_rows, lambda: run_judge_sql(
        con, chunk, profiles=profiles, detected=True))
    packets = build_packets(frames, judge_version=JUDGE_VERSION)
    write_results(con, frames, packets, judge_version=JUDGE_VERSION, judged_at=judged_at)
    if write_files:
        case_dirs = {
            (r["run_id"], r["case_id"]): r["case_dir"]
            for r in frames.scope.iter_rows(named=True)
        }
        write_packets(packets, case_dirs, out_dir)
    if semantic is not None:
        from rcaeval.semantic import shadow_chunk

        shadow_chunk(con, frames, config=semantic, cases=cases, profiles=profiles,
                     out_dir=out_dir, write_files=write_files, judged_at=judged_at)
    return judgments_frame(frames)


def _registry_cases(
    registry_root: str | Path | None, case_ids: list[str],
) -> tuple[dict[str, CaseRules], dict[str, tuple[str, str]]]:
    """Load each case id from the registry. Returns the cases that loaded and, for the ones
    that did not (unknown id, or case.yaml/judge.yaml with problems), ``(subtype, reason)``."""
    from rcaeval._paths import registry_dir
    from rcaeval.registry import load_case

    root = Path(registry_root) if registry_root is not None else registry_dir()
    if not root.is_dir():
        from rcaeval.errors import NotFoundError

        raise NotFoundError(f"registry {root} does not exist")
    out: dict[str, CaseRules] = {}
    failures: dict[str, tuple[str, str]] = {}
    for cid in case_ids:
        try:
            merged = load_case(root, cid)
        except (InputError, RcaevalError) as exc:
            failures[cid] = describe_load_error(exc)
            continue
        out[cid] = CaseRules(
            case_id=cid,
            case_doc=merged.case.model_dump(mode="json"),
            judge_doc=merged.judge.model_dump(mode="json"),
            rules_hash=merged.rules_hash,
        )
    return out, failures


def _record_runs(con: duckdb.DuckDBPyConnection, audit_root: Path,
                 refs: list[Any], *, judged: bool = True) -> None:
    """eval_runs / eval_case_runs rows for judged audits that have none (a runner's own rows
    are left alone)."""
    run_ids = sorted({r.run_id for r in refs})
    for run_id in run_ids:
        con.execute(read_query("judge/record_run.sql"), {
            "run_id": run_id, "audit_root": str(audit_root), "judge_version": JUDGE_VERSION})
    if judged:
        pairs = pa.table({"run_id": [r.run_id for r in refs], "case_id": [r.case_id for r in refs]})
        con.register("__rcaeval_judged", pairs)
        try:
            con.execute(read_query("judge/record_case_runs.sql"),
                        {"max_tokens": MAX_TOKENS, "max_cost": MAX_COST_USD})
        finally:
            con.unregister("__rcaeval_judged")


def judge_audit(
    con: Any,
    audit_root: str | Path,
    registry_root: str | Path | None = None,
    *,
    out_dir: str | Path | None = None,
    run_id: str | None = None,
    scoring_profile: str | None = None,
    profiles_path: str | Path | None = None,
    workers: int | None = None,
    progress: bool = False,
    write_files: bool = True,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    semantic: Any = None,
    replace: bool = False,
) -> pl.DataFrame:
    """Judge every case dir under ``audit_root`` (an audits root ``<root>/<run_id>/<case_id>``
    or one run dir) against the registry at ``registry_root`` (default: ``$RCAEVAL_REGISTRY``
    or ``data/registry``).

    Steps: discover case dirs (``run_id`` keeps one run) -> load each case from the registry
    -> rule tables + case_meta -> ``rcaeval.extract.extract_cases`` -> facts, checks, buckets,
    verdicts (SQL) -> eval_* rows and judgment.json files (``out_dir/<run>/<case>/`` or the
    case dir). Returns one row per judged case. ``con`` is a DuckDB connection or a
    ``rcaeval.store`` store, migrated (0001 + 0002).

    Extraction streams in batches; the SQL judge then runs ``chunk_size`` cases per pass
    (see :func:`judge_loaded`), so peak memory does not grow with the number of runs. Bound
    DuckDB's own buffer pool with ``rcaeval.store.connect(memory_limit=...)``.
    ``semantic``: a :class:`rcaeval.semantic.SemanticConfig` to run the semantic shadow
    (docs/semantic.md).

    A case dir whose run and case ids the store already holds from another dir (a copy of a
    recorded run) is an :class:`InputError` unless ``replace``; with ``replace`` its
    judgment replaces the stored one and the case run cites the copy's dir.
    """
    from rcaeval.extract import discover_case_dirs, extract_cases

    _check_chunk_size(chunk_size)
    db = raw_connection(con)
    _require_schema(db)
    pin_utc(db)
    root = Path(audit_root)
    try:
        refs = discover_case_dirs(root)
    except FileNotFoundError as exc:
        from rcaeval.errors import NotFoundError

        raise NotFoundError(str(exc)) from exc
    if run_id is not None:
        refs = [r for r in refs if r.run_id == run_id]
    if not refs:
        raise InputError(f"no case dirs found under {root}"
                         + (f" for run {run_id!r}" if run_id else ""))
    copies = find_copies(db, refs)
    if not replace:
        refuse_copies(copies)
    profiles = load_profiles(profiles_path)
    cases, failures = _registry_cases(registry_root, sorted({r.case_id for r in refs}))
    # a manifest whose run_id/case_id cannot be a path part: that case is `invalid`
    bad_ids = {(r.run_id, r.case_id): (SUBTYPE_BUNDLE_ID_INVALID, r.id_problem)
               for r in refs if r.id_problem}
    good = [r for r in refs if r.case_id in cases and (r.run_id, r.case_id) not in bad_ids]
    frames: list[pl.DataFrame] = []
    if good:
        pairs = [(r.run_id, r.case_id) for r in good]
        register_cases(db, pairs, cases, scoring_profile=scoring_profile)
        base = Path(registry_root) if registry_root is not None else registry_dir()
        extract_cases(db, [dataclasses.replace(r, registry_case=base / "cases" / r.case_id)
                           for r in refs if r.case_id in cases], workers=workers,
                      progress=progress)
        frames.append(judge_loaded(db, pairs, out_dir=out_dir, write_files=write_files,
                                   profiles=profiles, chunk_size=chunk_size,
                                   semantic=semantic, cases=cases))
    _record_runs(db, root, refs, judged=bool(good))
    cite_copies(db, copies)
    bad = record_unloadable(db, failures, refs, judge_version=JUDGE_VERSION, out_dir=out_dir,
                            write_files=write_files, per_ref=bad_ids)
    if bad:
        frames.append(pl.DataFrame(bad))
    result = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    return result.sort(["run_id", "case_id"])
