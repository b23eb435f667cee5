"""``rcaeval case capture``: query live Prometheus / Alertmanager / Loki over an incident's
window (and read a ``kubectl get events -o json`` file), write the incident dir through the
importers, then draft the case as ``rcaeval case new``
does (docs/import.md, "case capture").

Nothing is written until every source has answered and been read: a bad query, an empty
window or an unreachable server leaves no trace. The incident dir is built in a hidden
temporary dir of the registry's ``cases/`` (the loader skips dot-dirs) and the case is
drafted from it by :func:`rcaeval.authoring.draft_case`, which stages, validates and renames
the case dir into place; the temporary dir is removed either way.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError
from rcaeval.ingest._alertmanager import ALERTS_FILE, CHECKS_KEY, AlertImport, alertmanager_checks
from rcaeval.ingest._common import Window
from rcaeval.ingest._incident import incident_update, merge_records, write_doc
from rcaeval.ingest._kube import events_in_window, kube_events
from rcaeval.ingest._live import (
    alertmanager_alerts,
    check_url,
    loki_query_range,
    parse_step,
    prometheus_query_range,
)
from rcaeval.ingest._loglines import Entry, write_entries
from rcaeval.ingest._loki import loki_doc_entries
from rcaeval.ingest._prometheus import SeriesImport, iso_time, merge_series, prometheus_series

MAX_COMPONENTS = 200


@dataclass
class CaptureResult:
    """What a capture wrote: the drafted case (a :class:`rcaeval.authoring.DraftedCase`),
    the series and alerts read, the step used, notes (queries with no data, skipped
    series, alerts outside the window) and the window captured (start, end)."""

    drafted: Any
    series: SeriesImport
    alerts: AlertImport
    step_s: float | None
    notes: list[str] = field(default_factory=list)
    log_lines: int = 0
    events: int = 0
    window: tuple[datetime, datetime] | None = None


def read_queries(path: str | os.PathLike[str]) -> list[str]:
    """A file of PromQL queries: one a line; blank lines and ``#`` comments are skipped."""
    from rcaeval._inputs import read_input

    raw = read_input(path, "config", field="--query-file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc.reason}", file=str(path),
                         line=raw[: exc.start].count(b"\n") + 1) from None
    out = [ln.strip() for ln in text.splitlines()]
    return [q for q in out if q and not q.startswith("#")]


def _topology(cluster: str | None, series: list[dict[str, Any]]) -> dict[str, Any] | None:
    comps: dict[tuple[str, str], dict[str, str]] = {}
    for s in series:
        labels = s.get("labels") or {}
        name = labels.get("service") or labels.get("job")
        inst = labels.get("instance") or labels.get("pod")
        if name and inst and len(comps) < MAX_COMPONENTS:
            comps.setdefault((name, inst), {"name": name, "instance": inst})
    if not cluster and not comps:
        return None
    doc: dict[str, Any] = {"components": [comps[k] for k in sorted(comps)]}
    if cluster:
        doc = {"cluster_id": cluster, **doc}
    return doc


def _ticket(case_id: str, cluster: str | None, checks: list[dict[str, Any]]
            ) -> dict[str, Any] | None:
    """What paged: the firing alerts, as the ticket the agent starts from."""
    firing = sorted((c for c in checks if c["status"] == "fail"), key=lambda c: c["ts"])
    if not firing:
        return None
    ticket: dict[str, Any] = {
        "ticket_id": f"capture-{case_id}", "source": "alertmanager",
        "summary": firing[0]["detail"], "opened_at": firing[0]["ts"],
        "alerts": [{k: c[k] for k in ("name", "severity", "ts") if c.get(k)} | {
            "state": "firing"} for c in firing]}
    if cluster:
        ticket["cluster_id"] = cluster
    return ticket


def _target(out: str | os.PathLike[str], force: bool) -> tuple[Path, str]:
    from rcaeval.authoring import check_case_id

    case_dir = Path(out)
    if case_dir.parent.name != "cases":
        raise InputError(f"--out must be a case dir inside a registry, REGISTRY/cases/CASE_ID "
                         f"(got {case_dir})", field="--out")
    case_id = check_case_id(case_dir.name)
    if case_dir.exists() and not force:
        raise InputError(f"case {case_id!r} already exists ({case_dir}); pass --force to "
                         "replace it", field="--out")
    return case_dir, case_id


