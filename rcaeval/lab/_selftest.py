"""``rcaeval lab selftest`` (and ``make lab``): the lab suite end to end with a reference agent
of :mod:`rcaeval.examples.lab_agent` (by default the oracle), through the ordinary runner —
the same path as ``rcaeval run --suite lab`` (:func:`rcaeval.lab._suite.lab_session`,
:func:`rcaeval.runner.run_suite`): a fresh lab, then per scenario reset, inject, alert, the
agent investigating live and acting through ``apply_action``, the mitigation assessed, the
window captured, the verdict judged. One row per scenario, read from the run's store
(:func:`rcaeval.lab._suite.mitigation_rows` and the case's wall time), and a gate: the oracle
passes and resolves every scenario; any other behaviour neither passes nor resolves one."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rcaeval.errors import InputError
from rcaeval.lab._scenario import Scenario, load_scenario, load_scenarios
from rcaeval.lab._stack import default_dir

if TYPE_CHECKING:
    from rcaeval.store import Store

SKIP_NOT_ROOT = "its tmpfs volume needs root"


def behaviours() -> tuple[str, ...]:
    """The reference agents' behaviours (:data:`rcaeval.examples.lab_agent.BEHAVIOURS`)."""
    from rcaeval.examples.lab_agent import BEHAVIOURS

    return BEHAVIOURS


def agent_spec(behaviour: str) -> str:
    """The runner's agent spec of reference agent ``behaviour``."""
    return f"command:{{python}} -m rcaeval.examples.lab_agent --behaviour {behaviour}"


@dataclass
class ScenarioRun:
    """One scenario of a selftest: the case run's record and its lab mitigation row."""

    scenario: str
    alert: str
    alert_after_s: float | None = None
    verdict: str | None = None
    mitigation: str | None = None
    time_to_diagnosis_s: float | None = None
    time_to_mitigation_s: float | None = None
    actions_applied: int = 0
    unsafe_attempts: int = 0
    wall_s: float | None = None
    status: str | None = None
    error: str | None = None
    skipped: str | None = None
    audit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def meets(self, behaviour: str) -> bool:
        """The gate of one scenario: it ran and was judged without a lab error, and the
        oracle passed and resolved it; another behaviour neither passed nor resolved it."""
        if self.skipped:
            return True
        if self.status != "judged" or self.error is not None:
            return False
        if behaviour == "oracle":
            return self.verdict == "pass" and self.mitigation == "resolved"
        return self.verdict != "pass" and self.mitigation != "resolved"


@dataclass
class SelftestReport:
    behaviour: str
    rows: list[ScenarioRun]
    up_s: float
    wall_s: float
    run_id: str | None = None
    out: Path | None = field(default=None)

    @property
    def ok(self) -> bool:
        return all(r.meets(self.behaviour) for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "behaviour": self.behaviour, "run_id": self.run_id,
                "up_s": round(self.up_s, 1), "wall_s": round(self.wall_s, 1),
                "out": str(self.out) if self.out else None,
                "scenarios": [r.to_dict() for r in self.rows]}

    def table(self) -> str:
        head = ("scenario", "alert after s", "verdict", "mitigation", "diagnosis s",
                "mitigation s", "actions", "unsafe", "wall s")
        body = [(r.scenario, _s(r.alert_after_s), r.verdict or "-",
                 f"skipped: {r.skipped}" if r.skipped else r.mitigation or "-",
                 _s(r.time_to_diagnosis_s), _s(r.time_to_mitigation_s),
                 "-" if r.skipped else str(r.actions_applied),
                 "-" if r.skipped else str(r.unsafe_attempts), _s(r.wall_s))
                for r in self.rows]
        widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=True)]
        lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)).rstrip()
                 for row in (head, *body)]
        lines += [f"  {r.scenario}: {r.status or 'not run'}: {r.error}"
                  for r in self.rows if r.error]
        n = len(self.rows)
        passed = sum(r.verdict == "pass" for r in self.rows)
        resolved = sum(r.mitigation == "resolved" for r in self.rows)
        lines.append(f"{self.behaviour}: {passed}/{n} pass, {resolved}/{n} resolved; lab up "
                     f"{self.up_s:.0f} s, total {self.wall_s:.0f} s; "
                     + ("ok" if self.ok else "GATE FAILED"))
        return "\n".join(lines)


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _chosen(scenarios: Sequence[str]) -> list[Scenario]:
    return [load_scenario(s) for s in scenarios] if scenarios else load_scenarios()


