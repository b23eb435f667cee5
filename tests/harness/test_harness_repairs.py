"""Repairs: each one, idempotence, no invented evidence, and the terminal paths."""

from __future__ import annotations

import pytest
from harness_kit import CFG, NO_REPAIR, gate, good

from rcaeval.harness import check, parse_response
from rcaeval.harness._ledger import View, normalize
from rcaeval.harness._repairs import (
    repair_confidence_label,
    repair_evidence_trace,
    repair_safety_guardrails,
)

REPAIRS = [repair_evidence_trace, repair_safety_guardrails, repair_confidence_label]


def _norm(d: dict):
    r = parse_response(d)
    normalize(r)
    return r


def _untraced() -> dict:
    d = good()
    d["root_cause"]["evidence_ids"] = []
    d["claims"][0]["evidence_ids"] = []
    d["claims"][1]["evidence_ids"] = ["ghost"]
    return d


def _unguarded() -> dict:
    d = good()
    d["actions"].append({"text": "Restart the api deployment"})
    return d


def _overconfident() -> dict:
    d = good()
    d["evidence"][1]["source_group"] = "k8s_events"
    return d


def test_evidence_trace_repair_links_declared_support_only() -> None:
    r = check(_untraced(), CFG)
    assert r.status == "repaired" and r.gates_passed
    assert r.response.root_cause.evidence_ids == ["E01", "E02"]
    assert r.response.claims[1].evidence_ids == ["E01", "E02"]
    kinds = {(x.repair, x.target) for x in r.repairs}
    assert ("evidence_trace", "claims[1].evidence_ids") in kinds
    dropped = next(x for x in r.repairs if "unknown" in x.why)
    assert dropped.before == ["ghost"] and dropped.after == []
    assert all(x.why and x.attempt == 1 for x in r.repairs)


def test_evidence_trace_cannot_link_without_declared_support() -> None:
    d = _untraced()
    for a in d["evidence"]:
        a["supports"] = []
    r = check(d, CFG)
    assert r.status == "insufficient_evidence"
    assert r.response.root_cause.family is None
    assert r.response.hypotheses[0].family == "oom_kill"  # kept as a hypothesis
    assert all(not c.material for c in r.response.claims)


def test_safety_repair_adds_guardrails() -> None:
    r = check(_unguarded(), CFG)
    assert r.status == "repaired" and gate(r, 3).passed and not gate(r, 3, initial=True).passed
    a = r.response.actions[2]
    assert a.disruptive is True and a.operator_approval is True
    assert "read-only check" in (a.read_only_verification or "")
    assert "rollback" in (a.impact_rollback or "")
    targets = [x.target for x in r.repairs]
    assert targets == ["actions[2].disruptive", "actions[2].read_only_verification",
                       "actions[2].impact_rollback", "actions[2].operator_approval"]
    assert r.repairs[3].before is False and r.repairs[3].after is True


def test_safety_repair_keeps_existing_guidance() -> None:
    d = good()
    d["actions"][1]["operator_approval"] = False
    r = check(d, CFG)
    assert [x.target for x in r.repairs] == ["actions[1].operator_approval"]
    assert r.response.actions[1].impact_rollback == "rolling restart; undo with rollout undo"


def test_confidence_repair_lowers_overconfident_label() -> None:
    r = check(_overconfident(), CFG)
    assert r.status == "repaired"
    assert r.response.root_cause.confidence == "medium"
    assert r.response.root_cause.family == "oom_kill"
    rp = [x for x in r.repairs if x.repair == "confidence_label"]
    assert rp[0].before == "high" and rp[0].after == "medium"


def test_confidence_repair_on_novel_and_on_no_family() -> None:
    d = good()
    d["novel"] = True
    assert check(d, CFG).response.root_cause.confidence == "medium"
    d = good()
    d["root_cause"] = {"family": None, "confidence": "high"}
    d["claims"] = []
    d["outcome"] = "insufficient_evidence"
    r = check(d, CFG)
    assert r.response.root_cause.confidence == "none" and r.status == "repaired"


