"""Each gate passing and failing, judged on the response as received (initial gates)."""

from __future__ import annotations

from harness_kit import CFG, NO_REPAIR, ev, gate, good

from rcaeval.harness import check


def _initial(d: dict, n: int):
    return gate(check(d, NO_REPAIR), n, initial=True)


def test_good_response_passes_every_gate() -> None:
    r = check(good(), CFG)
    assert r.status == "passed" and r.gates_passed and r.score.total == 100.0
    assert all(g.applies for g in r.gates if g.gate in (1, 2, 3))


# -- gate 1 ------------------------------------------------------------------------------------

def test_gate1_passes_on_two_independent_live_groups() -> None:
    g = _initial(good(), 1)
    assert g.passed and g.evidence_ids == ["E01", "E02"] and "2 independent" in g.reason


def test_gate1_passes_on_dispositive_signature_alone() -> None:
    d = good()
    d["evidence"][0]["dispositive_signature"] = "OOMKilled exit 137"
    d["root_cause"]["evidence_ids"] = ["a"]
    d["claims"] = []
    g = _initial(d, 1)
    assert g.passed and g.evidence_ids == ["E01"]


def test_gate1_fails_on_one_group() -> None:
    d = good()
    d["evidence"][1]["source_group"] = "k8s_events"  # same plane as E01: not independent
    g = _initial(d, 1)
    assert not g.passed and "1 live source group" in g.reason


def test_gate1_fails_when_second_source_is_unusable() -> None:
    d = good()
    d["evidence"][1]["usable"] = False
    assert not _initial(d, 1).passed


def test_gate1_does_not_apply_below_high() -> None:
    d = good()
    d["evidence"][1]["source_group"] = "k8s_events"
    d["root_cause"]["confidence"] = "medium"
    g = _initial(d, 1)
    assert g.passed and not g.applies


def test_gate1_historical_dispositive_does_not_count() -> None:
    d = good()
    d["evidence"] = [ev("kb", id="kb", origin="historical", disp="OOMKilled", supports=("x",)),
                     ev("runbook", id="rb", origin="historical")]
    d["root_cause"]["evidence_ids"] = ["kb", "rb"]
    d["claims"] = []
    g = _initial(d, 1)
    assert not g.passed and "historical evidence E01, E02 does not count" in g.reason


# -- gate 2 ------------------------------------------------------------------------------------

def test_gate2_fails_for_historical_only_claim() -> None:
    d = good()
    d["claims"][1]["evidence_ids"] = ["kb"]
    g = _initial(d, 2)
    assert not g.passed and "C02 (historical only: E03)" in g.reason and g.evidence_ids == ["E03"]


def test_gate2_fails_for_uncited_root_cause() -> None:
    d = good()
    d["root_cause"]["evidence_ids"] = []
    g = _initial(d, 2)
    assert not g.passed and "RC (no evidence cited)" in g.reason


def test_gate2_fails_for_unusable_and_unknown_evidence() -> None:
    d = good()
    d["evidence"][1]["usable"] = False
    d["claims"][1]["evidence_ids"] = ["b", "ghost"]
    g = _initial(d, 2)
    assert not g.passed and "unusable: E02" in g.reason and "unknown ids: ghost" in g.reason


def test_gate2_ignores_non_material_claims() -> None:
    d = good()
    d["claims"].append({"text": "seen before", "material": False, "evidence_ids": ["kb"]})
    assert _initial(d, 2).passed


def test_gate2_vacuous_without_material_claims() -> None:
    d = good()
    d["root_cause"] = {"family": None, "confidence": "none"}
    d["claims"] = []
    d["outcome"] = "insufficient_evidence"
    g = _initial(d, 2)
    assert g.passed and not g.applies


# -- historical-only evidence fails gates 1 and 2 ---------------------------------------------

def test_historical_only_evidence_fails_gates_1_and_2() -> None:
    d = good()
    for a in d["evidence"]:
        a["origin"] = "historical"
    r = check(d, NO_REPAIR)
    assert not gate(r, 1, initial=True).passed
    assert not gate(r, 2, initial=True).passed
    assert r.status == "insufficient_evidence" and r.response.root_cause.family is None


# -- gate 3 ------------------------------------------------------------------------------------

def test_gate3_passes_for_guarded_or_read_only_actions() -> None:
    assert _initial(good(), 3).passed
    d = good()
    d["actions"] = [{"text": "Look at the dashboard"}]
    g = _initial(d, 3)
    assert g.passed and not g.applies


def test_gate3_fails_for_each_missing_guardrail() -> None:
    for field, value in (("read_only_verification", None), ("impact_rollback", ""),
                         ("operator_approval", False)):
        d = good()
        d["actions"][1][field] = value
        g = _initial(d, 3)
        assert not g.passed and "actions[1] lacks" in g.reason


def test_gate3_sees_disruptive_verbs_even_when_declared_harmless() -> None:
    d = good()
    d["actions"].append({"text": "kubectl delete pod api-1", "disruptive": False})
    g = _initial(d, 3)
    assert not g.passed and "actions[2]" in g.reason


# -- gate 4 ------------------------------------------------------------------------------------

def _generic() -> dict:
    d = good()
    d["alert"] = {"type": "KubePodNotReady", "target": "payments/api-1"}
    d["root_cause"]["confidence"] = "medium"
    return d


def test_gate4_passes_with_live_target_verified_observation() -> None:
    g = _initial(_generic(), 4)
    assert g.passed and g.applies and g.evidence_ids == ["E01"]


def test_gate4_fails_without_target_verification() -> None:
    d = _generic()
    d["evidence"][0]["target_verified"] = False
    g = _initial(d, 4)
    assert not g.passed and "'oom_kill'" in g.reason


def test_gate4_historical_target_verification_does_not_count() -> None:
    d = _generic()
    d["evidence"][0]["target_verified"] = False
    d["evidence"][2]["target_verified"] = True  # the knowledge-base artifact
    g = _initial(d, 4)
    assert not g.passed and "E03 are historical or unusable" in g.reason


def test_gate4_does_not_apply_without_family_or_to_specific_alerts() -> None:
    d = _generic()
    d["root_cause"] = {"family": None, "confidence": "none"}
    d["outcome"] = "insufficient_evidence"
    assert not _initial(d, 4).applies
    d = good()
    d["alert"]["type"] = "HighErrorRate"  # a specific alert
    d["alert"]["summary"] = "5xx ratio above 2% on payments/api"
    d["evidence"][0]["target_verified"] = False
    g = _initial(d, 4)
    assert g.passed and not g.applies


def test_gate_rows_in_checks_frame() -> None:
    frame = check(good(), CFG).checks_frame()
    gates = frame.filter(frame["kind"] == "gate")
    assert gates["check_id"].to_list() == [
        "gate1_high_confidence_support", "gate2_material_claims_traced",
        "gate3_disruptive_guardrails", "gate4_generic_alert_target_verified"]
    assert gates["passed"].all()
    dims = frame.filter(frame["kind"] == "dimension")
    assert dims["max_points"].sum() == 100
    assert set(frame.columns) >= {"analysis_hash", "dimension", "check_id", "passed", "points",
                                  "max_points", "reason", "evidence_ids"}
