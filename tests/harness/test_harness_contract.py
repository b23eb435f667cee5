from __future__ import annotations

import pytest
from harness_kit import CFG, REPO, ev, good

from rcaeval.errors import InputError
from rcaeval.harness import RcaResponse, analysis_hash, check, json_schema_text, parse_response


def test_evidence_numbered_in_order_and_references_rewritten() -> None:
    r = check(good(), CFG)
    ids = [a.id for a in r.response.evidence]
    assert ids == ["E01", "E02", "E03"]
    assert [a.source_ref for a in r.response.evidence] == ["a", "b", "kb"]
    assert r.response.root_cause.evidence_ids == ["E01", "E02"]
    assert r.response.claims[0].evidence_ids == ["E01"]
    assert [c.id for c in r.response.claims] == ["C01", "C02"]
    assert r.evidence_map["a"] == "E01"


def test_original_ids_win_over_positional_ids() -> None:
    d = good()
    d["evidence"][0]["id"], d["evidence"][1]["id"] = "E02", "E01"  # swapped on purpose
    d["root_cause"]["evidence_ids"] = ["E01"]  # means the second artifact
    d["root_cause"]["confidence"] = "medium"
    d["claims"][0]["evidence_ids"], d["claims"][1]["evidence_ids"] = ["E02"], ["E01"]
    r = check(d, CFG)
    assert r.evidence_map["E01"] == "E02" and r.status == "passed"
    assert r.response.root_cause.evidence_ids == ["E02"]
    assert [c.evidence_ids for c in r.response.claims] == [["E01"], ["E02"]]
    assert r.response.evidence[1].source_ref == "E01"


def test_ledger_classifies_references() -> None:
    d = good()
    d["claims"].append({"text": "ctx", "evidence_ids": ["kb", "nope"]})
    r = check(d, CFG.replace(max_repair_attempts=0))
    row = next(e for e in r.ledger if e["claim_id"] == "C03")
    assert row["historical_ids"] == ["E03"] and row["dangling_ids"] == ["nope"]
    assert row["traced"] is False
    root = next(e for e in r.ledger if e["claim_id"] == "RC")
    assert root["live_ids"] == ["E01", "E02"] and root["material"] is True


def test_analysis_hash_is_canonical() -> None:
    d = good()
    h = analysis_hash(parse_response(d))
    reordered = dict(reversed(list(d.items())))
    assert analysis_hash(parse_response(reordered)) == h
    d2 = good()
    d2["novel"] = False  # explicit default
    d2["analysis_hash"] = "sha256:whatever"  # excluded from the hash
    assert analysis_hash(parse_response(d2)) == h
    d3 = good()
    d3["root_cause"]["claim"] = "something else"
    assert analysis_hash(parse_response(d3)) != h
    assert h.startswith("sha256:") and len(h) == 71


def test_result_hash_and_stale_hash_warning() -> None:
    d = good()
    d["analysis_hash"] = "sha256:stale"
    r = check(d, CFG)
    assert r.analysis_hash == analysis_hash(parse_response(good()))
    assert r.warnings and "does not match" in r.warnings[0]
    assert r.response.analysis_hash == r.response_hash
    again = check(r.response, CFG)
    assert not again.warnings


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.pop("alert"), "alert"),
        (lambda d: d.update(outcome="maybe"), "outcome"),
        (lambda d: d["evidence"][0].update(target_verfied=True), "evidence.0.target_verfied"),
        (lambda d: d["evidence"][0].pop("origin"), "evidence.0.origin"),
        (lambda d: d["root_cause"].update(confidence="very"), "root_cause.confidence"),
        (lambda d: d["hypotheses"][0].update(score=float("nan")), "hypotheses.0.score"),
    ],
)
def test_contract_violations_name_the_field(mutate, field) -> None:
    d = good()
    mutate(d)
    with pytest.raises(InputError) as exc:
        check(d, CFG)
    assert exc.value.field == field


def test_not_an_object_and_bad_json() -> None:
    with pytest.raises(InputError):
        check("[1, 2]", CFG)
    with pytest.raises(InputError, match="not valid JSON"):
        check("{nope", CFG)


def test_top_level_extras_are_kept_and_family_none_normalized() -> None:
    d = good()
    d["incident_id"] = "INC-1"
    d["root_cause"] = {"family": "None", "confidence": "none"}
    d["outcome"] = "insufficient_evidence"
    r = check(d, CFG)
    assert r.response.model_extra == {"incident_id": "INC-1"}
    assert r.response.root_cause.family is None


@pytest.mark.parametrize(
    ("alert_type", "generic"),
    [("KubePodNotReady", True), ("KubeContainerWaiting", True),
     ("KubeDeploymentReplicasMismatch", True), ("KubeDeploymentRolloutStuck", True),
     ("node non-ready", True), ("KubePodCrashLooping", True),
     ("KubeStatefulSetUpdateNotRolledOut", True), ("kube_daemonset_misscheduled", True),
     ("Pod 未就绪", True), ("HighErrorRate", False), ("KubeMemoryOvercommit", False)],
)
def test_generic_state_derived_from_alert_type(alert_type: str, generic: bool) -> None:
    d = good()
    d["alert"] = {"type": alert_type}
    assert parse_response(d).alert.is_generic_state() is generic
    d["alert"]["generic_state"] = True  # an explicit true always makes it generic
    assert parse_response(d).alert.is_generic_state() is True
    d["alert"]["generic_state"] = False  # an explicit false cannot hide a generic type
    assert parse_response(d).alert.is_generic_state() is generic


def test_schema_file_is_in_sync() -> None:
    path = REPO / "docs" / "schema" / "rca_response.schema.json"
    assert path.read_text(encoding="utf-8") == json_schema_text(), (
        "regenerate with `rcaeval schema`")


def test_schema_is_registered_with_the_registry() -> None:
    registry = pytest.importorskip("rcaeval.registry._schemas")
    registry.discover_schemas()
    assert registry.SCHEMAS.get("rca_response") is RcaResponse
    assert registry.schema_json(RcaResponse).decode() == json_schema_text()


def test_unused_helper_ev_shape() -> None:
    art = ev("logs", usable=False)
    assert parse_response({**good(), "evidence": [art]}).evidence[0].group() == "logs"
