"""Judging audit dirs: discover case dirs, load their cases from the registry, and hand the
keys to the judging session (:class:`rcaeval.judge._session.Judging`), which registers,
extracts, judges and records the unloadable cases. Also the compatible entry points
``register_cases`` / ``record_case_meta`` / ``judge_loaded`` over the session.

Python here only does I/O and sequencing; every decision is in ``queries/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._paths import registry_dir
from rcaeval._usage import MAX_COST_USD, MAX_TOKENS
from rcaeval._vocab import DEFAULT_CHUNK_SIZE, SUBTYPE_BUNDLE_ID_INVALID
from rcaeval.errors import InputError, RcaevalError
from rcaeval.judge._copies import cite_copies, find_copies, refuse_copies
from rcaeval.judge._manifest import statement
from rcaeval.judge._session import CaseRules, Connectable, Judging, check_chunk_size
from rcaeval.judge._unloadable import describe_load_error
from rcaeval.judge._version import JUDGE_VERSION
from rcaeval.store import registered

BULK_MEMORY_LIMIT = "1GB"
"""DuckDB ``memory_limit`` that ``rcaeval judge`` (and bench/bench_judge.py) sets on a file
store when neither ``--memory-limit`` nor ``$RCAEVAL_DB_MEMORY_LIMIT`` is given: ample for
:data:`DEFAULT_CHUNK_SIZE` cases per pass (about twice what such a pass needs on generated
runs) and keeps the buffer pool from growing with the number of runs (docs/judge.md)."""


def register_cases(
    con: Connectable,
    runs: Iterable[tuple[str, str]],
    cases: Mapping[str, CaseRules],
    *,
    scoring_profile: str | None = None,
) -> None:
    """Load rule tables for ``cases`` and ``case_meta`` rows for every ``(run_id, case_id)``
    of ``runs``. ``scoring_profile`` overrides each judge spec's ``scoring_profile``.
    (:meth:`Judging.register`.)"""
    Judging(con, scoring_profile=scoring_profile).register(runs, cases)


def record_case_meta(con: Connectable, runs: Iterable[tuple[str, str]],
                     cases: Mapping[str, CaseRules], *,
                     scoring_profile: str | None = None) -> None:
    """Upsert the ``case_meta`` rows (case type, cluster, window, rules hash, profile) of
    ``runs``. The runner records them for every case it starts, so a case that errors or is
    interrupted before it is judged keeps its case type. (:meth:`Judging.record_case_meta`.)"""
    Judging(con, scoring_profile=scoring_profile).record_case_meta(runs, cases)


def judge_loaded(
    con: Connectable,
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
    judgment written here is the same with or without it. (:meth:`Judging.judge_loaded`.)"""
    session = Judging(con, out_dir=out_dir, write_files=write_files, chunk_size=chunk_size,
                      semantic=semantic, profiles=profiles)
    return session.judge_loaded(keys, cases=cases)


def _registry_cases(
    registry_root: str | Path | None, case_ids: list[str],
) -> tuple[dict[str, CaseRules], dict[str, tuple[str, str]]]:
    """Load each case id from the registry. Returns the cases that loaded and, for the ones
    that did not (unknown id, or case.yaml/judge.yaml with problems), ``(subtype, reason)``."""
    from rcaeval._inputs import require_dir
    from rcaeval._paths import registry_dir
    from rcaeval.registry import load_case

    root = require_dir(registry_root if registry_root is not None else registry_dir(),
                       "registry", field="--registry")
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


_NO_RUNNER_FIELDS = dict.fromkeys(("suite_id", "suite_version", "agent_spec", "agent_hash",
                                   "notes", "agent_name", "sandbox"))
"""The eval_runs columns a run judged from an audit dir leaves NULL (store/insert_run.sql)."""


def _record_runs(con: duckdb.DuckDBPyConnection, audit_root: Path,
                 refs: list[Any], *, judged: bool = True) -> None:
    """eval_runs / eval_case_runs rows for judged audits that have none (a runner's own rows
    are left alone)."""
    run_ids = sorted({r.run_id for r in refs})
    for run_id in run_ids:
        con.execute(statement("write.runs", "record_runs", "store/insert_run.sql"), {
            "run_id": run_id, "source": "judge", "audit_root": str(audit_root),
            "judge_version": JUDGE_VERSION, **_NO_RUNNER_FIELDS})
    if judged:
        pairs = pa.table({"run_id": [r.run_id for r in refs], "case_id": [r.case_id for r in refs]})
        with registered(con, {"__rcaeval_judged": pairs}):
            con.execute(statement("write.runs", "record_runs", "judge/record_case_runs.sql"),
                        {"max_tokens": MAX_TOKENS, "max_cost": MAX_COST_USD})


def judge_audit(
    con: Connectable,
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
    from rcaeval.extract import discover_case_dirs

    check_chunk_size(chunk_size)
    session = Judging(con, out_dir=out_dir, write_files=write_files, chunk_size=chunk_size,
                      semantic=semantic, profiles_path=profiles_path,
                      scoring_profile=scoring_profile)
    db = session.con
    from rcaeval._inputs import require_dir

    root = require_dir(audit_root, "audit root", field="AUDIT_DIR")  # a file or FIFO: exit 3
    try:
        refs = discover_case_dirs(root)
    except FileNotFoundError as exc:
        from rcaeval.errors import NotFoundError

        raise NotFoundError(str(exc)) from exc
    if run_id is not None:
        all_runs = {r.run_id for r in refs}
        refs = [r for r in refs if r.run_id == run_id]
        if not refs and all_runs:  # a named run that is not there: exit 6, as docs/cli.md says
            from rcaeval.errors import NotFoundError

            shown = ", ".join(sorted(str(x) for x in all_runs)[:5])
            raise NotFoundError(f"no run {run_id!r} under {root} (its runs: {shown}"
                                + (", ..." if len(all_runs) > 5 else "") + ")")
    if not refs:
        raise InputError(f"no case dirs found under {root}"
                         + (f" for run {run_id!r}" if run_id else ""))
    copies = find_copies(db, refs)
    if not replace:
        refuse_copies(copies)
    session.load_profiles()
    cases, failures = _registry_cases(registry_root, sorted({r.case_id for r in refs}))
    # a manifest whose run_id/case_id cannot be a path part: that case is `invalid`
    bad_ids = {(r.run_id, r.case_id): (SUBTYPE_BUNDLE_ID_INVALID, r.id_problem)
               for r in refs if r.id_problem}
    good = [r for r in refs if r.case_id in cases and (r.run_id, r.case_id) not in bad_ids]

    base = Path(registry_root) if registry_root is not None else registry_dir()

    def bookkeeping() -> None:
        _record_runs(db, root, refs, judged=bool(good))
        cite_copies(db, copies)

    return session.judge([(r.run_id, r.case_id) for r in good], cases,
                         refs=[dataclasses.replace(r, registry_case=base / "cases" / r.case_id)
                               for r in refs if r.case_id in cases] if good else None,
                         workers=workers, progress=progress, failures=failures,
                         per_ref=bad_ids, unloadable=refs, bookkeeping=bookkeeping)
