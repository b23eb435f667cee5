"""Reading one run out of the store: its record, its cases, buckets, failing checks and
diagnosis penalties (queries/report/*.sql)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rcaeval._paths import read_query
from rcaeval._vocab import UNFINISHED_BY_STATUS
from rcaeval.errors import NotFoundError
from rcaeval.metrics import compute_metrics
from rcaeval.report._integrity import integrity_of
from rcaeval.store import BUCKET_ORDER, Store

RUN_COLUMNS = ("run_id", "suite_id", "suite_version", "agent_spec", "agent_hash", "source",
               "audit_root", "status", "started_at", "finished_at", "judge_version", "notes",
               "agent_name", "sandbox")
CASE_STATUSES = ("judged", "errored", "timed_out")
"""Case run statuses the reports count by name, then the unfinished ones
(:func:`case_state`); any other status is counted as ``other``."""


def case_state(status: str | None, run_status: str | None) -> str | None:
    """A case run's status as the reports name it: for a case its run did not finish,
    ``interrupted`` (it was running when the run stopped) or ``pending`` (never started); a
    case of a run still in progress that is running is ``running``."""
    if status == "running" and run_status == "running":
        return status
    return UNFINISHED_BY_STATUS.get(status or "", status)
KNOWN_TOP1_METRIC = "suite_known_top1"


@dataclass(frozen=True)
class RunData:
    """Everything the reports and the baseline code read about one run."""

    run: dict[str, Any]
    """The eval_runs row (all columns; ``None`` where unknown). ``recorded`` says whether the
    run has an eval_runs row at all."""
    cases: pl.DataFrame
    buckets: pl.DataFrame
    failing_checks: pl.DataFrame
    penalties: pl.DataFrame
    semantic_lines: tuple[str, ...] = ()
    """The semantic shadow's report lines (rcaeval.semantic.report_lines); empty without."""
    known_top1: dict[str, Any] | None = None
    """The ``suite_known_top1`` metric row of the run (queries/metrics/suite_known_top1.sql):
    known cases whose answer names the registry's ground-truth family, with its interval."""
    file_problems: pl.DataFrame | None = None
    """Files extraction could not parse or read (queries/report/file_problems.sql)."""
    trajectory: pl.DataFrame | None = None
    """Per-case trajectory and efficiency (queries/report/trajectory.sql)."""
    integrity: dict[str, dict[str, Any]] | None = None
    """Per case, what the evidence seal and incident-data checks found
    (rcaeval.report._integrity)."""

    @property
    def run_id(self) -> str:
        return str(self.run["run_id"])

    @property
    def recorded(self) -> bool:
        return bool(self.run.get("recorded"))

    def case_rows(self) -> list[dict[str, Any]]:
        return self.cases.to_dicts()

    def buckets_of(self, case_id: str) -> list[dict[str, Any]]:
        return self.buckets.filter(pl.col("case_id") == case_id).to_dicts()

    def failing_checks_of(self, case_id: str) -> list[dict[str, Any]]:
        return self.failing_checks.filter(pl.col("case_id") == case_id).to_dicts()

    def file_problems_of(self, case_id: str) -> list[dict[str, Any]]:
        if self.file_problems is None:
            return []
        return self.file_problems.filter(pl.col("case_id") == case_id).to_dicts()

    def trajectory_of(self, case_id: str) -> dict[str, Any] | None:
        if self.trajectory is None or not self.trajectory.height:
            return None
        rows = self.trajectory.filter(pl.col("case_id") == case_id).to_dicts()
        return rows[0] if rows else None

    def penalties_of(self, case_id: str) -> list[dict[str, Any]]:
        return self.penalties.filter(pl.col("case_id") == case_id).to_dicts()


def _query(store: Store, name: str, params: dict[str, Any]) -> pl.DataFrame:
    return store.sql(read_query(f"report/{name}.sql"), params)


def load_run(store: Store, run_id: str) -> RunData:
    """The run ``run_id``; :class:`NotFoundError` when the store knows nothing of it."""
    order = {"run_id": run_id, "bucket_order": list(BUCKET_ORDER)}
    run_frame = _query(store, "run", {"run_id": run_id})
    cases = _query(store, "cases", order)
    if run_frame.is_empty() and cases.is_empty():
        known = store.sql(read_query("report/known_runs.sql"))
        hint = ", ".join(known["run_id"].to_list()) or "none"
        raise NotFoundError(f"run {run_id!r} is not in the store (runs: {hint})")
    if run_frame.is_empty():
        run: dict[str, Any] = {c: None for c in RUN_COLUMNS}
        run.update(run_id=run_id, recorded=False)
    else:
        run = {**run_frame.row(0, named=True), "recorded": True}
    return RunData(
        run=run,
        cases=cases,
        buckets=_query(store, "buckets", order),
        failing_checks=_query(store, "failing_checks", order),
        penalties=_query(store, "penalties", {"run_id": run_id}),
        semantic_lines=_semantic_lines(store, run_id),
        known_top1=compute_metrics(store.con, [KNOWN_TOP1_METRIC], {"run_id": run_id})
        .row(0, named=True),
        file_problems=_query(store, "file_problems", {"run_id": run_id}),
        trajectory=_query(store, "trajectory", {"run_id": run_id}),
        integrity=integrity_of(store, run_id),
    )


def _semantic_lines(store: Store, run_id: str) -> tuple[str, ...]:
    from rcaeval.semantic import report_lines

    return tuple(report_lines(store, run_id))


def case_audit_dir(run: dict[str, Any], case: dict[str, Any], audit_root: Path | None) -> Path:
    """Where a case's audit dir is: ``eval_case_runs.audit_path`` when set (a relative path is
    tried under the audit root first, then as given), else ``<audit_root>/<run_id>/<case_id>``.
    """
    root = audit_root if audit_root is not None else default_audit_root(run)
    recorded = case.get("audit_path")
    if recorded:
        path = Path(recorded)
        if path.is_absolute() or not (root / path).is_dir():
            return path
        return root / path
    return run_audit_dir(run, root) / str(case["case_id"])


def run_audit_dir(run: dict[str, Any], audit_root: Path | None = None) -> Path:
    """``<audit_root>/<run_id>``; when the recorded audit root is itself the run's dir (a run
    judged from one run dir), that dir."""
    root = audit_root if audit_root is not None else default_audit_root(run)
    run_id = str(run["run_id"])
    if root.name == run_id and not (root / run_id).is_dir():
        return root
    return root / run_id


def default_audit_root(run: dict[str, Any]) -> Path:
    """``eval_runs.audit_root`` when recorded, else ``<data>/eval_audits``."""
    from rcaeval._paths import data_dir

    recorded = run.get("audit_root")
    return Path(recorded) if recorded else data_dir() / "eval_audits"
