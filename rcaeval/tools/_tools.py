"""The incident tools' behaviour, independent of MCP: query one case's incident data and
record every call into the run bundle (docs/tools.md).

Each method returns a JSON-able dict or raises :class:`ToolInputError` with a message meant
for the agent (what was wrong and how to ask instead). Recording, per docs/tools.md:

- every call: a telemetry line ``tool.call`` (``tool``, the arguments, how many records it
  returned and their ids) or ``tool.error``; the first call also ``diagnosis_run.initialized``,
  the first data query ``evidence_collection.started``;
- every record *returned* to the agent is written to its evidence file under its stable id
  (logs.json, metrics.json with the returned points, queries.json, events.json,
  component_health.json, ticket_context.json, cluster_meta.json); what the agent never
  looked at is never written, so the judge's evidence buckets measure the investigation;
- a channel whose backend is down (``incident/tool_status.json``) answers with an error and
  is recorded in collection_errors.json;
- ``submit_report`` writes analysis_patch.json (refs must name returned evidence), the
  report's analysis, ``evidence_collection.completed``, output.txt and
  ``final_answer.emitted``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from rcaeval.bundle import BundleError, BundleWriter, parse_time
from rcaeval.tools._alerts import alerts_page
from rcaeval.tools._answer import structured_root_cause
from rcaeval.tools._data import CaseData, recordable
from rcaeval.tools._logsearch import search_logs
from rcaeval.tools._paging import ToolInputError
from rcaeval.tools._paging import page as _page
from rcaeval.tools._traces import search_traces

SERIES_LIMIT, SERIES_LIMIT_MAX = 10, 50
POINTS_MAX = 1000
EVENT_LIMIT, EVENT_LIMIT_MAX = 50, 200
QUERY_LIMIT, QUERY_LIMIT_MAX = 20, 100
GUARDRAILS = (
    "Do not blame a component without direct evidence from the incident window.",
    "A channel whose tool failed is missing data, not evidence of health.",
    "Correlation in time is not causation: find the mechanism that links cause and symptom.",
    "Name the alternatives you ruled out and the evidence that ruled them out.",
    "Cite evidence by the ids the tools returned; the report refuses ids never returned.",
)
_CHANNEL_BACKENDS = {"logs": "log search", "metrics": "metrics", "queries": "slow-query log",
                     "events": "events", "alerts": "alerting", "traces": "tracing"}


class IncidentTools:
    """One case's incident tools, recording into the bundle at ``bundle_dir`` (sealing
    every record with ``seal_key`` when given: docs/tools.md, "Sealed evidence")."""

    def __init__(self, data: CaseData, bundle_dir: str | Path, *,
                 seal_key: bytes | None = None) -> None:
        self.data = data
        self._bundle = (bundle_dir, seal_key)
        self._writer: BundleWriter | None = None
        self._lock = threading.Lock()
        self._started = False
        self._collecting = False
        self.data_start, self.data_end = data.data_range()

    @property
    def writer(self) -> BundleWriter:
        """The bundle writer, opened at the first call (a server the runner starts before
        the agent writes nothing until the agent calls a tool)."""
        if self._writer is None:
            d = self.data
            self._writer = BundleWriter(
                self._bundle[0], cluster_id=d.cluster_id,
                time_window=(d.window_start, d.window_end)
                if d.window_start and d.window_end else None, seal_key=self._bundle[1])
        return self._writer

    # -- the call wrapper --------------------------------------------------------------------
    def call(self, tool: str, args: Mapping[str, Any], fn: Callable[[], dict[str, Any]],
             *, channel: str | None = None) -> dict[str, Any]:
        """Run one tool call under the locks (this server's, the bundle's) and record it
        (telemetry, channel errors)."""
        shown = {k: recordable(v) for k, v in args.items() if v is not None}
        with self._lock, self.writer.exclusive():  # other servers may share the bundle
            w = self.writer
            if not self._started:
                self._started = True
                w.milestone("diagnosis_run.initialized", tool=tool,
                            detail=w.metadata.get("diagnosis_run_id"))
            if channel is not None and not self._collecting:
                self._collecting = True
                w.milestone("evidence_collection.started", tool=tool)
            if channel is not None and channel in self.data.unavailable:
                msg = (f"the {_CHANNEL_BACKENDS[channel]} backend is unavailable for this "
                       "incident (HTTP 503); this is missing data, not evidence of health")
                if channel == "events":
                    w.milestone("events_query.attempted", tool=tool, status="unavailable")
                w.channel_error(channel, msg, source=tool)
                w.milestone("tool.error", tool=tool, status="error", detail=msg, args=shown,
                            channel=channel)
                raise ToolInputError(msg)
            try:
                result = fn()
            except (ToolInputError, BundleError) as exc:
                w.milestone("tool.error", tool=tool, status="error", detail=str(exc),
                            args=shown, **({"channel": channel} if channel else {}))
                raise ToolInputError(str(exc)) from exc
            ids = result.get("_ids", [])
            result.pop("_ids", None)
            w.milestone("tool.call", tool=tool, args=shown, returned=len(ids), ids=ids,
                        **({"channel": channel} if channel else {}))
            return result

    # -- time ranges -------------------------------------------------------------------------
    def _range(self, start: str | None, end: str | None) -> tuple[datetime | None,
                                                                 datetime | None]:
        try:
            s = parse_time(start, "start") if start else None
            e = parse_time(end, "end") if end else None
        except BundleError as exc:
            raise ToolInputError(str(exc).split("] ", 1)[-1] + " - use ISO-8601 UTC such as "
                                 "2026-10-03T14:05:00Z") from exc
        if s and e and s > e:
            raise ToolInputError(f"start {start} is after end {end}")
        return s, e

    def _range_note(self, s: datetime | None, e: datetime | None, n: int) -> dict[str, Any]:
        out: dict[str, Any] = {"data_range": {"start": self.data_start, "end": self.data_end}}
        if n == 0 and (s or e):
            out["note"] = ("nothing in this range; the incident data covers "
                           f"{self.data_start} .. {self.data_end}")
        return out

    # -- context tools -----------------------------------------------------------------------
    def get_ticket(self) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            if not self.data.ticket:
                raise ToolInputError("this incident has no ticket")
            self.writer.set_ticket(self.data.ticket)
            return {"ticket": self.data.ticket, "prompt": self.data.prompt,
                    "cluster_id": self.data.cluster_id,
                    "time_window": {"start": self.data.window_start,
                                    "end": self.data.window_end},
                    "channels": self.data.data_channels()}
        return self.call("get_ticket", {}, run)

    def get_topology(self) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            topo = self.data.topology or {"cluster_id": self.data.cluster_id, "components": []}
            self.writer.set_architecture(topo)
            return {"topology": topo}
        return self.call("get_topology", {}, run)

    def get_guardrails(self) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            self.writer.milestone("guardrails.loaded", detail=f"{len(GUARDRAILS)} rules")
            return {"guardrails": list(GUARDRAILS)}
        return self.call("get_guardrails", {}, run)

    # -- metrics -----------------------------------------------------------------------------
    def list_metrics(self, name_contains: str | None = None, limit: int | None = None,
                     cursor: str | None = None) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            names: dict[str, dict[str, Any]] = {}
            for s in self.data.series:
                name = str(s.get("name"))
                if name_contains and name_contains.lower() not in name.lower():
                    continue
                d = names.setdefault(name, {"name": name, "unit": s.get("unit"), "series": 0,
                                            "labels": {}})
                d["series"] += 1
                for k, v in s["labels"].items():
                    vals = d["labels"].setdefault(k, [])
                    if v not in vals:
                        vals.append(v)
            items = sorted(names.values(), key=lambda d: d["name"])
            page, nxt, _ = _page(items, limit, cursor, 100, 500)
            return {"metrics": page, "total": len(items), "next_cursor": nxt, "_ids": []}
        return self.call("list_metrics", {"name_contains": name_contains, "limit": limit,
                                          "cursor": cursor}, run, channel="metrics")

    def query_metrics(self, name: str, labels: Mapping[str, str] | None = None,
                      start: str | None = None, end: str | None = None,
                      max_points: int | None = None, limit: int | None = None,
                      cursor: str | None = None) -> dict[str, Any]:
        args = {"name": name, "labels": dict(labels) if labels else None, "start": start,
                "end": end, "max_points": max_points, "limit": limit, "cursor": cursor}

        def run() -> dict[str, Any]:
            s, e = self._range(start, end)
            cap = max_points or 300
            if cap < 1 or cap > POINTS_MAX:
                raise ToolInputError(f"max_points must be between 1 and {POINTS_MAX}")
            known = sorted({str(x.get("name")) for x in self.data.series})
            if name not in known:
                hint = get_close_matches(name, known, n=3, cutoff=0.4)
                raise ToolInputError(f"no metric named {name!r}" + (
                    f"; did you mean {', '.join(hint)}?" if hint else
                    "; list_metrics shows the names"))
            want = {str(k): str(v) for k, v in (labels or {}).items()}
            matched = [x for x in self.data.series if x.get("name") == name
                       and all(x["labels"].get(k) == v for k, v in want.items())]
            if not matched:
                values = sorted({f"{k}={v}" for x in self.data.series if x.get("name") == name
                                 for k, v in x["labels"].items()})
                raise ToolInputError(f"no {name} series has labels {want}; label values: "
                                     + ", ".join(values[:40]))
            page, nxt, _ = _page(matched, limit, cursor, SERIES_LIMIT, SERIES_LIMIT_MAX)
            out, npts = [], 0
            for x in page:
                pts = [p for p in x["points"] if (s is None or parse_time(p[0], "p") >= s)
                       and (e is None or parse_time(p[0], "p") <= e)]
                truncated = len(pts) > cap
                if truncated:  # keep an even sample and the last point
                    step = len(pts) / cap
                    pts = [pts[int(i * step)] for i in range(cap - 1)] + [pts[-1]]
                npts += len(pts)
                out.append({**{k: v for k, v in x.items() if k != "points"}, "points": pts,
                            "truncated": truncated})
            ids = self.writer.add_series([x for x in out if x["points"]])
            self.writer.milestone("metric_query.completed", tool="query_metrics",
                                  detail=f"{len(out)} series, {npts} points")
            return {"series": out, "total_series": len(matched), "next_cursor": nxt,
                    **self._range_note(s, e, npts), "_ids": ids}
        return self.call("query_metrics", args, run, channel="metrics")

    # -- logs --------------------------------------------------------------------------------
    def search_logs(self, pattern: str | None = None, component: str | None = None,
                    instance: str | None = None, min_level: str | None = None,
                    start: str | None = None, end: str | None = None,
                    limit: int | None = None, cursor: str | None = None) -> dict[str, Any]:
        """Matching log lines oldest first (rcaeval/tools/_logsearch.py)."""
        return search_logs(self, pattern, component, instance, min_level, start, end, limit,
                           cursor)

    # -- events, health, queries -------------------------------------------------------------
    def list_events(self, object_contains: str | None = None, reason: str | None = None,
                    start: str | None = None, end: str | None = None,
                    limit: int | None = None, cursor: str | None = None) -> dict[str, Any]:
        args = {"object_contains": object_contains, "reason": reason, "start": start,
                "end": end, "limit": limit, "cursor": cursor}

        def run() -> dict[str, Any]:
            self.writer.milestone("events_query.attempted", tool="list_events")
            s, e = self._range(start, end)
            hits = []
            for ev in self.data.events:
                at = None
                try:
                    at = parse_time(ev.get("ts"), "ts") if ev.get("ts") else None
                except BundleError:
                    pass
                if object_contains and object_contains.lower() not in str(
                        ev.get("object", "")).lower():
                    continue
                if reason and reason.lower() != str(ev.get("reason", "")).lower():
                    continue
                if (s and (at is None or at < s)) or (e and (at is None or at > e)):
                    continue
                hits.append(ev)
            page, nxt, _ = _page(hits, limit, cursor, EVENT_LIMIT, EVENT_LIMIT_MAX)
            ids = self.writer.add_events(page)
            return {"events": page, "total": len(hits), "next_cursor": nxt,
                    **self._range_note(s, e, len(hits)), "_ids": ids}
        return self.call("list_events", args, run, channel="events")

    def get_component_health(self, component: str | None = None) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            comps = [c for c in self.data.components if not component
                     or component.lower() in (str(c.get("name", "")).lower(),
                                              str(c.get("instance", "")).lower())]
            if component and not comps:
                raise ToolInputError(f"no component or instance {component!r}; known: " + ", ".join(
                    sorted({str(c.get("instance") or c.get("name")) for c in
                            self.data.components})))
            if comps:
                self.writer.set_component_health(comps)
            return {"components": comps, "_ids": []}
        return self.call("get_component_health", {"component": component}, run)

    def get_slow_queries(self, instance: str | None = None,
                         min_latency_ms: float | None = None, kind: str | None = None,
                         limit: int | None = None, cursor: str | None = None) -> dict[str, Any]:
        args = {"instance": instance, "min_latency_ms": min_latency_ms, "kind": kind,
                "limit": limit, "cursor": cursor}

        def run() -> dict[str, Any]:
            hits = [q for q in self.data.queries
                    if (not instance or q.get("instance") == instance)
                    and (not kind or q.get("kind") == kind)
                    and (min_latency_ms is None
                         or float(q.get("max_latency_ms") or 0) >= min_latency_ms)]
            hits.sort(key=lambda q: -float(q.get("max_latency_ms") or 0))
            page, nxt, _ = _page(hits, limit, cursor, QUERY_LIMIT, QUERY_LIMIT_MAX)
            ids = self.writer.add_queries(page)
            return {"queries": page, "total": len(hits), "next_cursor": nxt, "_ids": ids}
        return self.call("get_slow_queries", args, run, channel="queries")

    def get_alerts(self, status: str | None = None, name_contains: str | None = None,
                   component: str | None = None, start: str | None = None,
                   end: str | None = None, limit: int | None = None,
                   cursor: str | None = None) -> dict[str, Any]:
        args = {"status": status, "name_contains": name_contains, "component": component,
                "start": start, "end": end, "limit": limit, "cursor": cursor}

        def run() -> dict[str, Any]:
            s, e = self._range(start, end)
            return alerts_page(self.data, self.writer, _page, ToolInputError, status=status,
                               name_contains=name_contains, component=component, start=s,
                               end=e, limit=limit, cursor=cursor)
        return self.call("get_alerts", args, run, channel="alerts")

    def search_traces(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Trace spans, error spans first (rcaeval/tools/_traces.py)."""
        return search_traces(self, _page, ToolInputError, *args, **kwargs)

    # -- summary and report ------------------------------------------------------------------
    def get_evidence_summary(self) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            summary = self.writer.write_summary()
            return {**summary, "_ids": []}
        return self.call("get_evidence_summary", {}, run)

    def submit_report(self, root_cause: str | Mapping[str, Any],
                      findings: list[Mapping[str, Any]],
                      ruled_out: list[str] | None = None, actions: list[str] | None = None,
                      answer_markdown: str | None = None) -> dict[str, Any]:
        """``root_cause``: a sentence, or ``{summary, family, component?}`` (a structured root
        cause the judge decides directly: docs/judge.md "Structured root causes")."""
        structured = structured_root_cause(root_cause, ToolInputError)
        sentence = root_cause.get("summary") if structured else root_cause
        args = {"root_cause": sentence[:200] if isinstance(sentence, str) else sentence,
                "findings": len(findings or [])}
        if structured:
            args.update(structured)

        def run() -> dict[str, Any]:
            w = self.writer
            root_cause = sentence
            if not isinstance(root_cause, str) or not root_cause.strip():
                raise ToolInputError("root_cause must state the root cause in a sentence")
            for f in findings or []:  # validate every ref before writing anything
                w.check_refs(f.get("refs") or [])
            w.clear_findings()
            for i, f in enumerate(findings or [], start=1):
                w.add_finding(str(f.get("claim") or ""), f.get("refs") or [],
                              role=str(f.get("role") or "key"), item_id=f"A{i}")
            w.set_analysis(root_cause, [str(f.get("claim")) for f in findings or []],
                           structured=structured)
            attempted = [ch for ch, c in w.channels.items() if c.get("attempted")]
            if attempted:
                w.complete_collection()
            text = answer_markdown or render_report(root_cause, findings or [],
                                                    ruled_out or [], actions or [])
            w.final_answer(text)
            skipped = [ch for ch, c in w.channels.items() if not c.get("attempted")]
            warnings = []
            if skipped:
                warnings.append("never queried: " + ", ".join(skipped) + " (the judge counts "
                                "only evidence the tools returned)")
            if not any(f.get("role", "key") == "key" and f.get("refs") for f in findings or []):
                warnings.append("no key finding cites evidence")
            return {"status": "submitted", "answer": text, "warnings": warnings, "_ids": []}
        return self.call("submit_report", args, run)


def render_report(root_cause: str, findings: list[Mapping[str, Any]], ruled_out: list[str],
                  actions: list[str]) -> str:
    """The Markdown answer (``output.txt``) when the agent gives no ``answer_markdown``."""
    def bullets(items: list[str]) -> str:
        return "\n".join(f"- {x}" for x in items) or "- (none)"

    ev = [f"{f.get('claim')} ("
          + ", ".join(f"{r.get('type')} {r.get('id')}" for r in f.get("refs") or []) + ")"
          for f in findings]
    return (f"## Root cause\n\n{root_cause}\n\n## Evidence\n\n{bullets(ev)}\n\n"
            f"## Ruled out\n\n{bullets(ruled_out)}\n\n"
            f"## Recommended actions\n\n{bullets(actions)}\n")
