"""Re-judge from the store: the rules changed, the audits did not.

Every case run already extracted into the store (``raw_bundle``) is judged again against the
registry's current rules: rule tables and ``case_meta`` are reloaded, then only the SQL stages
run (:meth:`rcaeval.judge.Judging.judge` without refs). No audit file is read and nothing is
re-extracted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from rcaeval._vocab import DEFAULT_CHUNK_SIZE
from rcaeval.errors import NotFoundError
from rcaeval.judge._audit import _registry_cases
from rcaeval.judge._manifest import statement
from rcaeval.judge._session import Connectable, Judging


def rejudge_store(
    con: Connectable,
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

    session = Judging(con, out_dir=out_dir, write_files=write_files, chunk_size=chunk_size,
                      semantic=semantic, profiles_path=profiles_path,
                      scoring_profile=scoring_profile)
    rows = session.con.execute(statement("load", "stored_keys", "judge/stored_case_runs.sql"),
                               {"run_id": run_id}).fetchall()
    if not rows:
        raise NotFoundError("no extracted case runs in the store"
                            + (f" for run {run_id!r}" if run_id else "")
                            + ": judge the audits first (rcaeval judge AUDIT_DIR)")
    refs = [CaseRef(r, c, Path(d) if d else Path()) for r, c, d in rows]
    session.load_profiles()
    cases, failures = _registry_cases(registry_root, sorted({r.case_id for r in refs}))
    return session.judge([(r.run_id, r.case_id) for r in refs if r.case_id in cases], cases,
                         failures=failures, unloadable=refs)
