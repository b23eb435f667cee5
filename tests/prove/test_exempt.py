"""The proof exemption, judge.yaml ``proof: {exempt: <reason>}``: a reason is required, it
never changes rules_hash, and the proof lists the case with it instead of running it."""

from __future__ import annotations

import json

import pytest
from prove_kit import edit, rcaeval, registry_copy

from rcaeval.prove import prove
from rcaeval.registry import load_case, load_registry

CASE = "disk-full-tikv-001"


def _exempt(root, reason: str) -> None:
    path = root / "cases" / CASE / "judge.yaml"
    path.write_text(path.read_text() + f"proof:\n  exempt: {json.dumps(reason)}\n")


def test_exemption_needs_a_reason(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    _exempt(root, "")
    problems = [p for p in load_registry(root).problems if p.file.endswith("judge.yaml")]
    assert [(p.file, p.field) for p in problems] == [(f"cases/{CASE}/judge.yaml",
                                                     "proof.exempt")]
    res = rcaeval("validate", "--registry", str(root))
    assert res.returncode == 3


def test_exemption_does_not_change_rules_hash(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    before = load_case(root, CASE).rules_hash
    _exempt(root, "the gate signal exists only on the operator's console")
    case = load_case(root, CASE)
    assert case.judge.proof is not None
    assert case.rules_hash == before


def test_exempt_case_is_reported_not_run(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    _exempt(root, "the gate signal exists only on the operator's console")
    report = prove(root, case_ids=[CASE])
    assert report.ok and report.run_ids == {}
    assert [r.to_dict() for r in report.rows] == [{
        "case_id": CASE, "status": "exempt", "oracle": "exempt", "lazy": "exempt",
        "wrong": "exempt",
        "reasons": ["exempt: the gate signal exists only on the operator's console"],
        "lazy_skipped_channel": None, "wrong_answer": None}]


def test_schema_documents_the_exemption() -> None:
    from prove_kit import REPO

    schema = json.loads((REPO / "docs/schema/judge.schema.json").read_text())
    assert schema["properties"]["proof"]["anyOf"][0]["$ref"].endswith("ProofSpec")
    assert schema["$defs"]["ProofSpec"]["required"] == ["exempt"]


@pytest.mark.parametrize("args,code", [
    (["case", "prove", "no-such-case"], 6), (["case", "prove", "--suite", "nope"], 6),
    (["case", "prove", "--sandbox", "weird", "disk-full-tikv-001"], 3)])
def test_bad_input(args: list[str], code: int) -> None:
    res = rcaeval(*args)
    assert res.returncode == code, (res.stdout, res.stderr)


def test_a_case_that_does_not_load_is_bad_input(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    edit(root / "cases" / CASE / "judge.yaml", "mode: deterministic_only", "mode: guesswork")
    res = rcaeval("case", "prove", "--registry", str(root), CASE)
    assert res.returncode == 3
    assert f"cases/{CASE}/judge.yaml" in res.stderr