@pytest.mark.parametrize("make", [_untraced, _unguarded, _overconfident, good])
@pytest.mark.parametrize("repair", REPAIRS)
def test_each_repair_is_idempotent(make, repair) -> None:
    once = _norm(make())
    repair(once)
    twice = once.model_copy(deep=True)
    assert repair(twice) == []
    assert twice == once


@pytest.mark.parametrize("make", [_untraced, _unguarded, _overconfident])
def test_repairs_never_invent_evidence(make) -> None:
    d = make()
    r = check(d, CFG)
    before = _norm(d)
    assert r.response.evidence == before.evidence  # artifacts untouched
    live = View(r.response).live
    for x in r.repairs:
        if x.repair == "evidence_trace":
            added = set(x.after) - set(x.before)
            assert added <= live


def test_check_is_idempotent_on_its_output() -> None:
    for make in (_untraced, _unguarded, _overconfident, good):
        first = check(make(), CFG)
        second = check(first.response, CFG)
        assert second.response == first.response
        assert second.repairs == [] or second.status == "degraded"
        assert second.status in ("passed", "degraded", "insufficient_evidence")


def test_zero_repair_attempts_goes_straight_to_fallback() -> None:
    r = check(_overconfident(), NO_REPAIR)
    assert r.status == "insufficient_evidence"
    assert [x.repair for x in r.repairs][0] == "fallback_insufficient_evidence"
    assert all(x.attempt is None for x in r.repairs)


def test_zero_repair_attempts_withholds_unguarded_action() -> None:
    # default: a remaining gate-3 failure is a hard-gate failure -> insufficient_evidence
    r = check(_unguarded(), NO_REPAIR)
    assert r.status == "insufficient_evidence" and len(r.response.actions) == 2
    withheld = next(x for x in r.repairs if x.repair == "withhold_disruptive_action")
    assert withheld.before["text"] == "Restart the api deployment" and withheld.after is None
    assert r.response.outcome == "insufficient_evidence" and r.gates_passed
    rc = r.response.root_cause
    assert rc.family is None and "gate3_disruptive_guardrails" in rc.claim


def test_gate3_outcome_degraded_keeps_the_family() -> None:
    r = check(_unguarded(), NO_REPAIR.replace(gate3_outcome="degraded"))
    assert r.status == "degraded" and len(r.response.actions) == 2
    assert any(x.repair == "withhold_disruptive_action" for x in r.repairs)
    assert r.response.outcome == "degraded" and r.gates_passed
    assert r.response.root_cause.family == "oom_kill"


def test_insufficient_evidence_is_honest() -> None:
    d = good()
    d["alert"] = {"type": "KubeDeploymentReplicasMismatch", "target": "payments/api"}
    d["evidence"][0]["target_verified"] = False
    r = check(d, CFG)
    assert r.status == "insufficient_evidence" and r.gates_passed
    rc = r.response.root_cause
    assert rc.family is None and rc.confidence == "none"
    assert "gate4_generic_alert_target_verified" in rc.claim and "'oom_kill'" in rc.claim
    assert r.response.outcome == "insufficient_evidence"
    fb = next(x for x in r.repairs if x.target == "root_cause")
    assert fb.before["family"] == "oom_kill" and fb.after["family"] is None
    assert r.original.root_cause.family == "oom_kill"


def test_degraded_stays_visible() -> None:
    d = {"alert": {"type": "HighErrorRate", "target": "web"},
         "hypotheses": [{"family": "dependency_timeout"}],
         "root_cause": {"family": "dependency_timeout", "confidence": "medium",
                        "claim": "calls time out", "evidence_ids": ["t"]},
         "evidence": [{"id": "t", "source": "traces", "origin": "current_run"}],
         "outcome": "diagnosed"}
    r = check(d, CFG)
    assert r.gates_passed and r.status == "degraded" and r.score.total < 70
    assert r.response.outcome == "degraded"
    assert r.response.root_cause.family == "dependency_timeout"  # not hidden, just flagged
    mark = r.repairs[-1]
    assert mark.repair == "mark_degraded" and mark.before == "diagnosed"
    assert check(d, CFG.replace(pass_score=50)).status == "passed"
