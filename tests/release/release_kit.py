"""Hand-built captures and reviews for the release tests: each builder returns one plain
capture dict in the export format (docs/release.md), changed only where a test says so."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson


def ahash(seed: str) -> str:
    return "sha256:" + hashlib.sha256(seed.encode()).hexdigest()


def evidence(eid: str, source: str, *, supports: list[str] | None = None,
             origin: str = "current_run", usable: bool = True,
             dispositive: str | None = None, group: str | None = None) -> dict[str, Any]:
    return {"id": eid, "source": source, "source_group": group, "origin": origin,
            "usable": usable, "dispositive_signature": dispositive,
            "supports": supports or [], "target_verified": True}


def capture(cid: str, *, at: str = "2026-11-02T10:00:00Z", stage: str = "staging",
            family: str | None = "oom_kill", confidence: str = "medium",
            outcome: str = "diagnosed", novel: bool = False,
            hypotheses: list[str] | None = None, ev: list[dict[str, Any]] | None = None,
            rc_ids: list[str] | None = None, claims: list[dict[str, Any]] | None = None,
            case_type: str | None = "known", expected_family: str | None = "oom_kill",
            expected_outcome: str | None = None, relevant: list[str] | None = None,
            tools: list[dict[str, Any]] | None = None,
            activations: list[dict[str, Any]] | None = None,
            outage_test: str | None = None, status: str = "passed",
            labels: bool = True, incident: str | None = None) -> dict[str, Any]:
    ev = ev if ev is not None else [
        evidence("E01", "k8s_events", supports=[family] if family else []),
        evidence("E02", "prometheus", supports=[family] if family else []),
    ]
    rc_ids = rc_ids if rc_ids is not None else [e["id"] for e in ev]
    hyps = hypotheses if hypotheses is not None else ([family] if family else ["oom_kill"])
    response = {
        "alert": {"type": "KubePodCrashLooping", "target": "payments/api"},
        "hypotheses": [{"family": h, "mechanism": f"{h} mechanism"} for h in hyps],
        "root_cause": {"family": family, "confidence": confidence,
                       "claim": f"cause: {family}", "evidence_ids": rc_ids},
        "evidence": ev,
        "claims": claims or [],
        "outcome": outcome,
        "novel": novel,
    }
    lab = None
    if labels:
        lab = {"case_type": case_type, "expected_family": expected_family,
               "expected_outcome": expected_outcome, "relevant_evidence_ids": relevant}
    return {
        "capture_id": cid, "captured_at": at, "stage": stage, "population": "eu-1",
        "incident_id": incident or f"inc-{cid}", "response": response,
        "harness": {"status": status, "analysis_hash": ahash(cid), "score": 90.0},
        "labels": lab, "tool_executions": tools or [], "knowledge_activations":
        activations if activations is not None else [], "outage_test": outage_test,
        "review_ids": [],
    }


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n"
                              for r in rows))
    return path


def review(rid: str, analysis: str, *, at: str = "2026-11-03T09:00:00Z",
           case_type: str = "known", family: str | None = "oom_kill", score: int = 4,
           gate: str = "pass", outcome: str | None = "resolved",
           action: str | None = "raise the memory limit", incident: str | None = None,
           capture_id: str | None = None) -> dict[str, Any]:
    from rcaeval.release import REVIEW_SCORES

    return {"review_id": rid, "analysis_hash": analysis, "incident_id": incident,
            "capture_id": capture_id, "reviewer": "op", "reviewed_at": at,
            "case_type": case_type, "expected_family": family,
            "scores": {s: score for s in REVIEW_SCORES}, "hard_gate_assessment": gate,
            "resolution_outcome": outcome, "action_that_worked": action, "notes": ""}


def obs(order: int, collector: str = "prometheus", plane: str = "metrics", *,
        template: str | None = None, hypothesis: str | None = "oom_kill",
        evidence_id: str | None = None, relation: str = "during",
        supporting: list[str] | None = None, contradicting: list[str] | None = None,
        plan_step: int | None = None) -> dict[str, Any]:
    """One trace-v3 observation (capture/2 ``trace.observations``)."""
    return {"order": order, "collector": collector, "plane": plane,
            "probe_template_id": template, "hypothesis": hypothesis,
            "evidence_id": evidence_id, "incident_time_relation": relation,
            "supporting_source_groups": supporting or [],
            "contradicting_source_groups": contradicting or [], "plan_step": plan_step}


def with_trace(cap: dict[str, Any], observations: list[dict[str, Any]], *,
               status: str = "approved") -> dict[str, Any]:
    cap["trace"] = {"format": "trace/3", "status": status, "observations": observations}
    return cap


def with_probability(cap: dict[str, Any], p: Any) -> dict[str, Any]:
    cap["response"]["confidence_diagnostics"] = {
        "base_score": 0.4, "adjustments": [{"name": "two_source_groups", "delta": 0.2}],
        "final_score": 0.6, "probability": p, "independent_source_groups": ["prometheus"],
        "gates": [{"gate": "two_source_groups_or_dispositive", "passed": True}],
        "self_check": {"adjusted_from": None, "calibrated_probability": p}}
    return cap
