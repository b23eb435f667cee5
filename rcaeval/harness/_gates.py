"""The four non-negotiable gates of the harness (docs/harness.md), exactly.

1. ``gate1_high_confidence_support``: a high-confidence cause needs two independent live
   evidence sources (two source groups among the live evidence behind the cause) or a live
   dispositive signature.
2. ``gate2_material_claims_traced``: every material claim (the named root cause is always
   material) cites at least one usable current-run artifact.
3. ``gate3_disruptive_guardrails``: every disruptive action carries a read-only verification
   (which is itself read-only), impact/rollback guidance and operator approval; an
   investigation-plan probe is never disruptive (a probe cannot carry guardrails).
4. ``gate4_generic_alert_target_verified``: a generic state alert (non-ready, waiting,
   replicas, rollout) names a specific family only with at least one live target-verified
   observation of the alert's own target.

"Live" means usable and current-run: historical knowledge never counts.
"""

from __future__ import annotations

from rcaeval.harness._ledger import View, is_disruptive, looks_disruptive, read_only_verification
from rcaeval.harness._result import GateResult

GATE_IDS: dict[int, str] = {
    1: "gate1_high_confidence_support",
    2: "gate2_material_claims_traced",
    3: "gate3_disruptive_guardrails",
    4: "gate4_generic_alert_target_verified",
}
EVIDENCE_GATES = (1, 2, 4)


def evaluate_gates(view: View) -> list[GateResult]:
    return [_gate1(view), _gate2(view), _gate3(view), _gate4(view)]


def failed(gates: list[GateResult], which: tuple[int, ...] = (1, 2, 3, 4)) -> list[GateResult]:
    return [g for g in gates if g.gate in which and not g.passed]


def _gate1(view: View) -> GateResult:
    rc = view.response.root_cause
    gid = GATE_IDS[1]
    if rc.family is None or rc.confidence != "high":
        return GateResult(1, gid, True, False, "no high-confidence cause is named")
    support = view.supporting_live()
    disp = view.dispositive(support)
    if disp:
        return GateResult(1, gid, True, True,
                          f"dispositive signature in live evidence {', '.join(disp)}", disp)
    groups = view.groups(support)
    if len(groups) >= 2:
        return GateResult(1, gid, True, True,
                          f"{len(groups)} independent live source groups ({', '.join(groups)})",
                          support)
    hist = _historical_support(view)
    why = (f"high confidence in {rc.family!r} rests on {len(groups)} live source group(s)"
           + (f" ({groups[0]})" if groups else "")
           + " and no dispositive signature")
    if hist:
        why += f"; historical evidence {', '.join(hist)} does not count"
    return GateResult(1, gid, False, True, why, support + hist)


def _historical_support(view: View) -> list[str]:
    ids: set[str] = set()
    for e in view.ledger:
        if e.material:
            ids.update(e.historical_ids)
    return sorted(ids)


def _gate2(view: View) -> GateResult:
    gid = GATE_IDS[2]
    material = view.material_entries()
    if not material:
        return GateResult(2, gid, True, False, "no material claim is made")
    untraced = [e for e in material if not e.traced]
    if not untraced:
        ids = sorted({i for e in material for i in e.live_ids})
        return GateResult(2, gid, True, True,
                          f"all {len(material)} material claim(s) cite usable current-run "
                          "evidence", ids)
    parts = []
    ids: list[str] = []
    for e in untraced:
        bits = []
        if e.historical_ids:
            bits.append("historical only: " + ", ".join(e.historical_ids))
        if e.unusable_ids:
            bits.append("unusable: " + ", ".join(e.unusable_ids))
        if e.dangling_ids:
            bits.append("unknown ids: " + ", ".join(e.dangling_ids))
        parts.append(f"{e.claim_id} ({'; '.join(bits) or 'no evidence cited'})")
        ids.extend(e.historical_ids + e.unusable_ids)
    return GateResult(2, gid, False, True,
                      "material claim(s) without usable current-run evidence: "
                      + "; ".join(parts), sorted(set(ids)))


def _gate3(view: View) -> GateResult:
    gid = GATE_IDS[3]
    bad: list[str] = []
    n = 0
    for i, a in enumerate(view.response.actions):
        if not is_disruptive(a):
            continue
        n += 1
        missing = []
        if not a.read_only_verification:
            missing.append("read-only verification")
        elif not read_only_verification(a):
            missing.append("a read-only verification (its verification is itself disruptive)")
        if not a.impact_rollback:
            missing.append("impact/rollback guidance")
        if not a.operator_approval:
            missing.append("operator approval")
        if missing:
            bad.append(f"actions[{i}] lacks {', '.join(missing)}")
    for i, step in enumerate(view.response.investigation_plan):
        if looks_disruptive(step.probe):
            n += 1
            bad.append(f"investigation_plan[{i}] probe is disruptive (probes must be read-only)")
    if not n:
        return GateResult(3, gid, True, False, "no disruptive action is suggested")
    if not bad:
        return GateResult(3, gid, True, True, f"all {n} disruptive action(s) are guarded")
    return GateResult(3, gid, False, True, "; ".join(bad))


def _gate4(view: View) -> GateResult:
    gid = GATE_IDS[4]
    alert = view.response.alert
    if not view.generic_state:
        return GateResult(4, gid, True, False, f"alert {alert.type!r} is not a generic state")
    if view.family is None:
        return GateResult(4, gid, True, False,
                          f"generic alert {alert.type!r}; no specific family is named")
    tv = view.target_verified_live()
    if tv:
        return GateResult(4, gid, True, True,
                          f"target-verified live observation(s) {', '.join(tv)}", tv)
    hist = sorted(i for i, a in view.artifacts.items()
                  if view.on_alert_target(a) and i not in view.live)
    other = sorted(i for i, a in view.artifacts.items()
                   if a.target_verified and not view.on_alert_target(a))
    why = (f"generic alert {alert.type!r} names family {view.family!r} without a live "
           f"target-verified observation of {alert.target or 'the target'}")
    if hist:
        why += f"; {', '.join(hist)} are historical or unusable"
    if other:
        why += f"; {', '.join(other)} observed a different target"
    return GateResult(4, gid, False, True, why, hist + other)
