"""Re-judge from the store: the rules changed, the audits did not.

Every case run already extracted into the store (``raw_bundle``) is judged again against the
registry's current rules: rule tables and ``case_meta`` are reloaded, then only the SQL stages
run (:func:`rcaeval.judge.judge_loaded`). No audit file is read and nothing is re-extracted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from rcaeval._paths import read_query
from rcaeval._vocab import DEFAULT_CHUNK_SIZE
from rcaeval.errors import NotFoundError
from rcaeval.judge._audit import (
    _check_chunk_size,
    _registry_cases,
    _require_schema,
    judge_loaded,
    raw_connection,
    register_cases,
)
from rcaeval.judge._profiles import load_profiles
from rcaeval.judge._unloadable import record_unloadable
from rcaeval.judge._version import JUDGE_VERSION
from rcaeval.store import pin_utc


def rejudge_store(
    con: Any,
    registry_root: str | Path | None = None,
    *,
    run_id: str | None = None,
    out_dir: str | Path | None = None,
    scoring_profile: str | None = None,
    profiles_path: str | Path | None = None,
    write_files: bool = True,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    semantic: Any = None,
) -> pl.DataFrame:
    """Judge again every case run extracted into the store (``run_id``: only that run's)
    against the registry at ``registry_root`` (default ``$RCAEVAL_REGISTRY`` or
    ``data/registry``), from the raw rows already stored. Writes eval_* rows and (unless
    ``write_files`` is false) each judgment.json to ``out_dir/<run_id>/<case_id>/`` or back into
    the case dir extraction recorded. Returns one row per case run, as :func:`judge_audit`.

    Same raw rows and rules give the same judgments, byte for byte, as judging the audits;
    a case the registry no longer supplies is judged ``invalid`` like in :func:`judge_audit`.
    """
    from rcaeval.extract import CaseRef

    _check_chunk_size(chunk_size)
    db = raw_connection(con)
    _require_schema(db)
    pin_utc(db)
    rows = db.execute(read_query("judge/stored_case_runs.sql"), {"run_id": run_id}).fetchall()
    if not rows:
        raise NotFoundError("no extracted case runs in the store"
                            + (f" for run {run_id!r}" if run_id else "")
                            + ": judge the audits first (rcaeval judge AUDIT_DIR)")
    refs = [CaseRef(r, c, Path(d) if d else Path()) for r, c, d in rows]
    profiles = load_profiles(profiles_path)
    cases, failures = _registry_cases(registry_root, sorted({r.case_id for r in refs}))
    pairs = [(r.run_id, r.case_id) for r in refs if r.case_id in cases]
    frames: list[pl.DataFrame] = []
    if pairs:
        register_cases(db, pairs, cases, scoring_profile=scoring_profile)
        frames.append(judge_loaded(db, pairs, out_dir=out_dir, write_files=write_files,
                                   profiles=profiles, chunk_size=chunk_size,
                                   semantic=semantic, cases=cases))
    bad = record_unloadable(db, failures, refs, judge_version=JUDGE_VERSION, out_dir=out_dir,
                            write_files=write_files)
    if bad:
        frames.append(pl.DataFrame(bad))
    result = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    return result.sort(["run_id", "case_id"])
