"""The example agents' investigation: "collect" evidence from ``incident/`` into
``evidences/*.json`` per docs/bundle-contract.md, write telemetry milestones to
``.opencode/telemetry.log``, the workspace evidence report and an ``analysis_patch.json`` whose
refs name the ids it collected. The diagnosis itself is :mod:`._example_diagnosis`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from rcaeval.runner._example_diagnosis import (
    CHANNELS,
    GUARDRAILS,
    KILL_RE,
    PANIC_RE,
    Diagnosis,
    Incident,
    diagnose,
    dump_json,
    load_incident,
    load_json,
    render_answer,
    utc_now,
)


def run_metadata(root: Path, env: dict[str, str]) -> dict[str, Any]:
    """Cluster, window and the case reference (an opaque label unless the run exposes case
    ids: it only names this run's diagnosis id, it says nothing about the incident)."""
    case = load_json(root / "case.json") or {}
    window = case.get("time_window") or {}
    return {"cluster_id": (case.get("environment") or {}).get("cluster_id")
            or env.get("RCAEVAL_CLUSTER_ID"),
            "time_window": {"start": window.get("start") or env.get("RCAEVAL_WINDOW_START"),
                            "end": window.get("end") or env.get("RCAEVAL_WINDOW_END")},
            "case_id": case.get("case_id") or env.get("RCAEVAL_CASE_ID", "")}


Step = tuple[str, str, str, Callable[[], Any]]
"""``(step_id, title, tool kind, fn)``"""


class Investigation:
    """The example agent's work as named steps so an ACP agent can report each as a tool call;
    :meth:`run` does them all."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.meta = run_metadata(root, env)
        self.ev = root / "evidences"
        self.inc = Incident()
        self.diag: Diagnosis | None = None
        self.channels: dict[str, dict[str, Any]] = {}
        self.run_id = "dr-" + hashlib.sha1(orjson.dumps(self.meta)).hexdigest()[:10]

    def tel(self, event: str, **fields: Any) -> None:
        path = self.root / ".opencode" / "telemetry.log"
        path.parent.mkdir(exist_ok=True)
        with open(path, "ab") as fh:
            fh.write(orjson.dumps({"ts": utc_now(), "event": event, **fields},
                                  option=orjson.OPT_APPEND_NEWLINE))

    def steps(self) -> Iterator[Step]:
        yield "context", "Load architecture context", "read", self._context
        yield "init", "Initialize diagnosis run", "other", self._init_run
        yield "collect", "Collect evidence (logs, metrics, queries, events)", "fetch", \
            self._collect
        yield "summary", "Read evidence summary", "read", self._summary
        yield "log_query", "Targeted log query", "search", self._targeted_logs
        yield "report", "Write report and analysis patch", "edit", self._report

    def run(self) -> str:
        for _sid, _title, _kind, fn in self.steps():
            fn()
        return self.answer()

    def answer(self) -> str:
        assert self.diag is not None
        self.tel("final_answer.emitted", status="ok")
        return render_answer(self.diag)

    def _context(self) -> None:
        self.inc = load_incident(self.root)
        dump_json(self.ev / "cluster_meta.json", self.inc.topology)
        self.tel("architecture_context.loaded", status="ok",
                 detail=f"{len(self.inc.topology.get('components', []))} components")
        self.tel("guardrails.loaded", status="ok", detail="; ".join(GUARDRAILS))
        if self.inc.ticket:
            dump_json(self.ev / "ticket_context.json", self.inc.ticket)
            self.tel("ticket_context.loaded", status="ok",
                     detail=str(self.inc.ticket.get("ticket_id")))

    def _init_run(self) -> None:
        self.tel("diagnosis_run.initialized", status="ok", detail=self.run_id)

    def _collect(self) -> None:
        inc, ts = self.inc, utc_now()
        self.tel("evidence_collection.started", status="ok")
        by_level: dict[str, int] = {}
        for e in inc.logs:
            by_level[e["level"] or "UNKNOWN"] = by_level.get(e["level"] or "UNKNOWN", 0) + 1
        docs = {"logs": ("logs.json", {"entries": inc.logs,
                                       "stats": {"total": len(inc.logs), "by_level": by_level}}),
                "metrics": ("metrics.json", {"series": inc.series}),
                "queries": ("queries.json", {"queries": inc.queries}),
                "events": ("events.json", {"events": inc.events})}
        counts = {"logs": len(inc.logs), "metrics": len(inc.series),
                  "queries": len(inc.queries), "events": len(inc.events)}
        errors: list[dict[str, Any]] = []
        for ch in CHANNELS:
            name, doc = docs[ch]
            if ch == "events":
                self.tel("events_query.attempted", status="ok")
            if ch in inc.unavailable:
                doc = {**{k: [] for k in doc if k != "stats"}, "error": "tool unavailable"}
                errors.append({"channel": ch, "source": "example-agent", "ts": ts,
                               "error": "tool unavailable (incident/tool_status.json)"})
                self.tel("tool.error", tool=f"{ch}_query", status="unavailable")
                self.channels[ch] = {"attempted": True, "status": "error", "count": 0}
            else:
                self.channels[ch] = {"attempted": True, "count": counts[ch],
                                     "status": "ok" if counts[ch] else "empty"}
                if ch == "metrics":
                    self.tel("metric_query.completed", status="ok", detail=str(counts[ch]))
            dump_json(self.ev / name, doc)
        dump_json(self.ev / "collection_errors.json", {"errors": errors})
        dump_json(self.ev / "component_health.json", {"components": inc.components})
        self.diag = diagnose(inc)
        dump_json(self.ev / "gate_checks.json", {"checks": [
            {"name": "infra_healthy", "status": "fail" if self.diag.kind == "panic" else "pass",
             "detail": self.diag.kind},
            {"name": "hotspot", "status": "fail" if self.diag.kind == "hotspot" else "pass",
             "detail": self.diag.kind}]})
        self.tel("evidence_collection.completed", status="ok",
                 detail=", ".join(f"{k}={v['count']}" for k, v in self.channels.items()))

    def _summary(self) -> None:
        assert self.diag is not None
        lines = [f"cluster: {self.meta['cluster_id']}",
                 f"window: {self.meta['time_window']['start']} .. "
                 f"{self.meta['time_window']['end']}"]
        lines += [f"{k}: {v['status']} ({v['count']})" for k, v in self.channels.items()]
        (self.ev / "evidence_summary_for_agent.txt").write_text("\n".join(lines) + "\n")
        dump_json(self.ev / "evidence_summary_for_agent.json",
              {"channels": self.channels, "finding": self.diag.kind})
        self.tel("summary.read", status="ok")

    def _targeted_logs(self) -> None:
        hits = [e for e in self.inc.logs if PANIC_RE.search(e["message"] or "")
                or KILL_RE.search(e["message"] or "")
                or e["level"] in ("ERROR", "FATAL", "CRITICAL")]
        by_inst: dict[str, list[str]] = {}
        for e in hits:
            by_inst.setdefault(e["instance"], []).append(
                f"{e['ts']} {e['level']} [{e['component']}] {e['message']}")
        for inst, lines in by_inst.items():
            (self.root / "logs").mkdir(exist_ok=True)
            (self.root / "logs" / f"{inst}.log").write_text("\n".join(lines) + "\n")
        self.tel("log_query.completed", status="ok", detail=f"{len(hits)} matching lines")

    def write_report(self) -> None:
        """Write ``evidences/workspace_evidence_report.json``."""
        assert self.diag is not None
        d = self.diag
        report = {"metadata": {**{k: self.meta[k] for k in ("cluster_id", "time_window")},
                               "diagnosis_run_id": self.run_id, "generated_at": utc_now()},
                  "channels": self.channels, "evidence": {"events": self.inc.events},
                  "analysis": {"root_cause": d.root_cause, "key_findings": d.evidence}}
        dump_json(self.ev / "workspace_evidence_report.json", report)

    def patch_text(self) -> str:
        """The ``analysis_patch.json`` text: one key item whose refs name collected ids."""
        assert self.diag is not None
        items = [{"id": "A1", "claim": self.diag.root_cause, "role": "key",
                  "refs": self.diag.key_refs}]
        return orjson.dumps({"items": items}, option=orjson.OPT_INDENT_2).decode() + "\n"

    def _report(self) -> None:
        self.write_report()
        (self.root / "analysis_patch.json").write_text(self.patch_text())
