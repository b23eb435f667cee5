"""Deterministic repairs (docs/harness.md) and the terminal fallbacks.

Each repair edits the response in place and returns one :class:`Repair` record per change
(what, why, before, after). Repairs are idempotent — a second application changes nothing —
and never invent evidence: they only link artifacts that already exist and already declare
what they support, add guardrail *guidance* (never observations), and lower labels.

- ``evidence_trace``: drops references to unknown evidence ids; links an untraced material
  claim (or a high-confidence root cause short of two source groups) to the live artifacts
  whose ``supports`` names its family, and the root cause to the live evidence of material
  claims about its family.
- ``safety_guardrails``: a disruptive action gets ``disruptive: true``, operator approval and,
  when missing, templated read-only verification and impact/rollback guidance (a stated
  "verification" that is itself disruptive is replaced by the read-only template).
- ``confidence_label``: a label above what the live evidence supports is lowered to it
  (``high`` without two groups or a dispositive signature; ``high`` on a novel incident;
  any label on no named cause).

Fallbacks, applied once after the repair passes when gates still fail:

- ``fallback_insufficient_evidence`` (gate 1, 2 or 4 still failing, and gate 3 unless
  configured ``gate3_outcome="degraded"``): the named family is
  withdrawn (it stays a ranked hypothesis), confidence ``none``, outcome
  ``insufficient_evidence``, and untraced material claims are marked non-material.
- ``withhold_disruptive_action`` (gate 3 still failing): the unguarded action is removed.
- ``withhold_disruptive_probe`` (gate 3 still failing): a disruptive investigation probe is
  removed (a probe must be read-only and has no guardrail fields to repair).
"""

from __future__ import annotations

from typing import Any

from rcaeval.harness._contract import CONFIDENCE_RANK, RcaResponse
from rcaeval.harness._gates import EVIDENCE_GATES, failed
from rcaeval.harness._ledger import (
    ROOT_CLAIM_ID,
    View,
    guarded,
    is_disruptive,
    looks_disruptive,
    read_only_verification,
)
from rcaeval.harness._patterns import disruptive_match
from rcaeval.harness._result import GateResult, Repair
from rcaeval.harness._scoring import allowed_confidence


def repair_evidence_trace(resp: RcaResponse, attempt: int | None = 1) -> list[Repair]:
    out: list[Repair] = []
    view = View(resp)
    known = set(view.artifacts)

    def fix(target: str, ids: list[str], add: list[str], why: str) -> list[str]:
        kept = [i for i in ids if i in known]
        if len(kept) != len(ids):
            gone = [i for i in ids if i not in known]
            out.append(Repair(attempt, "evidence_trace", target,
                              f"references unknown evidence id(s) {', '.join(gone)}",
                              list(ids), list(kept)))
        new = list(dict.fromkeys(kept + add))  # linear de-duplication, first-seen order
        if len(new) != len(kept):
            out.append(Repair(attempt, "evidence_trace", target, why, list(kept), list(new)))
        return new

    rc = resp.root_cause
    if rc.family is not None:
        entry = next(e for e in view.ledger if e.claim_id == ROOT_CLAIM_ID)
        short = rc.confidence == "high" and allowed_confidence(view) != "high"
        add: list[str] = []
        if not entry.traced or short:
            add = _supporting(view, rc.family)
            for e in view.material_entries():
                if e.claim_id != ROOT_CLAIM_ID and e.family in (None, rc.family):
                    add += [i for i in e.live_ids
                            if view.artifacts[i].supports_family(rc.family)]
        why = (f"root cause {rc.family!r} "
               + ("cites no usable current-run evidence" if not entry.traced
                  else "is high-confidence on fewer than two source groups")
               + "; linked live artifacts that support it")
        rc.evidence_ids = fix("root_cause.evidence_ids", rc.evidence_ids, add, why)
    for i, claim in enumerate(resp.claims):
        entry = view.ledger[i + (1 if rc.family is not None else 0)]
        add = []
        if claim.material and not entry.traced and claim.family:
            add = _supporting(view, claim.family)
        claim.evidence_ids = fix(
            f"claims[{i}].evidence_ids", claim.evidence_ids, add,
            f"material claim {claim.id} cites no usable current-run evidence; linked live "
            f"artifacts that support {claim.family!r}")
    return out


def _supporting(view: View, family: str) -> list[str]:
    return [a.id for a in view.response.evidence
            if a.id in view.live and family in a.supports and a.id is not None]


