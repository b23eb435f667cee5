"""One recorded agent run on one case, in the bundle contract (docs/bundle-contract.md)."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from rcaeval._vocab import BUNDLE_CHANNELS
from rcaeval.synth import _answers as ans
from rcaeval.synth._incident import Incident, iso, raw_log_text
from rcaeval.synth._io import TreeWriter, file_digest

BEHAVIOURS = ("thorough", "shallow", "misdiagnosis", "fabricated_refs", "wrong_scope", "crashed")
EXPECTED = {
    "thorough": ("pass", "diagnosis_pass"),
    "shallow": ("fail", "evidence_collection_partial"),
    "misdiagnosis": ("fail", "diagnosis_fail"),
    "fabricated_refs": ("fail", "evidence_routing_fail"),
    "wrong_scope": ("invalid", "contract_fail"),
    "crashed": ("invalid", "bundle_missing"),
    "thorough_zh": ("pass", "diagnosis_pass"),
}
"""behaviour -> (expected verdict, expected subtype hint). The hints are the judge's subtype
names (the precedence step that decides, queries/judge/verdict.sql)."""
LANGUAGE_BEHAVIOURS = {"thorough_zh": "zh"}
"""Behaviours recorded only for scenarios with an answer in that language (``answer_zh``):
the thorough run, answered in Chinese. Not in BEHAVIOURS (which every case gets)."""

TOOLS = {"logs": "logs.search", "metrics": "prometheus.query_range",
         "queries": "slow_query.search", "events": "activity_hub.events"}
SOURCES = {"logs": "loki", "metrics": "prometheus", "queries": "tidb-slow-query",
           "events": "activity-hub"}
_MILESTONE = {"logs": "log_query.completed", "metrics": "metric_query.completed",
              "events": "events_query.attempted"}
_SIGNAL_LEVELS = {"WARN", "ERROR", "FATAL"}


def _collected(inc: Incident, behaviour: str) -> list[str]:
    avail = [c for c in BUNDLE_CHANNELS if c not in inc.unavailable]
    if behaviour == "shallow":
        return ["metrics"] if "metrics" in avail else ["logs"]
    return avail


def _attempted(inc: Incident, behaviour: str) -> list[str]:
    if behaviour == "shallow":
        return _collected(inc, behaviour)
    return list(BUNDLE_CHANNELS)


def _scope(inc: Incident, behaviour: str, case_index: int) -> tuple[str, str, str]:
    cluster, start, end = inc.cluster_id, iso(inc.start), iso(inc.end)
    if behaviour == "wrong_scope":
        if case_index % 2 == 0:
            cluster = cluster.rsplit("-", 1)[0] + "-" + f"{(case_index * 7 + 101) % 1000:03d}"
            if cluster == inc.cluster_id:
                cluster += "-staging"
        else:
            start = iso(inc.start + timedelta(days=1))
            end = iso(inc.end + timedelta(days=1))
    return cluster, start, end


def _log_entries(inc: Incident) -> list[dict[str, Any]]:
    keyed = set(inc.refs[k] for k in inc.refs if k.startswith("log:"))
    return [e for e in inc.log_lines if e["level"] in _SIGNAL_LEVELS or e["id"] in keyed]


def _summary(inc: Incident, collected: list[str], errors: list[dict[str, Any]],
             logs: list[dict[str, Any]], cluster: str, start: str, end: str) -> tuple[str, dict]:
    anomalies = []
    if "metrics" in collected:
        for s in inc.series:
            vals = [p[1] for p in s["points"]]
            if vals:
                anomalies.append({"id": s["id"], "name": s["name"], "first": vals[0],
                                  "max": max(vals), "points": len(vals)})
    top_logs = [e for e in logs if e["level"] in {"ERROR", "FATAL"}][:10]
    queries = inc.queries if "queries" in collected else []
    events = inc.events if "events" in collected else []
    data = {"cluster_id": cluster, "time_window": {"start": start, "end": end},
            "channels": collected, "collection_errors": errors, "top_log_signals": top_logs,
            "metric_overview": anomalies,
            "queries": [{"id": q["id"], "kind": q["kind"], "avg_latency_ms": q["avg_latency_ms"]}
                        for q in queries],
            "events": [{"id": e["id"], "reason": e["reason"], "object": e["object"]}
                       for e in events]}
    lines = [f"Evidence summary for cluster {cluster}, window {start} - {end}",
             "Channels collected: " + (", ".join(collected) or "none")]
    lines += [f"Collection error: {e['channel']} via {e['source']}: {e['error']}" for e in errors]
    if top_logs:
        lines.append("Top log signals:")
        lines += [f"- {e['id']} {e['ts']} {e['instance']} {e['level']} {e['message'][:160]}"
                  for e in top_logs]
    if anomalies:
        lines.append("Metric overview (first -> max):")
        lines += [f"- {a['id']}: {a['first']} -> {a['max']}" for a in anomalies]
    if queries:
        lines.append("Queries:")
        lines += [f"- {q['id']} {q['kind']} avg {q['avg_latency_ms']} ms" for q in queries]
    if events:
        lines.append("Events:")
        lines += [f"- {e['id']} {e['reason']} {e['object']}" for e in events]
    return "\n".join(lines) + "\n", data


def _telemetry(inc: Incident, behaviour: str, rng: random.Random, t0: Any) -> list[dict]:
    rows: list[dict[str, Any]] = []
    clock = [t0]

    def emit(event: str, tool: str | None = None, status: str = "ok", detail: str = "") -> None:
        clock[0] += timedelta(seconds=rng.randint(1, 20))
        rows.append({"ts": iso(clock[0]), "event": event, "tool": tool, "status": status,
                     "detail": detail})

    full = behaviour != "shallow"
    if full:
        emit("ticket_context.loaded", "ticket.get", detail=inc.ticket["ticket_id"])
    emit("architecture_context.loaded", "knowledge.architecture")
    emit("guardrails.loaded", "knowledge.guardrails")
    emit("diagnosis_run.initialized", "diagnosis.init")
    emit("evidence_collection.started", "evidence.collect")
    for ch in _attempted(inc, behaviour):
        if ch in inc.unavailable:
            emit("tool.call", TOOLS[ch], "error", f"{SOURCES[ch]} returned HTTP 503")
            emit("tool.error", TOOLS[ch], "error", "HTTP 503 Service Unavailable")
            if ch == "events":
                emit("events_query.attempted", TOOLS[ch], "error", "no data: tool unavailable")
            continue
        emit("tool.call", TOOLS[ch])
        if ch in _MILESTONE:
            emit(_MILESTONE[ch], TOOLS[ch])
    emit("evidence_collection.completed", "evidence.collect")
    emit("summary.read", "evidence.summary")
    if full and "logs" not in inc.unavailable:
        emit("log_query.completed", "logs.search", detail="targeted query on implicated instance")
    emit("final_answer.emitted")
    return rows


def write_bundle(case_dir: Path, inc: Incident, behaviour: str, run_id: str, case_id: str,
                 rng: random.Random, case_index: int) -> list[str]:
    """Write one recorded run into ``case_dir``; returns the relative paths written."""
    w = TreeWriter(case_dir)
    cluster, start, end = _scope(inc, behaviour, case_index)
    started = inc.end + timedelta(minutes=rng.randint(5, 30), seconds=rng.randint(0, 59))
    workspace_id = f"ws-{rng.getrandbits(32):08x}"
    manifest: dict[str, Any] = {
        "run_id": run_id, "case_id": case_id, "workspace_id": workspace_id,
        "agent": {"name": "replay", "behaviour": behaviour, "version": "1"},
        "cluster_id": cluster, "time_window": {"start": start, "end": end},
    }
    if behaviour == "crashed":
        manifest.update({"status": "crashed", "started_at": iso(started),
                         "finished_at": iso(started + timedelta(seconds=rng.randint(3, 40))),
                         "error": "agent process exited with code 137 before writing a bundle",
                         "usage": _usage(rng, 0.05), "files": []})
        w.json("manifest.json", manifest)
        return w.written

    collected = _collected(inc, behaviour)
    attempted = _attempted(inc, behaviour)
    ev = "evidences"
    logs = _log_entries(inc) if "logs" in collected else []
    all_lines = inc.log_lines if "logs" in collected else []
    by_level: dict[str, int] = {}
    for e in all_lines:
        by_level[e["level"]] = by_level.get(e["level"], 0) + 1
    errors = [{"channel": ch, "source": SOURCES[ch], "error": "HTTP 503 Service Unavailable",
               "ts": iso(started + timedelta(seconds=30))}
              for ch in attempted if ch in inc.unavailable]

    if behaviour == "shallow":
        output = ans.shallow_answer(inc)
        first = inc.series[0]["id"] if "metrics" in collected else logs[0]["id"]
        kind = "metric" if "metrics" in collected else "log"
        patch: dict[str, Any] = {"items": [{"id": "A1", "role": "key",
                                            "claim": "Latency rose during the incident window.",
                                            "refs": [{"type": kind, "id": first}]}]}
        root_line = output.splitlines()[2]
        findings = [root_line]
    elif behaviour == "misdiagnosis":
        output = ans.misdiagnosis_answer(inc)
        m = inc.scenario.misdiagnosis
        patch = ans.patch_items(inc, m.evidence, inc.ref)
        root_line = ans.flow(inc.render_refs(m.root_cause)).split(". ")[0]
        findings = [it["claim"] for it in patch["items"]]
    else:
        lang = LANGUAGE_BEHAVIOURS.get(behaviour, "en")
        a = inc.scenario.answer_zh if lang == "zh" else inc.scenario.answer
        assert a is not None, f"{case_id}: no answer for {behaviour}"
        if behaviour == "fabricated_refs":
            fake = ans.fabricating_idmap(inc, rng)
            output = ans.thorough_answer(inc, fake)
            patch = ans.fabricated_patch(inc, rng)
        else:
            output = ans.thorough_answer(inc, lang=lang)
            patch = ans.patch_items(inc, a.evidence, inc.ref)
        root_line = ans.flow(inc.render_refs(a.root_cause)).split(". ")[0]
        findings = [it["claim"] for it in patch["items"]]

    channels = {}
    counts = {"logs": len(logs), "metrics": len(inc.series), "queries": len(inc.queries),
              "events": len(inc.events)}
    for ch in BUNDLE_CHANNELS:
        if ch not in attempted:
            channels[ch] = {"attempted": False, "status": "skipped", "count": 0}
        elif ch in inc.unavailable:
            channels[ch] = {"attempted": True, "status": "error", "count": 0}
        else:
            n = counts[ch]
            channels[ch] = {"attempted": True, "status": "ok" if n else "empty", "count": n}
    report = {
        "metadata": {"cluster_id": cluster, "time_window": {"start": start, "end": end},
                     "diagnosis_run_id": f"dr-{rng.getrandbits(48):012x}",
                     "generated_at": iso(started + timedelta(minutes=2))},
        "channels": channels,
        "analysis": {"root_cause": root_line, "key_findings": findings},
    }
    w.json(f"{ev}/workspace_evidence_report.json", report)
    w.json(f"{ev}/metrics.json", {"series": inc.series if "metrics" in collected else []})
    w.json(f"{ev}/queries.json", {"queries": inc.queries if "queries" in collected else []})
    w.json(f"{ev}/logs.json", {"entries": logs,
                               "stats": {"total": len(all_lines), "by_level": by_level}})
    if "events" in attempted:
        w.json(f"{ev}/events.json", {"events": inc.events if "events" in collected else []})
    w.json(f"{ev}/collection_errors.json", {"errors": errors})
    w.json(f"{ev}/gate_checks.json", {"checks": inc.gate_checks if behaviour != "shallow" else []})
    if behaviour != "shallow":
        w.json(f"{ev}/component_health.json", {"components": inc.health})
        w.json(f"{ev}/ticket_context.json", inc.ticket)
    text, data = _summary(inc, collected, errors, logs, cluster, start, end)
    w.text(f"{ev}/evidence_summary_for_agent.txt", text)
    w.json(f"{ev}/evidence_summary_for_agent.json", data)
    if "logs" in collected:
        implicated = sorted({e["instance"] for e in logs if e["level"] in {"ERROR", "FATAL"}})
        for inst in implicated:
            w.text(f"logs/{inst}.log",
                   raw_log_text([e for e in inc.log_lines if e["instance"] == inst]))
    w.jsonl(".opencode/telemetry.log", _telemetry(inc, behaviour, rng, started))
    w.json("analysis_patch.json", patch)
    w.text("output.txt", output)
    follow = (ans.followup_answer(inc, LANGUAGE_BEHAVIOURS.get(behaviour, "en"))
              if behaviour in ("thorough", "wrong_scope", *LANGUAGE_BEHAVIOURS) else None)
    if follow and inc.scenario.followup:
        turns = [{"turn": 1, "role": "user",
                  "text": inc.render_refs(inc.scenario.prompt.rstrip("\n") + "\n")},
                 {"turn": 1, "role": "assistant", "text": output},
                 {"turn": 2, "role": "user", "text": inc.scenario.followup[0]},
                 {"turn": 2, "role": "assistant", "text": follow}]
        w.json("transcript.json", turns)
    files = []
    for rel in sorted(w.written):
        digest, size = file_digest(case_dir / rel)
        files.append({"path": rel, "sha256": digest, "size": size})
    manifest.update({"status": "completed", "started_at": iso(started),
                     "finished_at": iso(started + timedelta(seconds=rng.randint(90, 900))),
                     "usage": _usage(rng, 0.3 if behaviour == "shallow" else 1.0),
                     "files": files})
    w.json("manifest.json", manifest)
    return w.written


def _usage(rng: random.Random, scale: float) -> dict[str, Any]:
    inp = int(rng.randint(40_000, 180_000) * scale)
    out = int(rng.randint(2_000, 9_000) * scale)
    cache = int(inp * rng.uniform(0.2, 0.7))
    cost = round(inp * 3e-6 + out * 15e-6, 6)
    return {"input_tokens": inp, "output_tokens": out, "cache_read_tokens": cache,
            "cache_write_tokens": int(inp * 0.1), "cost_usd": cost}
