"""Detector examples: `rcaeval validate` judges each one with the judge's own SQL and an
example that contradicts its detector is an error naming file, case, detector and example."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from rcaeval.registry import validate_registry
from tests.authoring.conftest import PANIC_CASE, rcaeval


def _set_examples(registry: Path, case_id: str, detector: str, examples: dict) -> Path:
    path = registry / "cases" / case_id / "judge.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["detectors"][detector]["examples"] = examples
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def test_a_contradicting_example_fails_validate_naming_file_detector_and_example(
        sample_copy: Path) -> None:
    _set_examples(sample_copy, PANIC_CASE, "asserts_storage_node_panic", {
        "fires": ["Root cause: TiKV store 5 panicked on a corrupted raft log entry."],
        # negated: the judge's negation stage blanks it, so the detector stays silent
        "silent": ["Root cause: the TiKV panic was not the cause; it was a CPU hotspot.",
                   "Root cause: tikv-2 panicked and crash-looped."],
    })
    proc = rcaeval("validate", "--registry", str(sample_copy), "--format", "json")
    assert proc.returncode == 3, proc.stderr
    (problem,) = json.loads(proc.stdout)["problems"]
    assert problem["file"] == f"cases/{PANIC_CASE}/judge.yaml"
    assert problem["code"] == "detector_example"
    assert problem["field"] == "detectors.asserts_storage_node_panic.examples.silent[1]"
    assert isinstance(problem["line"], int)
    assert PANIC_CASE in problem["message"]
    assert "Root cause: tikv-2 panicked and crash-looped." in problem["message"]
    # the rule that decided, as `rcaeval explain` names it
    assert 'conclusion label "Root cause"' in problem["message"]
    text = rcaeval("validate", "--registry", str(sample_copy))
    assert text.returncode == 3
    assert "asserts_storage_node_panic" in text.stdout and "detector_example" in text.stdout


def test_examples_that_agree_pass_and_use_scope_negation_and_the_other_detectors(
        sample_copy: Path) -> None:
    _set_examples(sample_copy, PANIC_CASE, "asserts_cpu_hotspot", {
        "fires": ["The latency was caused by a CPU hotspot on region 88213."],
        "silent": [
            "## Ruled out\nA CPU hotspot on one region.",           # alternatives scope
            "A CPU hotspot might be involved.",                     # hedged
            # weak consequence wording while another detector asserts the cause here
            "The TiKV panic caused a CPU hotspot on the other stores.",
        ],
    })
    assert validate_registry(sample_copy) == []
    proc = rcaeval("validate", "--registry", str(sample_copy))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the same weak-consequence sentence is a contradiction once it is declared to fire
    _set_examples(sample_copy, PANIC_CASE, "asserts_cpu_hotspot", {
        "fires": ["The TiKV panic caused a CPU hotspot on the other stores."]})
    (problem,) = validate_registry(sample_copy)
    assert problem.field == "detectors.asserts_cpu_hotspot.examples.fires[0]"
    assert "consequence wording" in problem.message
    assert validate_registry(sample_copy, examples=False) == []


def test_an_example_of_the_wrong_shape_is_a_schema_error(sample_copy: Path) -> None:
    _set_examples(sample_copy, PANIC_CASE, "asserts_cpu_hotspot", {"fire": ["x"]})
    proc = rcaeval("validate", "--registry", str(sample_copy), "--format", "json")
    assert proc.returncode == 3
    (problem,) = json.loads(proc.stdout)["problems"]
    assert problem["code"] == "unknown_field"
    assert problem["field"].startswith("detectors.asserts_cpu_hotspot.examples")


def test_examples_and_drafts_do_not_change_rules_hash(sample_copy: Path) -> None:
    from rcaeval.registry import load_case

    before = load_case(sample_copy, PANIC_CASE).rules_hash
    path = _set_examples(sample_copy, PANIC_CASE, "asserts_cpu_hotspot",
                         {"fires": ["Root cause: a CPU hotspot."]})
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["detectors"]["asserts_cpu_hotspot"]["draft"] = True
    doc["judge"]["critical_evidence"]["checks"][0]["draft"] = True
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    assert load_case(sample_copy, PANIC_CASE).rules_hash == before
    proc = rcaeval("validate", "--registry", str(sample_copy), "--format", "json")
    assert proc.returncode == 0, proc.stdout
    drafts = [w for w in json.loads(proc.stdout)["warnings"] if w["code"] == "draft"]
    assert {w["field"] for w in drafts} == {
        "detectors.asserts_cpu_hotspot.draft", "judge.critical_evidence.checks[0].draft"}
    assert all(w["severity"] == "warning" and w["line"] for w in drafts)