def capture_case(out: str | os.PathLike[str], window: tuple[datetime, datetime], *,
                 prometheus: str | None = None, queries: Sequence[str] = (),
                 step: str | None = None, alertmanager: str | None = None,
                 loki: str | None = None, loki_queries: Sequence[str] = (),
                 kube_events_files: Sequence[str | os.PathLike[str]] = (),
                 cluster: str | None = None, title: str | None = None,
                 family: str | None = None, summary: str | None = None,
                 force: bool = False,
                 extra: Mapping[str, Any] | None = None) -> CaptureResult:
    """Capture ``window`` (aware datetimes) from the live APIs into the case dir ``out``
    (``REGISTRY/cases/CASE_ID``; ``cases/`` is created when missing): each of ``queries``
    over ``query_range`` of ``prometheus`` at ``step`` (default: about 600 points), the
    alerts of ``alertmanager`` active in the window, the lines of each LogQL query of
    ``loki_queries`` over ``query_range`` of ``loki``, and the events of each ``kubectl get
    events -o json`` file of ``kube_events_files`` in the window. Then the case is drafted
    from that incident data (:func:`rcaeval.authoring.draft_case`, with ``title``,
    ``family`` and ``summary``). No data at all in the window is an input error; nothing
    is written. ``extra`` adds incident files a caller read itself (the incident lab: logs,
    events, slow SQL): ``name`` → a JSON document, or text for a ``logs/NAME.log`` file."""
    from rcaeval._inputs import check_output_dir
    from rcaeval.authoring import draft_case

    case_dir, case_id = _target(out, force)
    check_output_dir(case_dir.parent, field="--out")
    if queries and not prometheus:
        raise InputError("a --query needs --prometheus (the server to ask)", field="--query")
    if bool(loki) != bool(loki_queries):
        raise InputError("--loki URL and --loki-query LOGQL go together", field="--loki")
    if not prometheus and not alertmanager and not loki and not kube_events_files:
        raise InputError("nothing to capture: give --prometheus with --query, --alertmanager, "
                         "--loki with --loki-query and/or --kube-events", field="--prometheus")
    if prometheus and not queries:
        raise InputError("--prometheus needs at least one --query (or --query-file)",
                         field="--query")
    for url, what in ((prometheus, "--prometheus"), (alertmanager, "--alertmanager"),
                      (loki, "--loki")):
        if url:
            check_url(url, what)
    start, end = window
    step_s = parse_step(step, start, end) if prometheus else None
    series, alerts, notes = SeriesImport(), AlertImport(), []
    for q in queries:
        got = prometheus_series(prometheus_query_range(str(prometheus), q, start, end,
                                                       float(step_s or 1)),
                                f"{prometheus} query {q!r}", name=q)
        if not got.series and not got.skipped:
            notes.append(f"query {q!r}: no data in the window")
        notes += [f"skipped {s}" for s in got.skipped]
        series.extend(got)
    if alertmanager:
        alerts = alertmanager_checks(alertmanager_alerts(alertmanager), alertmanager,
                                     window=window)
        notes += [f"skipped alert {s}" for s in alerts.skipped]
    entries = _loki_lines(str(loki), loki_queries, window, notes) if loki else []
    events = _kube_events(kube_events_files, window, notes)
    if not series.series and not alerts.checks and not entries and not events:
        raise InputError(f"no data in the window {iso_time(start.timestamp())}.."
                         f"{iso_time(end.timestamp())}: "
                         + ("; ".join(notes[:5]) or "no series, alerts, lines or events"),
                         field="--window")
    from rcaeval._inputs import make_output_dir

    cases = make_output_dir(case_dir.parent, field="--out")
    stage = Path(tempfile.mkdtemp(prefix=f".capture-{case_id}-", dir=cases))
    try:
        with incident_update(stage / "incident") as work:
            if series.series:
                merge_series(work, series.series)
            if alerts.checks:
                merge_records(work, ALERTS_FILE, CHECKS_KEY, alerts.checks)
            if entries:
                write_entries(work, entries)
            if events:
                merge_records(work, "events.json", "events", events)
            if topo := _topology(cluster, series.series):
                write_doc(work, "topology.json", topo)
            if ticket := _ticket(case_id, cluster, alerts.checks):
                write_doc(work, "ticket.json", ticket)
            for name, doc in (extra or {}).items():
                if isinstance(doc, str):
                    (work / name).parent.mkdir(parents=True, exist_ok=True)
                    (work / name).write_text(doc, encoding="utf-8")
                else:
                    write_doc(work, name, doc)
        drafted = draft_case(cases.parent, case_id, stage / "incident", family=family,
                             summary=summary, title=title, force=force)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return CaptureResult(drafted, series, alerts, step_s, notes, len(entries), len(events),
                         window)


def _loki_lines(loki: str, queries: Sequence[str], window: tuple[datetime, datetime],
                notes: list[str]) -> list[Entry]:
    """The lines of each LogQL query in the window (Loki answers streams)."""
    out: list[Entry] = []
    win = Window(*window)
    for q in queries:
        got = [e for doc in loki_query_range(loki, q, *window)
               for e in loki_doc_entries(doc, f"{loki} --loki-query {q!r}") if win.holds(e.at)]
        if not got:
            notes.append(f"loki query {q!r}: no lines in the window")
        out += got
    return out


def _kube_events(files: Sequence[str | os.PathLike[str]], window: tuple[datetime, datetime],
                 notes: list[str]) -> list[dict[str, Any]]:
    """The events of each ``kubectl get events -o json`` file in the window."""
    out: list[dict[str, Any]] = []
    for path in files:
        got = events_in_window(kube_events(Path(path)), Window(*window))
        if not got:
            notes.append(f"{path}: no event in the window")
        out += got
    return out
