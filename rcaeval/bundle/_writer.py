"""``BundleWriter``: write a run bundle that follows the contract, validating as it writes.

Every ``add_*`` call checks the record against docs/bundle-contract.md and raises
:class:`BundleError` (naming the rule) instead of writing something the judge would reject;
every call leaves the bundle on disk complete and consistent (files are replaced atomically),
so an agent that dies half-way still leaves a judgeable bundle. A writer opened on a directory
that already holds a bundle continues it (records are merged by id), so several processes -
one per prompt turn, tool servers started per call, a server restarted by its client - can
share one bundle: every write holds the bundle lock and re-reads what others wrote
(:mod:`rcaeval.bundle._lock`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from rcaeval._seal import SEAL_FILE, Sealer
from rcaeval._vocab import EVIDENCE_CHANNELS
from rcaeval.bundle import _contract as C
from rcaeval.bundle._basics import (
    BundleError,
    _dump,
    _load,
    append_bytes,
    check_id,
    parse_time,
    record,
    utc_now,
)
from rcaeval.bundle._lock import BundleLock, Signature, locked, signature
from rcaeval.bundle._writer_analysis import AnalysisWriter

STATE_FILES = (C.REPORT, *C.CHANNEL_FILES.values(), "evidences/collection_errors.json",
               "evidences/component_health.json", C.GATE_CHECKS, C.TRACES, C.PATCH, SEAL_FILE)
"""The files a writer's state is read from (and re-read when another process changed one)."""