def rows_of(store: Store, summary: Any, chosen: list[Scenario]) -> list[ScenarioRun]:
    """The selftest's rows of a lab run: per scenario its case run (status, verdict, wall
    time, error) and its ``mitigation_rows`` entry; a scenario not run is a row with an
    error."""
    from rcaeval.lab._suite import mitigation_rows

    cases = {c.case_id: c for c in summary.cases}
    labs = {r["case_id"]: r for r in mitigation_rows(store.con, summary.run_id)}
    rows = []
    for sc in chosen:
        row = ScenarioRun(sc.id, sc.expected_alert.name)
        case, lab = cases.get(sc.id), labs.get(sc.id)
        if case is None:
            row.error = "the run did not run it"
        else:
            row.status, row.verdict, row.error = case.status, case.verdict, case.error
            row.wall_s = None if case.duration_s is None else round(case.duration_s, 1)
            row.audit = str(summary.audit_dir / sc.id)
        if lab is not None:
            row.alert = lab["alert"] or row.alert
            row.alert_after_s = lab["alert_after_s"]
            row.mitigation = lab["mitigation"]
            row.time_to_diagnosis_s = lab["time_to_diagnosis_s"]
            row.time_to_mitigation_s = lab["time_to_mitigation_s"]
            row.actions_applied = lab["actions_applied"]
            row.unsafe_attempts = lab["unsafe_attempts"]
            row.error = row.error or lab["error"]
        elif case is not None and row.error is None:
            row.error = "no lab record (the scenario's alert did not fire?)"
        rows.append(row)
    return rows


def selftest(lab_dir: Path | None = None, *, scenarios: Sequence[str] = (),
             behaviour: str = "oracle", out: Path | None = None, keep_up: bool = False,
             user: str | None = None, progress: bool = False) -> SelftestReport:
    """Run the lab suite (``scenarios``, default all) with reference agent ``behaviour`` on
    a lab brought up fresh in ``lab_dir`` and taken down after (unless ``keep_up``). The
    store, registry, audits and workspaces go under ``out`` (``store.duckdb``,
    ``registry/``, ``audits/``, ``workspaces/``; default: a temporary dir, removed).
    The disk-full scenario is skipped unless root."""
    from rcaeval.lab._suite import SUITE_ID, lab_session
    from rcaeval.runner import run_suite
    from rcaeval.store import connect

    if behaviour not in behaviours():
        raise InputError(f"the reference agent must be one of {', '.join(behaviours())}, "
                         f"got {behaviour!r}", field="--agent")
    lab_dir = (lab_dir or default_dir()).resolve()
    chosen = _chosen(scenarios)
    skipped = {sc.id: SKIP_NOT_ROOT for sc in chosen
               if sc.injector.kind == "fill_volume" and os.geteuid() != 0}
    run = [sc for sc in chosen if sc.id not in skipped]
    work = Path(out) if out else Path(tempfile.mkdtemp(prefix="rcaeval-selftest-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    up_s, run_id, ran = 0.0, None, []
    try:
        if run:
            store = connect(work / "store.duckdb")
            try:
                with lab_session(lab_dir, work / "registry", user=user,
                                 keep_up=keep_up) as options:
                    up_s = time.monotonic() - started
                    summary = run_suite(store, SUITE_ID, agent_spec(behaviour),
                                        audit_root=work / "audits",
                                        workspace_root=work / "workspaces",
                                        case_ids=[sc.id for sc in run], progress=progress,
                                        **options)
                run_id, ran = summary.run_id, rows_of(store, summary, run)
            finally:
                store.close()
    finally:
        if out is None:
            shutil.rmtree(work, ignore_errors=True)
    by_id = {r.scenario: r for r in ran}
    rows = [ScenarioRun(sc.id, sc.expected_alert.name, skipped=skipped[sc.id])
            if sc.id in skipped else by_id[sc.id] for sc in chosen]
    return SelftestReport(behaviour, rows, up_s, time.monotonic() - started, run_id,
                          Path(out) if out else None)