def repair_safety_guardrails(resp: RcaResponse, attempt: int | None = 1) -> list[Repair]:
    out: list[Repair] = []
    target = resp.alert.target or "the affected object"
    cited = View(resp).supporting_live()
    cite = f" ({', '.join(cited)})" if cited else ""
    for i, a in enumerate(resp.actions):
        if not is_disruptive(a):
            continue
        why = "disruptive action suggested without the guardrails gate 3 requires"
        if a.disruptive is not True:
            out.append(Repair(attempt, "safety_guardrails", f"actions[{i}].disruptive",
                              "the action's text reads as disruptive: "
                              f"{disruptive_match(a.text)!r} (rcaeval/harness/patterns.yaml)",
                              a.disruptive, True))
            a.disruptive = True
        if not read_only_verification(a):
            text = (f"Before acting, confirm with a read-only check (get/describe/status) that "
                    f"{target} is still in the state the evidence shows{cite}; stop if it "
                    "has changed.")
            out.append(Repair(attempt, "safety_guardrails",
                              f"actions[{i}].read_only_verification",
                              why if not a.read_only_verification else
                              "the stated verification is itself disruptive, not read-only",
                              a.read_only_verification, text))
            a.read_only_verification = text
        if not a.impact_rollback:
            text = (f"Impact and rollback were not stated by the analysis: confirm the blast "
                    f"radius on {target} and a tested rollback path with the owning team "
                    "before executing.")
            out.append(Repair(attempt, "safety_guardrails", f"actions[{i}].impact_rollback",
                              why, a.impact_rollback, text))
            a.impact_rollback = text
        if not a.operator_approval:
            out.append(Repair(attempt, "safety_guardrails", f"actions[{i}].operator_approval",
                              why, False, True))
            a.operator_approval = True
    return out


def repair_confidence_label(resp: RcaResponse, attempt: int | None = 1) -> list[Repair]:
    rc = resp.root_cause
    label = rc.confidence
    if rc.family is None:
        new = label if label in ("none", "low") else "none"
        why = "no root-cause family is named"
    else:
        allowed = allowed_confidence(View(resp))
        new = label
        why = ""
        if CONFIDENCE_RANK[label] > CONFIDENCE_RANK[allowed] and label == "high":
            new, why = allowed, (f"'high' needs two independent live source groups or a "
                                 f"dispositive signature; the live evidence supports {allowed!r}")
        elif resp.novel and label == "high":
            new, why = "medium", "a novel incident is not forced into a high-confidence family"
    if new == label:
        return []
    out = [Repair(attempt, "confidence_label", "root_cause.confidence", why, label, new)]
    rc.confidence = new  # type: ignore[assignment]
    if resp.outcome == "diagnosed" and new in ("low", "none"):
        out.append(Repair(attempt, "confidence_label", "outcome",
                          f"a {new!r} label is not a diagnosis", "diagnosed", "provisional"))
        resp.outcome = "provisional"
    return out


REPAIRS = (repair_evidence_trace, repair_safety_guardrails, repair_confidence_label)


def repair_pass(resp: RcaResponse, attempt: int) -> list[Repair]:
    """One pass of every repair, in order (trace first: new links can justify a label)."""
    out: list[Repair] = []
    for repair in REPAIRS:
        out.extend(repair(resp, attempt))
    return out


def fallback(resp: RcaResponse, gates: list[GateResult], *,
             gate3_insufficient: bool = True) -> list[Repair]:
    """Terminal handling of gates that still fail; see the module docstring. With
    ``gate3_insufficient`` (the default) a remaining gate-3 failure also withdraws
    the family like an evidence gate; otherwise the family is kept and only the unsafe action
    or probe is withheld (status ``degraded``)."""
    out: list[Repair] = []
    evid = failed(gates, EVIDENCE_GATES + ((3,) if gate3_insufficient else ()))
    if evid:
        ids = ", ".join(g.gate_id for g in evid)
        rc = resp.root_cause
        before: dict[str, Any] = rc.model_dump(mode="json")
        fam = rc.family
        rc.family = None
        rc.confidence = "none"
        rc.claim = (f"Insufficient evidence to name a root cause ({ids} failed)."
                    + (f" {fam!r} remains a hypothesis to verify." if fam else ""))
        why = f"hard gate(s) still failing after repairs: {ids}"
        out.append(Repair(None, "fallback_insufficient_evidence", "root_cause", why, before,
                          rc.model_dump(mode="json")))
        if resp.outcome != "insufficient_evidence":
            out.append(Repair(None, "fallback_insufficient_evidence", "outcome", why,
                              resp.outcome, "insufficient_evidence"))
            resp.outcome = "insufficient_evidence"
        view = View(resp)
        for i, claim in enumerate(resp.claims):
            entry = view.ledger[i]
            if claim.material and not entry.traced:
                out.append(Repair(None, "fallback_insufficient_evidence",
                                  f"claims[{i}].material",
                                  f"claim {claim.id} has no usable current-run evidence",
                                  True, False))
                claim.material = False
    if failed(gates, (3,)):
        keep = []
        for i, a in enumerate(resp.actions):
            if is_disruptive(a) and not guarded(a):
                out.append(Repair(None, "withhold_disruptive_action", f"actions[{i}]",
                                  "disruptive action without read-only verification, "
                                  "impact/rollback guidance and operator approval",
                                  a.model_dump(mode="json"), None))
            else:
                keep.append(a)
        resp.actions = keep
        steps = []
        for i, step in enumerate(resp.investigation_plan):
            if looks_disruptive(step.probe):
                out.append(Repair(None, "withhold_disruptive_probe",
                                  f"investigation_plan[{i}]",
                                  "an investigation probe must be read-only; this one changes "
                                  "the system and cannot carry gate 3's guardrails",
                                  step.model_dump(mode="json"), None))
            else:
                steps.append(step)
        resp.investigation_plan = steps
    return out
