"""Builders for small hand-made offline fixtures (tests/offline)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

SAFE = {"status": "passed", "gates": {"gate1_high_confidence_support": True,
                                       "gate2_material_claims_traced": True,
                                       "gate3_disruptive_guardrails": True,
                                       "gate4_generic_alert_target_verified": True}}


def ev(eid: str, source: str = "prometheus", *, supports: list[str] | None = None,
       usable: bool = True, origin: str = "current_run", group: str | None = None,
       dispositive: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": eid, "source": source, "origin": origin, "usable": usable,
                           "supports": supports or []}
    if group:
        out["source_group"] = group
    if dispositive:
        out["dispositive_signature"] = dispositive
    return out


def resp(family: str | None = "oom_kill", *, confidence: str = "medium",
         outcome: str = "diagnosed", hypotheses: list[str] | None = None,
         evidence: list[dict[str, Any]] | None = None, rc_ids: list[str] | None = None,
         claims: list[dict[str, Any]] | None = None, plan: list[dict[str, Any]] | None = None,
         actions: list[dict[str, Any]] | None = None, novel: bool = False,
         tool_errors: list[dict[str, str]] | None = None) -> dict[str, Any]:
    hyps = hypotheses if hypotheses is not None else ([family] if family else [])
    return {
        "alert": {"type": "KubePodCrashLooping", "target": "ns/pod"},
        "hypotheses": [{"family": h} for h in hyps],
        "root_cause": {"family": family, "confidence": confidence,
                       "evidence_ids": rc_ids if rc_ids is not None else ["E01"]},
        "evidence": evidence if evidence is not None else [ev("E01", supports=[family or "x"])],
        "claims": claims or [], "investigation_plan": plan or [], "actions": actions or [],
        "outcome": outcome, "novel": novel, "tool_errors": tool_errors or [],
    }


def fx(case_id: str, case_type: str = "known", *, expected_family: str | None = "oom_kill",
       expected_outcome: Any = "diagnosed", response: dict[str, Any] | None = None,
       relevant: list[str] | None = None, harness: dict[str, Any] | None = SAFE,
       **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"case_id": case_id, "case_type": case_type,
                           "expected_outcome": expected_outcome,
                           "relevant_evidence_ids": relevant if relevant is not None else ["E01"],
                           "response": response if response is not None else resp()}
    if expected_family is not None:
        out["expected_family"] = expected_family
    if harness is not None:
        out["harness"] = harness
    out.update(extra)
    return out


def write(path: Path, rows: list[Any]) -> Path:
    path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n"
                              for r in rows))
    return path
