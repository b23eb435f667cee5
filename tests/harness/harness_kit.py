"""Builders shared by the harness tests (a uniquely named module, not a conftest)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson

from rcaeval.harness import HarnessConfig

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data" / "harness" / "samples.jsonl"
CFG = HarnessConfig()  # explicit defaults: the tests never depend on the caller's environment
NO_REPAIR = HarnessConfig(max_repair_attempts=0)


def ev(source: str, *, id: str | None = None, origin: str = "current_run",
       group: str | None = None, tv: bool = False, disp: str | None = None,
       supports: tuple[str, ...] = (), usable: bool = True) -> dict[str, Any]:
    d: dict[str, Any] = {"source": source, "origin": origin, "usable": usable,
                         "target_verified": tv, "supports": list(supports)}
    if id is not None:
        d["id"] = id
    if group is not None:
        d["source_group"] = group
    if disp is not None:
        d["dispositive_signature"] = disp
    return d


_GOOD: dict[str, Any] = {
    "alert": {"type": "KubePodCrashLooping", "target": "payments/api-1"},
    "hypotheses": [
        {"family": "oom_kill", "mechanism": "working set exceeds the limit", "score": 0.8},
        {"family": "bad_rollout", "mechanism": "new config crashes on start", "score": 0.1},
    ],
    "root_cause": {"family": "oom_kill", "confidence": "high",
                   "claim": "the container is OOM-killed", "evidence_ids": ["a", "b"]},
    "evidence": [
        ev("k8s_events", id="a", tv=True, supports=("oom_kill",)),
        ev("prometheus", id="b", group="metrics", supports=("oom_kill",)),
        ev("knowledge_base", id="kb", origin="historical", supports=("oom_kill",)),
    ],
    "claims": [
        {"text": "restarts follow OOMKilled", "material": True, "family": "oom_kill",
         "evidence_ids": ["a"]},
        {"text": "memory at the limit", "material": True, "family": "oom_kill",
         "evidence_ids": ["b"]},
    ],
    "investigation_plan": [
        {"probe": "kubectl describe pod", "expected_observation": "OOMKilled",
         "discriminates": ["oom_kill", "bad_rollout"]},
    ],
    "actions": [
        {"text": "Check the memory panel", "disruptive": False},
        {"text": "Raise the memory limit", "disruptive": True,
         "read_only_verification": "describe pod shows OOMKilled",
         "impact_rollback": "rolling restart; undo with rollout undo",
         "operator_approval": True},
    ],
    "outcome": "diagnosed",
}


def good() -> dict[str, Any]:
    """A response that passes every gate with a full score."""
    return copy.deepcopy(_GOOD)


def samples() -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in SAMPLES.read_bytes().splitlines() if line.strip()]


def gate(result: Any, n: int, *, initial: bool = False) -> Any:
    gates = result.initial_gates if initial else result.gates
    return next(g for g in gates if g.gate == n)
