"""The live backend of the incident tools: the same :class:`~rcaeval.tools.IncidentTools`
over a :class:`~rcaeval.tools.CaseData` that is refreshed from the running lab before
every call — metrics from Prometheus's HTTP API (``query_range`` from the window's start to
now, converted by the Prometheus importer so ids match a captured case), logs from the lab's
log files, events from the injector's log (as neutral change events, never the scenario), slow
SQL from ``pg_stat_statements``, component health from the scrape targets, alert checks from
Prometheus's rules. Calls are recorded into the bundle exactly as for a recorded case."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rcaeval.ingest import prometheus_series
from rcaeval.lab import _http
from rcaeval.lab._procs import LabError
from rcaeval.lab._stack import CONFIG, psql, read_state
from rcaeval.tools import CaseData, IncidentTools, LogLine, MemoryLogStore, record_time

CHECKS_SNAPSHOT = "logs/alert_checks.json"
"""The alert rules' checks as they stood when the injected scenario's alert fired: what
``get_alerts`` serves and a capture records while the scenario is injected (a check whose
status changed later would otherwise contradict what the agent was shown)."""
REFRESH_S = 2.0  # Prometheus scrapes every 2 s: fresher data does not exist
PG_LOG = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) UTC \[(\d+)\] (\S*?)\s?"
                    r"(LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|DETAIL|STATEMENT|HINT):\s+(.*)$")
PG_LEVEL = {"LOG": "INFO", "NOTICE": "INFO", "DETAIL": "INFO", "STATEMENT": "INFO",
            "HINT": "INFO", "WARNING": "WARN", "ERROR": "ERROR", "FATAL": "ERROR",
            "PANIC": "ERROR"}
TOPOLOGY = {"components": [
    {"name": "postgresql", "instances": ["postgres"], "role": "database"},
    {"name": "service", "instances": ["service"], "role": "http front end over the database"},
    {"name": "workload", "instances": ["workload"], "role": "pgbench clients (role app)"},
    {"name": "prometheus", "instances": ["prometheus"], "role": "metrics and alerting"},
    {"name": "pg_exporter", "instances": ["pg_exporter"], "role": "postgres metrics"},
    {"name": "node_exporter", "instances": ["node_exporter"], "role": "host metrics"},
]}


def live_metrics() -> list[str]:
    lines = (CONFIG / "live_metrics.txt").read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _service_logs(path: Path) -> list[LogLine]:
    out = []
    for no, line in enumerate(_lines(path), start=1):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        extra = {k: rec[k] for k in ("route", "aid", "status", "latency_ms") if k in rec}
        # one line, as a capture writes it: a line break in the message (a database error's
        # DETAIL) would split the captured entry and shift every later line's id
        msg = " ".join(str(rec.get("msg", "")).splitlines()) + (
            " " + json.dumps(extra, sort_keys=True) if extra else "")
        out.append(LogLine(id=f"L-service-{no:05d}", ts=rec.get("ts"),
                           at=record_time(rec.get("ts")),
                           level=str(rec.get("level", "info")).upper(), component="service",
                           instance="service", message=msg))
    return out


def _postgres_logs(path: Path) -> list[LogLine]:
    out = []
    for no, line in enumerate(_lines(path), start=1):
        m = PG_LOG.match(line)
        if not m:
            continue
        stamp, pid, who, level, msg = m.groups()
        ts = stamp.replace(" ", "T") + "Z"
        out.append(LogLine(id=f"L-postgres-{no:05d}", ts=ts, at=record_time(ts),
                           level=PG_LEVEL[level], component="postgresql", instance="postgres",
                           message=f"[{pid}] {who + ' ' if who else ''}{level}: {msg}"))
    return out


def _lines(path: Path) -> list[str]:
    """The complete lines of an append-only log: a last line without its newline is still
    being written, and is read (under the same line number, so the same id) once whole."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    lines = text.splitlines()
    return lines if text.endswith("\n") else lines[:-1]


