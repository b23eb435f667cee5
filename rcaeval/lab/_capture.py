"""`rcaeval lab capture`: freeze the running lab's incident window into an offline case with
the capture importer (``rcaeval.ingest.capture_case``): the live metrics over
``query_range``, plus what the live tools serve from the lab's own files — the logs (as
``incident/logs/service.log`` and ``postgres.log``), the change events, the top SQL, the alert
rules' checks and the ticket. The scenario (when named) gives the title and ground truth."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rcaeval.lab._live import TOPOLOGY, LabSource, live_metrics
from rcaeval.lab._scenario import Scenario
from rcaeval.tools import CaseData


def _log_text(lines: list[Any]) -> str:
    """The incident log format the tools read (``TS LEVEL [component] message``), each line
    at the line number of its live id (``L-postgres-00028`` is line 28): a live line that
    is not a log entry stays a blank line, so the captured case's ids are the live ones."""
    out, prev = [], 0
    for ln in sorted(lines, key=_line_no):
        no = _line_no(ln)
        if not ln.ts or no <= prev:
            continue
        out.append("\n" * (no - prev - 1))
        out.append(f"{ln.ts} {ln.level or 'INFO'} [{ln.component}] {ln.message}\n")
        prev = no
    return "".join(out)


def _line_no(ln: Any) -> int:
    return int(str(ln.id).rsplit("-", 1)[1])


def capture(out: Path, lab_dir: Path, *, scenario: Scenario | None = None,
            force: bool = False) -> Any:
    """Capture the lab's window (a minute before the injection, or since ``up``, to now)
    into the case dir ``out``; the capture importer's result."""
    from rcaeval.ingest import capture_case

    source = LabSource(lab_dir)
    data = CaseData(case_dir=lab_dir, cluster_id="lab")
    source.refresh(data)
    end = datetime.now(UTC)
    by_instance: dict[str, list[Any]] = {}
    for ln in data.logs:
        by_instance.setdefault(ln.instance, []).append(ln)
    extra: dict[str, Any] = {f"logs/{name}.log": _log_text(lines)
                             for name, lines in by_instance.items()}
    extra["events.json"] = {"events": data.events}
    extra["slow_queries.json"] = {"queries": data.queries}
    extra["alerts.json"] = {"checks": data.checks}
    extra["topology.json"] = {"cluster_id": "lab", **TOPOLOGY}
    if data.ticket:
        extra["ticket.json"] = data.ticket
    if data.unavailable:  # e.g. the database's views while its connection table is full
        extra["tool_status.json"] = {"unavailable": sorted(data.unavailable)}
    gt = scenario.ground_truth if scenario else None
    return capture_case(out, (source.start, end), prometheus=source.prom,
                        queries=live_metrics(), step="2s", cluster="lab",
                        title=scenario.title if scenario else None,
                        family=gt.family if gt else None, summary=gt.summary if gt else None,
                        force=force, extra=extra)