class BundleWriter(AnalysisWriter):
    """Write ``root`` as a run bundle (the workspace root, or ``workspace/<id>/``).

    >>> w = BundleWriter(ws, cluster_id="prod-1", time_window=("2026-10-03T14:00:00Z",
    ...                                                         "2026-10-03T15:00:00Z"))
    >>> w.milestone("architecture_context.loaded")
    >>> w.add_log_entries([{"id": "L-1", "ts": "...", "level": "FATAL", "message": "panic"}])
    >>> w.add_finding("tikv-2 panicked", [("log", "L-1")])
    >>> w.final_answer("## Root cause\\n\\ntikv-2 panicked ...")
    """

    def __init__(
        self,
        root: str | Path,
        *,
        cluster_id: str | None = None,
        time_window: tuple[str, str] | Mapping[str, str] | None = None,
        diagnosis_run_id: str | None = None,
        seal_key: bytes | None = None,
    ) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        if time_window is not None:
            start, end = (time_window["start"], time_window["end"]) \
                if isinstance(time_window, Mapping) else time_window
            if parse_time(start, "time_window.start") > parse_time(end, "time_window.end"):
                raise BundleError("time_window", f"start {start} is after end {end}")
            self._override: dict[str, Any] = {"time_window": {"start": start, "end": end}}
        else:
            self._override = {}
        if cluster_id is not None:
            if not isinstance(cluster_id, str) or not cluster_id.strip():
                raise BundleError("cluster_id", f"cluster_id must be a non-empty string, got "
                                  f"{cluster_id!r}")
            self._override["cluster_id"] = cluster_id
        self._run_id = diagnosis_run_id
        self._sealer = Sealer(seal_key) if seal_key else None
        self._lock = BundleLock(self.root)
        self._sig: tuple[bytes, Signature] | None = None
        with self.exclusive():
            self.flush()

    @contextmanager
    def exclusive(self) -> Iterator[BundleWriter]:
        """Hold the bundle lock (re-entrant) for a series of writes; the writer's state is
        first re-read from disk when another process changed it. Every mutating method
        takes it itself; hold it around several calls that must see one state (a tool call:
        check refs, then write)."""
        took = self._lock.acquire()
        seen: tuple[bytes, Signature] | None = None
        try:
            if took:
                seen = (self._lock.generation(), signature(self.root, STATE_FILES))
                if self._sig != seen:
                    self._load_state()
            yield self
        finally:
            if seen is not None:
                now = signature(self.root, STATE_FILES)
                gen = self._lock.bump() if now != seen[1] else seen[0]
                self._sig = (gen, now)
            self._lock.release()

    def _load_state(self) -> None:
        prev = self._read_report()
        meta = prev.get("metadata") if isinstance(prev.get("metadata"), dict) else {}
        meta.update(self._override)
        meta.setdefault("diagnosis_run_id", self._run_id or "dr-" + hashlib.sha1(
            str(self.root.resolve()).encode()).hexdigest()[:10])
        self.metadata: dict[str, Any] = meta
        self.records: dict[str, dict[str, dict[str, Any]]] = {}
        for ch in C.CHANNELS:
            path = self.root / C.CHANNEL_FILES[ch]
            self.records[ch] = {r["id"]: r for r in _load(path, C.LIST_KEYS[C.CHANNEL_FILES[ch]])
                                if isinstance(r.get("id"), str)}
        chans = prev.get("channels") if isinstance(prev.get("channels"), dict) else {}
        self.channels: dict[str, dict[str, Any]] = {
            ch: dict(chans.get(ch)) if isinstance(chans.get(ch), dict) else
            {"attempted": False, "status": "not_collected", "count": 0} for ch in C.CHANNELS}
        self.errors = _load(self.root / "evidences/collection_errors.json", "errors")
        self.components = _load(self.root / "evidences/component_health.json", "components")
        self.checks = {str(c.get("id") or c.get("name")): c
                       for c in _load(self.root / C.GATE_CHECKS, "checks")}
        self.spans = {str(x["id"]): x for x in _load(self.root / C.TRACES, "spans")
                      if isinstance(x.get("id"), str)}
        self.findings = _load(self.root / C.PATCH, "items")
        self.analysis: dict[str, Any] = prev.get("analysis") if isinstance(
            prev.get("analysis"), dict) else {}
        if self._sealer is not None:
            path = self.root / SEAL_FILE
            self._sealer.load(orjson.loads(path.read_bytes()) if path.is_file() else None)

    def _seal(self, file: str, rid: str, rec: Any) -> None:
        if self._sealer is not None:
            self._sealer.seal(file, rid, rec)

    # -- telemetry ---------------------------------------------------------------------------
    def milestone(self, event: str, *, status: str = "ok", tool: str | None = None,
                  detail: str | None = None, **extra: Any) -> None:
        """Append one telemetry line; ``event`` must be a name the judge knows
        (:data:`rcaeval.bundle.MILESTONES`), ``tool.call``/``tool.error`` need ``tool``."""
        if event not in C.MILESTONES:
            raise BundleError("telemetry_event", f"unknown milestone {event!r}; the judge "
                              f"knows: {', '.join(C.MILESTONES)}")
        if event.startswith("tool.") and not tool:
            raise BundleError("telemetry_tool", f"{event} needs the tool name")
        line: dict[str, Any] = {"ts": utc_now(), "event": event, "status": status}
        if tool:
            line["tool"] = tool
        if detail is not None:
            line["detail"] = detail
        line.update(extra)
        append_bytes(self.root, C.TELEMETRY,
                     orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE, default=str))

    # -- evidence ----------------------------------------------------------------------------
    @locked
    def attempt(self, channel: str, *, count_only: bool = False) -> None:
        """Mark ``channel`` as queried (the report's ``channels.<c>.attempted``)."""
        if channel not in C.CHANNELS:
            raise BundleError("channel", f"unknown channel {channel!r} ({', '.join(C.CHANNELS)})")
        ch = self.channels[channel]
        ch["attempted"] = True
        if ch.get("status") != "error":
            ch["status"] = "ok" if self.records[channel] else "empty"
        ch["count"] = len(self.records[channel])
        if not count_only:
            self.flush()

    @locked
    def channel_error(self, channel: str, error: str, *, source: str = "agent") -> None:
        """Record that ``channel`` could not be collected (``collection_errors.json``); a
        channel of the report (:data:`CHANNELS`) also gets status ``error`` there."""
        if channel not in EVIDENCE_CHANNELS:
            raise BundleError("channel", f"unknown channel {channel!r} "
                              f"({', '.join(EVIDENCE_CHANNELS)})")
        if channel in C.CHANNELS:
            self.attempt(channel, count_only=True)
            self.channels[channel]["status"] = "error"
        self.errors.append({"channel": channel, "source": source, "error": str(error),
                            "ts": utc_now()})
        self.flush()

    @locked
    def add_log_entries(self, entries: Iterable[Mapping[str, Any]]) -> list[str]:
        out = []
        for i, e in enumerate(entries):
            e = record(e, "log_entry", f"logs entry {i}")
            rid = check_id(e.get("id"), f"logs entry {i}")
            if not isinstance(e.get("message"), str):
                raise BundleError("log_entry", f"log {rid}: message must be a string")
            if e.get("ts") is not None:
                parse_time(e["ts"], f"log {rid} ts")
            self.records["logs"][rid] = dict(e)
            self._seal(C.CHANNEL_FILES["logs"], rid, self.records["logs"][rid])
            out.append(rid)
        return self._added("logs", out)

    @locked
    def add_series(self, series: Iterable[Mapping[str, Any]]) -> list[str]:
        out = []
        for i, s in enumerate(series):
            s = record(s, "metric_series", f"metrics series {i}")
            rid = check_id(s.get("id"), f"metrics series {i}")
            name, labels = s.get("name"), s.get("labels") or {}
            if not isinstance(name, str) or not name:
                raise BundleError("metric_series", f"series {rid}: name must be a string")
            if not isinstance(labels, Mapping) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
                raise BundleError("metric_series", f"series {rid}: labels must map strings to "
                                  "strings")
            points = {}
            if not isinstance(s.get("points") or [], (list, tuple)):
                raise BundleError("metric_series", f"series {rid}: points must be a list")
            for j, p in enumerate(s.get("points") or []):
                if (not isinstance(p, (list, tuple)) or len(p) != 2 or isinstance(p[1], bool)
                        or not isinstance(p[1], (int, float))):
                    raise BundleError("metric_point", f"series {rid} point {j}: expected "
                                      f"[timestamp, number], got {p!r}")
                parse_time(p[0], f"series {rid} point {j}")
                points[p[0]] = [p[0], float(p[1])]
            old = self.records["metrics"].get(rid)
            if old is not None and self._sealer is not None and not self._sealer.holds(
                    C.CHANNEL_FILES["metrics"], rid, old):
                old = None  # edited on disk: the tools' points replace it, nothing is merged
            if old is not None:
                if old.get("name") != name or (old.get("labels") or {}) != dict(labels):
                    raise BundleError("evidence_id", f"series id {rid} already names "
                                      f"{old.get('name')} {old.get('labels')}")
                points = {p[0]: p for p in old.get("points") or []} | points
            rec = {**(old or {}), **dict(s), "labels": dict(labels)}
            rec["points"] = sorted(points.values(), key=lambda p: parse_time(p[0], "point"))
            self.records["metrics"][rid] = rec
            self._seal(C.CHANNEL_FILES["metrics"], rid, rec)
            out.append(rid)
        return self._added("metrics", out)

    @locked
    def add_queries(self, queries: Iterable[Mapping[str, Any]]) -> list[str]:
        out = []
        for i, q in enumerate(queries):
            q = record(q, "query_kind", f"queries record {i}")
            rid = check_id(q.get("id"), f"queries record {i}")
            kind = q.get("kind", "slow_query")
            if kind not in C.QUERY_KINDS:
                raise BundleError("query_kind", f"query {rid}: kind {kind!r} is not one of "
                                  f"{', '.join(C.QUERY_KINDS)}")
            self.records["queries"][rid] = {**dict(q), "kind": kind}
            self._seal(C.CHANNEL_FILES["queries"], rid, self.records["queries"][rid])
            out.append(rid)
        return self._added("queries", out)

    @locked
    def add_events(self, events: Iterable[Mapping[str, Any]]) -> list[str]:
        out = []
        for i, e in enumerate(events):
            e = record(e, "evidence_id", f"events record {i}")
            rid = check_id(e.get("id"), f"events record {i}")
            if e.get("ts") is not None:
                parse_time(e["ts"], f"event {rid} ts")
            self.records["events"][rid] = dict(e)
            self._seal(C.CHANNEL_FILES["events"], rid, self.records["events"][rid])
            out.append(rid)
        return self._added("events", out)

    def _added(self, channel: str, ids: list[str]) -> list[str]:
        self.attempt(channel)
        return ids

    @locked
    def set_component_health(self, components: Iterable[Mapping[str, Any]]) -> None:
        merged = {(c.get("name"), c.get("instance")): c for c in self.components}
        for i, c in enumerate(components):
            c = record(c, "component", f"component {i}")
            if not isinstance(c.get("name"), str) or not c["name"]:
                raise BundleError("component", f"component {i}: name must be a string")
            merged[(c.get("name"), c.get("instance"))] = dict(c)
            self._seal("evidences/component_health.json",
                       f"{c['name']}@{c.get('instance') or ''}", merged[(c["name"],
                                                                        c.get("instance"))])
        self.components = list(merged.values())
        _dump(self.root, "evidences/component_health.json", {"components": self.components})
        self._dump_seals()

    @locked
    def add_gate_checks(self, checks: Iterable[Mapping[str, Any]]) -> list[str]:
        """Alert-rule / gate-check evaluations into ``evidences/gate_checks.json`` (the
        alerts channel), merged by id; returns their ids.

        Each check needs a ``name``, a ``status`` (``pass``/``fail``/``warn``: ``fail`` when
        the rule fired or the gate failed) and a ``detail`` string (what critical-evidence
        checks match, ``$.checks[*].detail``). ``id`` defaults to ``G-<name>``.
        """
        out = []
        for i, c in enumerate(checks):
            c = record(c, "gate_check", f"gate check {i}")
            name, status, detail = c.get("name"), c.get("status"), c.get("detail")
            if not isinstance(name, str) or not name.strip():
                raise BundleError("gate_check", f"gate check {i}: name must be a non-empty "
                                  "string")
            rid = check_id(c["id"] if c.get("id") is not None else
                           "G-" + re.sub(r"[^A-Za-z0-9_.:-]+", "_", name.strip()),
                           f"gate check {name!r}")
            if status not in C.GATE_STATUSES:
                raise BundleError("gate_check", f"gate check {rid}: status {status!r} is not "
                                  f"one of {', '.join(C.GATE_STATUSES)}")
            if not isinstance(detail, str):
                raise BundleError("gate_check", f"gate check {rid}: detail must be a string")
            self.checks[rid] = {"id": rid, **{k: v for k, v in c.items() if k != "id"}}
            self._seal(C.GATE_CHECKS, rid, self.checks[rid])
            out.append(rid)
        _dump(self.root, C.GATE_CHECKS, {"checks": list(self.checks.values())})
        self._dump_seals()
        return out

    @locked
    def add_spans(self, spans: Iterable[Mapping[str, Any]]) -> list[str]:
        """Trace spans into ``evidences/traces.json`` (the traces channel), merged by id;
        returns their ids. Each span needs ``trace_id``, ``span_id``, ``service`` and
        ``operation`` strings and a ``status`` (``error``/``ok``/``unset``); ``id`` defaults
        to ``T-<trace_id>-<span_id>``."""
        out = []
        for i, sp in enumerate(spans):
            sp = record(sp, "trace_span", f"span {i}")
            for key in ("trace_id", "span_id", "service", "operation"):
                if not isinstance(sp.get(key), str) or not sp[key].strip():
                    raise BundleError("trace_span", f"span {i}: {key} must be a non-empty "
                                      "string")
            rid = check_id(sp["id"] if sp.get("id") is not None else
                           f"T-{sp['trace_id']}-{sp['span_id']}", f"span {i}")
            if sp.get("status") not in C.SPAN_STATUSES:
                raise BundleError("trace_span", f"span {rid}: status {sp.get('status')!r} is "
                                  f"not one of {', '.join(C.SPAN_STATUSES)}")
            self.spans[rid] = {"id": rid, **{k: v for k, v in sp.items() if k != "id"}}
            out.append(rid)
        _dump(self.root, C.TRACES, {"spans": list(self.spans.values())})
        return out

    @locked
    def set_ticket(self, ticket: Mapping[str, Any]) -> None:
        """``evidences/ticket_context.json`` plus the ``ticket_context.loaded`` milestone."""
        ticket = record(ticket, "ticket_context", "ticket")
        tid, alerts = ticket.get("ticket_id"), ticket.get("alerts")
        if not (isinstance(tid, (str, int)) and str(tid).strip()) and not (
                isinstance(alerts, list) and alerts):
            raise BundleError("ticket_context", "a ticket needs a ticket_id or alerts")
        _dump(self.root, "evidences/ticket_context.json", dict(ticket))
        self._seal("evidences/ticket_context.json", "*", dict(ticket))
        self._dump_seals()
        self.milestone("ticket_context.loaded", detail=str(tid or f"{len(alerts)} alerts"))

    @locked
    def set_architecture(self, topology: Mapping[str, Any]) -> None:
        """``evidences/cluster_meta.json`` plus ``architecture_context.loaded``."""
        topology = record(topology, "architecture", "topology")
        _dump(self.root, "evidences/cluster_meta.json", dict(topology))
        self._seal("evidences/cluster_meta.json", "*", dict(topology))
        self._dump_seals()
        comps = topology.get("components")
        self.milestone("architecture_context.loaded",
                       detail=f"{len(comps) if isinstance(comps, list) else 0} components")

    @locked
    def write_summary(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``evidences/evidence_summary_for_agent.json`` (what was collected, by id) plus
        ``summary.read``; returns the summary."""
        summary = {"channels": self.channels,
                   "ids": {ch: list(self.records[ch]) for ch in C.CHANNELS},
                   "collection_errors": self.errors, **(extra or {})}
        if self.checks:
            summary["ids"]["alerts"] = list(self.checks)
        if self.spans:
            summary["ids"]["traces"] = list(self.spans)
        _dump(self.root, C.SUMMARY_FILES[0], summary)
        self.milestone("summary.read")
        return summary

    # -- files -------------------------------------------------------------------------------
    def _read_report(self) -> dict[str, Any]:
        path = self.root / C.REPORT
        if not path.is_file():
            return {}
        try:
            doc = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise BundleError("json", f"{path}: cannot continue a bundle whose report is not "
                              f"JSON: {exc}") from exc
        return doc if isinstance(doc, dict) else {}

    @locked
    def flush(self) -> None:
        """Write the core evidence files (always, empty lists included: an empty file says
        the channel yielded nothing), events.json once events were queried, the report."""
        for ch in C.CHANNELS:
            if ch == "events" and not self.channels["events"].get("attempted"):
                continue
            path = C.CHANNEL_FILES[ch]
            doc: dict[str, Any] = {C.LIST_KEYS[path]: list(self.records[ch].values())}
            if ch == "logs":
                by_level: dict[str, int] = {}
                for e in self.records["logs"].values():
                    lvl = str(e.get("level") or "UNKNOWN")
                    by_level[lvl] = by_level.get(lvl, 0) + 1
                doc["stats"] = {"total": len(self.records["logs"]), "by_level": by_level}
            _dump(self.root, path, doc)
            self.channels[ch]["count"] = len(self.records[ch])
        if self.errors:
            _dump(self.root, "evidences/collection_errors.json", {"errors": self.errors})
        report: dict[str, Any] = {
            "metadata": {**self.metadata, "generated_at": utc_now()},
            "channels": self.channels,
            "analysis": self.analysis,
        }
        _dump(self.root, C.REPORT, report)
        self._dump_seals()

    def _dump_seals(self) -> None:
        if self._sealer is not None and self._sealer.dirty:
            _dump(self.root, SEAL_FILE, self._sealer.document())