def change_events(path: Path) -> list[dict[str, Any]]:
    """The injector's log as the change events an operator would see: a statement run by a
    role, a batch job started or stopped, a process stopped or started — never the scenario's
    name or its script, which would hand the agent the answer. The texts are the table
    ``config/change_events.yaml``."""
    table = _event_table()
    out = []
    for i, line in enumerate(_lines(path), start=1):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        entry = table.get(rec.get("kind")) if isinstance(rec, dict) else None
        spec = (entry or {}).get(rec.get("action")) if entry else None
        if not spec:
            continue
        fields = _Fields({**entry.get("defaults", {}),
                          **{k: v for k, v in rec.items() if v is not None}})
        fields["sql"] = " ".join(ln for ln in str(rec.get("sql", "")).splitlines()
                                 if ln.strip() and not ln.lstrip().startswith("--"))
        fields["argv"] = " ".join(str(a) for a in (rec.get("argv") or [])[:4])
        ev = {k: str(v).format_map(fields) for k, v in spec.items()}
        out.append({"id": f"EV-{i:04d}", "ts": rec.get("ts"), **ev})
    return out


class _Fields(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


_EVENTS: dict[str, Any] = {}


def _event_table() -> dict[str, Any]:
    if not _EVENTS:
        import yaml

        _EVENTS.update(yaml.safe_load((CONFIG / "change_events.yaml").read_text("utf-8")))
    return _EVENTS


class LabSource:
    """Reads the running lab in ``lab_dir`` into a :class:`CaseData`."""

    def __init__(self, lab_dir: Path, *, window_start: datetime | None = None) -> None:
        self.lab_dir = lab_dir
        state = read_state(lab_dir)
        if state is None:
            raise LabError(f"lab: not running in {lab_dir} (run `rcaeval lab up` first)")
        self.state = state
        started = record_time(state["started_at"])
        injected = record_time((state.get("scenario") or {}).get("injected_at"))
        # the window opens a minute before the injection (the healthy baseline), never
        # before the lab started
        self.start = window_start or (max(started, injected - timedelta(seconds=60))
                                      if injected else started)
        self.prom = f"http://127.0.0.1:{state['ports']['prometheus']}"

    def ticket(self, alerts: list[dict[str, Any]]) -> dict[str, Any]:
        return {"ticket_id": f"LAB-{int(self.start.timestamp())}", "source": "prometheus",
                "summary": "; ".join(f"{a['name']}: {a.get('summary', '')}" for a in alerts)
                or "lab incident", "cluster_id": "lab", "opened_at": _iso(self.start),
                "alerts": [{"name": a["name"], "state": "firing",
                            "severity": a["labels"].get("severity"),
                            "starts_at": a.get("active_at")} for a in alerts]}

    def series(self, end: datetime) -> list[dict[str, Any]]:
        span = max(1.0, (end - self.start).total_seconds())
        step = max(2.0, span / 900)
        out: list[dict[str, Any]] = []
        for sel in live_metrics():
            doc = _http.get_json(f"{self.prom}/api/v1/query_range", query=sel,
                                 start=f"{self.start.timestamp():.3f}",
                                 end=f"{end.timestamp():.3f}", step=f"{step:g}")
            if not doc or doc.get("status") != "success" or not doc["data"]["result"]:
                continue
            out += prometheus_series(doc, f"{self.prom} {sel}", name=sel).series
        return out

    def checks(self) -> list[dict[str, Any]]:
        """The alert rules' checks: the snapshot taken when the injected scenario's alert
        fired (:func:`rcaeval.lab._inject.wait_alert`), else the rules as they are now."""
        try:
            return json.loads((self.lab_dir / CHECKS_SNAPSHOT).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return self.live_checks()

    def live_checks(self) -> list[dict[str, Any]]:
        doc = _http.get_json(f"{self.prom}/api/v1/rules", type="alert")
        out = []
        for group in (doc or {}).get("data", {}).get("groups", []):
            for rule in group.get("rules", []):
                state = rule.get("state")
                alerts = rule.get("alerts") or []
                active = next((a.get("activeAt") for a in alerts), None)
                out.append({
                    "id": f"G-{rule['name']}", "name": rule["name"],
                    "status": {"firing": "fail", "pending": "warn"}.get(state, "pass"),
                    "detail": f"{state}: {rule.get('query')}" + (
                        f" — {alerts[0].get('annotations', {}).get('summary', '')}"
                        if alerts else ""),
                    "component": rule.get("labels", {}).get("component"),
                    "ts": active or _iso(datetime.now(UTC))})
        return out

    def components(self) -> list[dict[str, Any]]:
        got = _http.get_json(f"{self.prom}/api/v1/targets") or {}
        out = []
        for t in got.get("data", {}).get("activeTargets", []):
            out.append({"name": t["labels"].get("component", t["labels"].get("job")),
                        "instance": t["labels"].get("job"), "role": "scrape target",
                        "status": "Running" if t["health"] == "up" else "Unreachable",
                        "restarts": 0, "last_termination_reason": t.get("lastError") or None})
        return out

    def queries(self) -> list[dict[str, Any]]:
        text = psql(self.state, file="live_top_sql.sql", user="lab_ro", timeout_s=10)
        rows = json.loads(text.strip() or "[]") or []
        return [{"id": f"Q-{r['queryid']}", "kind": "top_sql", "instance": "postgres",
                 "sql_text": r["query"], "exec_count": r["calls"],
                 "avg_latency_ms": r["mean_ms"], "max_latency_ms": r["max_ms"],
                 "total_ms": r["total_ms"], "rows": r["rows"]} for r in rows]

    def refresh(self, data: CaseData) -> None:
        end = datetime.now(UTC)
        from rcaeval.lab._stack import firing_alerts

        alerts = firing_alerts(self.state)
        data.ticket = data.ticket or (self.ticket(alerts) if alerts else None)
        data.series = self.series(end)
        logs = self.lab_dir / "logs"
        data.log_store = MemoryLogStore(_service_logs(logs / "service.jsonl")
                                        + _postgres_logs(logs / "postgres.log"))
        data.events = change_events(logs / "injector.jsonl")
        data.checks = self.checks()
        data.components = self.components()
        try:  # while the connection table is full even the read-only role cannot connect
            data.queries = self.queries()
            data.unavailable = data.unavailable - {"queries"}
        except LabError:
            data.unavailable = data.unavailable | {"queries"}
        data.window_end = _iso(end)

    def case_data(self, prompt: str | None = None) -> CaseData:
        data = CaseData(case_dir=self.lab_dir, cluster_id="lab",
                        window_start=_iso(self.start),
                        window_end=_iso(datetime.now(UTC)), topology=dict(TOPOLOGY))
        self.refresh(data)
        data.prompt = prompt or ("An alert fired on the lab's PostgreSQL service. Investigate "
                                 "with the tools, find the root cause and submit a report.")
        return data


class LiveIncidentTools(IncidentTools):
    """:class:`IncidentTools` whose data is re-read from the lab before a call (at most every
    :data:`REFRESH_S` seconds); everything else — paging, ids, recording — is unchanged."""

    def __init__(self, source: LabSource, bundle_dir: str | Path,
                 prompt: str | None = None, *, seal_key: bytes | None = None) -> None:
        super().__init__(source.case_data(prompt), bundle_dir, seal_key=seal_key)
        self.source = source
        self._fresh_at = time.monotonic()
        self._refresh_lock = threading.Lock()
        self.history: list[tuple[str, str]] = []
        """The session's answered calls as ``(tool, result JSON)``: what ``apply_action``'s
        gate 3 reads for a prior read-only verification."""

    def call(self, tool: str, args: Mapping[str, Any], fn: Any, *,
             channel: str | None = None) -> dict[str, Any]:
        with self._refresh_lock:
            if time.monotonic() - self._fresh_at >= REFRESH_S:
                self.source.refresh(self.data)
                self.data_start, self.data_end = self.data.data_range()
                self._fresh_at = time.monotonic()
        result = super().call(tool, args, fn, channel=channel)
        self.history.append((tool, json.dumps(result, default=str)))
        return result
