"""The simulated RCA system behind the sample fixtures: a small evidence-counting ranker
with the flaws real rankers have (historical knowledge counts a little, it only knows the
families it was taught, louder downstream effects can outrank a quieter root). Its answers
are then passed through the real runtime harness, so the sample fixtures are captured
post-harness responses, and every metric on them is whatever this system earns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HISTORICAL_WEIGHT = 0.5
DISPOSITIVE_BONUS = 2.0


@dataclass(slots=True)
class Artifact:
    id: str
    source: str
    group: str
    summary: str
    supports: list[str]
    origin: str = "current_run"
    usable: bool = True
    dispositive: str | None = None
    minute: int = 0
    target_verified: bool = True

    def live(self) -> bool:
        return self.usable and self.origin == "current_run"

    def as_evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "source": self.source, "source_group": self.group,
            "origin": self.origin, "usable": self.usable,
            "target_verified": self.target_verified and self.origin == "current_run",
            "supports": list(self.supports), "summary": self.summary,
        }
        if self.dispositive:
            out["dispositive_signature"] = self.dispositive
        return out


@dataclass(slots=True)
class Incident:
    alert: str
    target: str
    artifacts: list[Artifact]
    tool_errors: list[dict[str, str]] = field(default_factory=list)
    probes: dict[str, dict[str, str]] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)


def scores(incident: Incident, known: list[str]) -> dict[str, float]:
    """Live independent groups supporting a family, + a bonus for a live dispositive
    signature, + a little for historical knowledge (the flaw: history is context only)."""
    out: dict[str, float] = {}
    for fam in known:
        live = [a for a in incident.artifacts if a.live() and fam in a.supports]
        s = float(len({a.group for a in live}))
        if any(a.dispositive for a in live):
            s += DISPOSITIVE_BONUS
        s += HISTORICAL_WEIGHT * sum(1 for a in incident.artifacts
                                     if a.origin == "historical" and fam in a.supports)
        if s > 0:
            out[fam] = s
    return out


def respond(incident: Incident, known: list[str]) -> dict[str, Any]:
    """The system's RCA response (contract rca_response/1) to ``incident``."""
    sc = scores(incident, known)
    prior = {f: i for i, f in enumerate(known)}
    ranked = sorted(sc, key=lambda f: (-sc[f], prior[f]))[:3]
    total = sum(sc.values()) or 1.0
    resp: dict[str, Any] = {
        "alert": {"type": incident.alert, "target": incident.target},
        "hypotheses": [{"family": f, "score": round(sc[f] / total, 2)} for f in ranked],
        "evidence": [a.as_evidence() for a in incident.artifacts],
        "tool_errors": list(incident.tool_errors),
        "novel": False,
    }
    unclassified = [a for a in incident.artifacts
                    if a.live() and not any(s in known for s in a.supports)]
    top = ranked[0] if ranked else None
    if top is None or sc[top] < 2.0:
        if unclassified:  # an anomaly the system has no family for: stay provisional
            resp.update(_provisional(incident, unclassified, ranked))
            return resp
        if top is None:
            resp.update({"outcome": "insufficient_evidence",
                         "root_cause": {"family": None, "confidence": "none",
                                        "claim": "No usable current evidence points to a cause."}})
            return resp
    assert top is not None
    s = sc[top]
    conf = "high" if s >= 3.0 else "medium" if s >= 2.0 else "low"
    # claims in time order, one per live artifact of a ranked family (root cause first)
    cited = [a for a in incident.artifacts if a.live() and top in a.supports]
    claims = []
    for a in sorted((a for a in incident.artifacts if a.live()), key=lambda a: a.minute):
        fam = next((f for f in ranked if f in a.supports), None)
        if fam is not None:
            # the conclusion rests on the cited family's evidence; claims about the
            # alternatives are context (not material)
            claims.append({"text": f"{a.summary} ({fam}).", "material": fam == top,
                           "family": fam, "evidence_ids": [a.id]})
    hist = [a for a in incident.artifacts if a.origin == "historical" and top in a.supports]
    if hist:
        claims.append({"text": "A past incident had the same pattern.", "material": False,
                       "evidence_ids": [a.id for a in hist]})
    plan = []
    probe = incident.probes.get(top)
    if probe:
        plan.append({"probe": probe["probe"], "expected_observation": probe["expected"],
                     "discriminates": ranked[:2]})
    actions = [{"text": f"Confirm with: {probe['probe']}" if probe else "Review the evidence",
                "disruptive": False}]
    if top in incident.actions:
        actions.append({
            "text": incident.actions[top], "disruptive": True,
            "read_only_verification": probe["probe"] if probe else "review the evidence",
            "impact_rollback": "affects only the target; revert the change to roll back",
            "operator_approval": True,
        })
    resp.update({
        "root_cause": {"family": top, "confidence": conf,
                       "claim": f"The alert is caused by {top.replace('_', ' ')}.",
                       "evidence_ids": [a.id for a in cited]},
        "claims": claims, "investigation_plan": plan, "actions": actions,
        "outcome": "diagnosed" if conf in ("high", "medium") else "provisional",
    })
    return resp


def _provisional(incident: Incident, unclassified: list[Artifact],
                 ranked: list[str]) -> dict[str, Any]:
    plan = [{"probe": p["probe"], "expected_observation": p["expected"],
             "discriminates": list(ranked[:2]) + ["unclassified"]}
            for key, p in incident.probes.items() if key.startswith("novel:")]
    return {
        "novel": True, "outcome": "provisional",
        "root_cause": {"family": None, "confidence": "low",
                       "claim": "Provisional: the anomalies match no known family.",
                       "evidence_ids": [a.id for a in unclassified]},
        "claims": [{"text": f"Unexplained anomaly: {a.summary}.", "material": True,
                    "evidence_ids": [a.id]} for a in unclassified],
        "investigation_plan": plan,
        "actions": [{"text": "Escalate to the owning team with the plan above",
                     "disruptive": False}],
    }
