"""Regression tests from the adversarial review of the harness: each one failed before its fix."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import orjson
import polars as pl
import pytest
from harness_kit import CFG, NO_REPAIR, ev, gate, good, samples

from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.harness import HarnessConfig, analysis_hash, check, check_batch, parse_response


def _initial(d: dict, n: int):
    return gate(check(d, NO_REPAIR), n, initial=True)


# -- gate 1: one source group counted twice; a signature for another family -------------------

def test_gate1_source_groups_compare_case_insensitively() -> None:
    d = good()
    d["evidence"][0]["source_group"] = "Metrics"
    d["evidence"][1]["source_group"] = "metrics "
    g = _initial(d, 1)
    assert not g.passed and "1 live source group" in g.reason


def test_gate1_dispositive_signature_must_support_the_named_family() -> None:
    d = good()
    d["evidence"][1]["source_group"] = "k8s_events"  # one group: only a signature could pass
    d["evidence"][0]["dispositive_signature"] = "No space left on device"
    d["evidence"][0]["supports"] = ["disk_full"]
    assert not _initial(d, 1).passed
    d["evidence"][0]["supports"] = ["disk_full", "oom_kill"]
    assert _initial(d, 1).passed


def test_gate1_evidence_declared_for_other_families_is_not_support() -> None:
    d = good()
    for e in d["evidence"][:2]:
        e["supports"] = ["disk_full"]  # cited, live, two groups: but about another family
    d["claims"] = []
    g = _initial(d, 1)
    assert not g.passed
    r = check(d, CFG)  # the label repair must not rest on them either
    assert r.response.root_cause.confidence != "high"


# -- gate 3: a disruptive "verification", a disruptive probe, commands inside a sentence -------

def test_gate3_a_disruptive_verification_is_not_read_only() -> None:
    d = good()
    d["actions"][1]["read_only_verification"] = "delete the pod and watch it come back"
    g = _initial(d, 3)
    assert not g.passed and "read-only verification" in g.reason


def test_gate3_disruptive_probe_in_the_plan_is_withheld() -> None:
    d = good()
    d["investigation_plan"].append({"probe": "kubectl delete pod api-1",
                                    "expected_observation": "it comes back",
                                    "discriminates": ["oom_kill"]})
    assert not _initial(d, 3).passed
    r = check(d, CFG)
    assert r.gates_passed and r.status == "insufficient_evidence"
    assert r.response.root_cause.family is None
    assert all("delete" not in s.probe for s in r.response.investigation_plan)
    assert any(x.repair == "withhold_disruptive_probe" for x in r.repairs)
    kept = check(d, CFG.replace(gate3_outcome="degraded"))
    assert kept.gates_passed and kept.status == "degraded"
    assert kept.response.root_cause.family == "oom_kill"


@pytest.mark.parametrize("text", ["Run `kubectl rollout undo deploy/api`",
                                  "then kubectl -n payments delete pod api-1",
                                  "kubectl rollout undo deploy/api", "Set the memory limit to 1Gi"])
def test_gate3_disruptive_commands_are_recognised(text: str) -> None:
    d = good()
    d["actions"] = [{"text": text}]
    assert not _initial(d, 3).passed


# -- gate 4: the agent's own generic_state=false; a different target ---------------------------

def test_gate4_declared_non_generic_cannot_hide_a_generic_alert_type() -> None:
    d = good()
    d["alert"] = {"type": "KubePodNotReady", "target": "payments/api-1", "generic_state": False}
    for e in d["evidence"]:
        e["target_verified"] = False
    assert not _initial(d, 4).passed


def test_gate4_target_verified_on_a_different_target_does_not_count() -> None:
    d = good()
    d["alert"] = {"type": "KubePodNotReady", "target": "payments/api-1"}
    d["evidence"][0]["target"] = "payments/api-2"
    g = _initial(d, 4)
    assert not g.passed
    d["evidence"][0]["target"] = "Payments/API-1"
    assert _initial(d, 4).passed


# -- analysis_hash: canonical, and blind to what the harness itself adds ------------------------

def test_hash_ignores_harness_numbering_so_a_clean_pass_keeps_its_hash() -> None:
    r = check(good(), CFG)  # ids "a", "b", "kb": renumbered E01.. with source_ref
    assert r.status == "passed"
    assert r.analysis_hash == r.response_hash == check(r.response, CFG).analysis_hash
    d = good()
    for e in d["evidence"]:
        del e["id"]
    d["root_cause"]["evidence_ids"] = ["E01", "E02"]
    d["claims"][0]["evidence_ids"] = ["E01"]
    d["claims"][1]["evidence_ids"] = ["E02"]
    assert analysis_hash(parse_response(d)) == r.analysis_hash


def test_hash_unicode_normalisation_and_number_formatting() -> None:
    a, b = good(), good()
    a["root_cause"]["claim"] = unicodedata.normalize("NFC", "café OOM")
    b["root_cause"]["claim"] = unicodedata.normalize("NFD", "café OOM")
    a["incident"] = {"attempt": 1, "ratio": 0.5}
    b["incident"] = {"ratio": 5e-1, "attempt": 1.0}
    assert analysis_hash(parse_response(a)) == analysis_hash(parse_response(b))
    b["incident"]["ratio"] = 0.25
    assert analysis_hash(parse_response(a)) != analysis_hash(parse_response(b))


def test_hash_resolves_defaults_that_mean_the_same() -> None:
    a, b = good(), good()
    b["evidence"][0]["source_group"] = "k8s_events"  # == its source: the same group
    b["alert"]["generic_state"] = False  # KubePodCrashLooping is not generic anyway
    assert analysis_hash(parse_response(a)) == analysis_hash(parse_response(b))


def test_analysis_hash_does_not_mutate_its_argument() -> None:
    resp = parse_response(good())
    before = resp.model_dump()
    analysis_hash(resp)
    assert resp.model_dump() == before


# -- duplicate ids -----------------------------------------------------------------------------

def test_duplicate_evidence_ids_resolve_to_the_first_and_warn() -> None:
    d = good()
    d["evidence"][1]["id"] = "a"
    d["root_cause"]["evidence_ids"] = ["a"]
    r = check(d, NO_REPAIR)
    assert r.response.root_cause.evidence_ids == ["E01"]
    assert any("duplicate evidence id" in w and "'a'" in w for w in r.warnings)


# -- configuration -----------------------------------------------------------------------------

@pytest.mark.parametrize(("var", "value"), [
    ("MAX_RCA_REPAIR_ATTEMPTS", "1_0"), ("MAX_RCA_REPAIR_ATTEMPTS", "\uff13"),
    ("RCA_HARNESS_PASS_SCORE", "7_0"), ("RCA_HARNESS_PASS_SCORE", "\u0667\u0660"),
])
def test_env_numbers_are_plain_ascii(var: str, value: str) -> None:
    with pytest.raises(InputError, match=var):
        HarnessConfig.from_env({var: value})


# -- scale -------------------------------------------------------------------------------------

def test_ten_thousand_cited_artifacts_stay_linear() -> None:
    n = 10_000
    d = good()
    d["evidence"] = [ev(f"s{i % 7}", supports=("oom_kill",)) for i in range(n)]
    ids = [f"E{i + 1:02d}" for i in range(n)]
    d["root_cause"]["evidence_ids"] = ids
    d["claims"] = [{"text": "c", "material": True, "family": "oom_kill", "evidence_ids": ids}]
    d["alert"] = {"type": "ContainerOOMKilled", "target": "payments/api-7d9f6"}  # not generic
    # Correctness at scale only; speed (was ~2 s from quadratic de-duplication, now ~0.4 s) is
    # measured in bench/bench_harness.py, never asserted in tests.
    r = check(d, CFG)
    assert r.status == "passed"
    assert len(r.response.root_cause.evidence_ids) == n


# -- Parquet with a struct `response` column ---------------------------------------------------

def test_parquet_struct_column_round_trips(tmp_path: Path) -> None:
    rows = samples()
    path = tmp_path / "s.parquet"
    pl.DataFrame({"capture_id": [s["capture_id"] for s in rows],
                  "response": [s["response"] for s in rows]}).write_parquet(path)
    b = check_batch(path, CFG)
    assert b.invalid.height == 0, b.invalid["error"].to_list()
    assert b.results["status"].to_list() == [s["expect_status"] for s in rows]
    frame = pl.read_parquet(path)
    assert check_batch(frame, CFG).invalid.height == 0


def test_cli_on_struct_parquet_and_malformed_jsonl(tmp_path: Path, capsys) -> None:
    path = tmp_path / "s.parquet"
    pl.DataFrame({"response": [good()]}).write_parquet(path)
    assert main(["harness", str(path)]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(orjson.dumps(good()) + b"\n{broken\n[1]\n\"s\"\n")
    assert main(["harness", str(bad), "--format", "jsonl"]) == 3
    err = capsys.readouterr().err
    assert "bad.jsonl:2" in err and "bad.jsonl:3" in err and "bad.jsonl:4" in err


# -- a cited id that names no artifact must not resolve positionally ---------------------------

def test_positional_id_does_not_stand_in_for_an_artifact_that_has_its_own_id() -> None:
    d = good()  # artifacts are "a", "b", "kb": nothing is called E02
    d["claims"] = []
    d["root_cause"]["confidence"] = "medium"
    d["root_cause"]["evidence_ids"] = ["E02"]
    r = check(d, NO_REPAIR)
    g2 = gate(r, 2, initial=True)
    assert not g2.passed and "unknown ids: unresolved:E02" in g2.reason
    d["evidence"][1].pop("id")  # unnamed: the agent can only cite it by its position
    assert gate(check(d, NO_REPAIR), 2, initial=True).passed
