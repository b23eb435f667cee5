"""`rcaeval case try`: one answer judged against a case with the judge's own code."""

from __future__ import annotations

import json
from pathlib import Path

from rcaeval.authoring import try_answer
from tests.authoring.conftest import PANIC_CASE, RECORDED, SAMPLE_REGISTRY, rcaeval

RIGHT = """## Root cause
TiKV store 5 (tikv-2) panicked on a corrupted raft log entry and crash-looped (BackOff).

## Ruled out
A CPU hotspot: no read pool saturation.

We recommend restoring the store from a snapshot.
"""
WRONG = "Root cause: a CPU hotspot on region 88213 saturated the unified read pool.\n"


def _try(*args: str, stdin: str | None = None) -> dict:
    proc = rcaeval("case", "try", PANIC_CASE, "--registry", str(SAMPLE_REGISTRY), "--json",
                   *args, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _detector(payload: dict, det_id: str) -> dict:
    return next(d for d in payload["detectors"] if d["detector_id"] == det_id)


def _check(payload: dict, check_id: str) -> dict:
    return next(c for c in payload["diagnosis"]["checks"] if c["check_id"] == check_id)


def test_a_right_answer_passes_diagnosis_with_each_rule_named(tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(RIGHT, encoding="utf-8")
    payload = _try("--answer", str(answer))
    assert payload["diagnosis"]["status"] == "pass"
    panic = _detector(payload, "asserts_storage_node_panic")
    assert panic["fires"] is True
    assert panic["rule"] == 'conclusion heading "Root cause"; fires'
    assert panic["hits"][0]["line_no"] == 2
    hotspot = _detector(payload, "asserts_cpu_hotspot")
    assert hotspot["fires"] is False
    assert hotspot["rule"].startswith('alternatives heading "Ruled out"')
    assert _check(payload, "identifies_storage_node_panic")["passed"] is True
    assert _check(payload, "avoids_cpu_hotspot_misdiagnosis")["passed"] is True
    assert _check(payload, "gives_remediation")["passed"] is True
    # detectors in judge.yaml order; no verdict without a bundle
    assert payload["detectors"][0]["detector_id"] == "asserts_storage_node_panic"
    assert "verdict" not in payload


def test_a_wrong_answer_from_stdin_fails_diagnosis() -> None:
    payload = _try("--answer", "-", stdin=WRONG)
    assert payload["diagnosis"]["status"] == "fail"
    assert _detector(payload, "asserts_cpu_hotspot")["fires"] is True
    assert _detector(payload, "asserts_storage_node_panic")["fires"] is False
    assert _check(payload, "avoids_cpu_hotspot_misdiagnosis")["passed"] is False
    assert _check(payload, "identifies_storage_node_panic")["passed"] is False
    assert "asserts_cpu_hotspot" in payload["diagnosis"]["reason"] or \
        "avoids_cpu_hotspot_misdiagnosis" in payload["diagnosis"]["reason"]


def test_text_output_names_decision_rule_and_checks(tmp_path: Path) -> None:
    proc = rcaeval("case", "try", PANIC_CASE, "--registry", str(SAMPLE_REGISTRY),
                   "--answer", "-", stdin="Root cause: it might be a TiKV panic on tikv-2.\n")
    assert proc.returncode == 0, proc.stderr
    assert 'hedged by "might"' in proc.stdout
    assert "identifies_storage_node_panic" in proc.stdout and "FAIL" in proc.stdout
    assert "diagnosis: fail" in proc.stdout


def test_with_a_bundle_the_answer_gets_the_whole_verdict() -> None:
    bundle = RECORDED / "rec-thorough" / PANIC_CASE
    right = try_answer(SAMPLE_REGISTRY, PANIC_CASE, RIGHT, bundle=bundle)
    assert right.verdict == "pass", right.verdict_reason
    assert right.bucket("critical_evidence")["status"] == "pass"
    payload = _try("--answer", "-", "--bundle", str(bundle), stdin=WRONG)
    assert payload["verdict"] == "fail"
    assert {b["bucket"] for b in payload["buckets"]} >= {"critical_evidence", "diagnosis"}
    assert (bundle / "output.txt").read_text(encoding="utf-8") != WRONG  # a copy was judged


def test_bad_input_exits_3_and_unknown_case_6(tmp_path: Path) -> None:
    proc = rcaeval("case", "try", PANIC_CASE, "--registry", str(SAMPLE_REGISTRY),
                   "--answer", "-", stdin="  \n")
    assert proc.returncode == 3 and "empty" in proc.stderr
    proc = rcaeval("case", "try", "no-such-case", "--registry", str(SAMPLE_REGISTRY),
                   "--answer", "-", stdin=WRONG)
    assert proc.returncode == 6 and "no-such-case" in proc.stderr
    proc = rcaeval("case", "try", PANIC_CASE, "--registry", str(SAMPLE_REGISTRY),
                   "--answer", str(tmp_path / "absent.md"))
    assert proc.returncode == 6 and "absent.md" in proc.stderr


def test_each_cue_stage_names_the_cue_that_decided_it() -> None:
    """The four cue stages (negation, hedge, role, weak consequence wording) each name their
    deciding cue in the hit's decided_by (queries/facts/detector_cue.sql)."""
    answers = {
        "negated": ("## Root cause\nIt was not tikv-2 panicking on a corrupted raft entry.\n",
                    'negated by "not"'),
        "hedged": ("## Root cause\nIt might be tikv-2 panicking, we could not confirm it.\n",
                   'hedged by "might"'),
        "role": ("## Root cause\nThe tikv-2 crash loop was merely a symptom of the disk "
                 "failure.\n", 'consequence by "was merely a symptom"'),
    }
    for name, (text, cue) in answers.items():
        found = try_answer(SAMPLE_REGISTRY, PANIC_CASE, text)
        panic = found.detectors["asserts_storage_node_panic"]
        assert not panic.fires, name
        assert any(cue in h["decided_by"] for h in panic.hits), (name, panic.hits)
    # weak wording demotes the mention, which still fires when no other cause is asserted
    weak = try_answer(SAMPLE_REGISTRY, PANIC_CASE, "## Root cause\nThe disk failure led to "
                      "tikv-2 panicking on a corrupted raft entry.\n")
    panic = weak.detectors["asserts_storage_node_panic"]
    assert panic.fires
    assert 'consequence wording "led to"' in panic.hits[0]["decided_by"], panic.hits
