"""validate_registry over the fixture registry and corrupted copies of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rcaeval.registry import Problem, load_registry, validate_registry

TIKV = "tikv-panic-restart-001"
SLOW = "slow-query-kill-002"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not found in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _only(problems: list[Problem], code: str) -> Problem:
    found = [p for p in problems if p.code == code]
    assert len(found) == 1, problems
    return found[0]


def test_fixture_registry_is_clean(fixture_registry: Path) -> None:
    reg = load_registry(fixture_registry)
    assert reg.problems == []
    assert sorted(reg.suites) == ["full", "smoke"]
    assert sorted(reg.cases) == [
        "events-degraded-003", "slow-query-kill-002", "tikv-panic-restart-001"]
    assert sorted(reg.baselines) == ["smoke"]
    assert reg.summary() == "2 suites, 3 cases, 1 baselines"


def test_bad_yaml(registry_copy: Path) -> None:
    _edit(registry_copy / "suites/smoke.yaml", "description: Smoke", "description: [Smoke")
    p = _only(validate_registry(registry_copy), "yaml_syntax")
    assert p.file == "suites/smoke.yaml" and p.line == 4


def test_missing_field(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/case.yaml", "title: A runaway", "titel: A runaway")
    problems = validate_registry(registry_copy)
    p = _only(problems, "missing_field")
    assert (p.file, p.field, p.line) == (f"cases/{SLOW}/case.yaml", "title", 1)
    assert _only(problems, "unknown_field").field == "titel"


def test_undefined_detector(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{TIKV}/judge.yaml", "- detector: asserts_storage_panic",
          "- detector: asserts_tikv_panic")
    p = _only(validate_registry(registry_copy), "undefined_detector")
    assert p.file == f"cases/{TIKV}/judge.yaml"
    assert p.field == "judge.diagnosis.hard_checks[0].all_of[0].detector"
    assert "asserts_tikv_panic" in p.message and p.line is not None


def test_undefined_detector_fact(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/judge.yaml", "fact: detector.asserts_runaway_query",
          "fact: detector.asserts_slow_query")
    p = _only(validate_registry(registry_copy), "undefined_detector")
    assert p.field == "judge.diagnosis.hard_checks[0].any_of[0].fact"


def test_undefined_fact(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/judge.yaml", "fact: signal.kill_query_present",
          "fact: signal.query_killed")
    p = _only(validate_registry(registry_copy), "unknown_fact")
    assert p.file == f"cases/{SLOW}/judge.yaml"
    assert p.field == "judge.critical_evidence.checks[0].any_of[0].fact"
    assert "signal.query_killed" in p.message


def test_ground_truth_in_case_yaml_is_one_boundary_problem(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/case.yaml", "case_type: compositional\n",
          "case_type: compositional\nground_truth:\n  root_cause: {family: x}\n")
    problems = validate_registry(registry_copy)
    assert len(problems) == 1, problems
    p = problems[0]
    assert (p.file, p.line, p.field, p.code) == (
        f"cases/{SLOW}/case.yaml", 4, "ground_truth", "information_boundary")


def test_nested_judge_only_field_in_case_yaml(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/case.yaml", "  cluster_id: prod-tidb-021\n",
          "  cluster_id: prod-tidb-021\n  expected: runaway query\n")
    p = _only(validate_registry(registry_copy), "information_boundary")
    assert p.field == "environment.expected"


def test_missing_case_in_suite(registry_copy: Path) -> None:
    shutil.rmtree(registry_copy / f"cases/{SLOW}")
    problems = validate_registry(registry_copy)
    missing = [p for p in problems if p.code == "missing_case"]
    assert {(p.file, p.field) for p in missing} == {
        ("suites/full.yaml", "cases[1].id"), ("suites/smoke.yaml", "cases[1].id")}
    # the smoke baseline names the case too: it is still a suite member, so no unknown_case
    assert not [p for p in problems if p.code == "unknown_case"]


def test_duplicate_ids(registry_copy: Path) -> None:
    _edit(registry_copy / "suites/full.yaml", "  - id: slow-query-kill-002\n",
          "  - id: slow-query-kill-002\n  - id: tikv-panic-restart-001\n")
    _edit(registry_copy / f"cases/{SLOW}/judge.yaml", "      - id: log_query",
          "      - id: diagnosis_run_initialized")
    _edit(registry_copy / f"cases/{TIKV}/judge.yaml", "  blames_network:",
          "  asserts_storage_panic:")
    shutil.copy(registry_copy / "suites/smoke.yaml", registry_copy / "suites/smoke2.yaml")
    problems = [p for p in validate_registry(registry_copy) if p.code == "duplicate_id"]
    got = {(p.file, p.field) for p in problems}
    assert got == {
        ("suites/full.yaml", "cases[2].id"),
        (f"cases/{SLOW}/judge.yaml", "judge.workflow.checks[1].id"),
        (f"cases/{TIKV}/judge.yaml", "detectors.asserts_storage_panic"),
        ("suites/smoke2.yaml", "suite_id"),
    }
    lines = {p.file: p.line for p in problems}
    assert lines["suites/full.yaml"] == 7
    assert lines[f"cases/{TIKV}/judge.yaml"] == 13


def test_case_id_must_match_directory(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/case.yaml", f"case_id: {SLOW}", "case_id: slow-query")
    p = _only(validate_registry(registry_copy), "id_mismatch")
    assert (p.file, p.field, p.line) == (f"cases/{SLOW}/case.yaml", "case_id", 1)


def test_judge_without_case_and_case_without_judge(registry_copy: Path) -> None:
    (registry_copy / f"cases/{SLOW}/case.yaml").unlink()
    (registry_copy / "cases/events-degraded-003/judge.yaml").unlink()
    problems = validate_registry(registry_copy)
    assert _only(problems, "orphan_judge").file == f"cases/{SLOW}/judge.yaml"
    assert _only(problems, "missing_file").file == "cases/events-degraded-003/judge.yaml"


def test_evidence_method_outside_critical_evidence(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/judge.yaml",
          "          - fact: analysis.patch_valid_json",
          "          - {method: keyword_any, source: logs, keywords: [x]}")
    p = _only(validate_registry(registry_copy), "evidence_method_scope")
    assert p.field == "judge.evidence_routing.checks[0].all_of[0]"
    assert "critical_evidence" in p.message


@pytest.mark.parametrize("pattern", ["'tikv(?=panic)'", "'(a)\\1'", "'a(b'"])
def test_bad_detector_regex(registry_copy: Path, pattern: str) -> None:
    _edit(registry_copy / f"cases/{SLOW}/judge.yaml",
          "any: ['(?:slow|runaway|expensive) (?:sql|query)']", f"any: [{pattern}]")
    p = _only(validate_registry(registry_copy), "invalid_value")
    assert p.field == "detectors.asserts_runaway_query.any"
    assert "RE2" in p.message or "compile" in p.message


def test_baseline_unknown_suite_and_case(registry_copy: Path) -> None:
    _edit(registry_copy / "baselines/smoke.yaml", "case_id: slow-query-kill-002",
          "case_id: events-degraded-003")
    shutil.copy(registry_copy / "baselines/smoke.yaml", registry_copy / "baselines/nightly.yaml")
    _edit(registry_copy / "baselines/nightly.yaml", "suite_id: smoke", "suite_id: nightly")
    problems = validate_registry(registry_copy)
    unknown_case = [p for p in problems if p.code == "unknown_case"]
    assert {(p.file, p.field) for p in unknown_case} == {
        ("baselines/smoke.yaml", "cases[1].case_id")}
    p = _only(problems, "unknown_suite")
    assert (p.file, p.field) == ("baselines/nightly.yaml", "suite_id")


def test_baseline_summary_must_match_rows(registry_copy: Path) -> None:
    _edit(registry_copy / "baselines/smoke.yaml", "pass: 1, fail: 1", "pass: 2, fail: 1")
    p = _only(validate_registry(registry_copy), "inconsistent_summary")
    assert (p.field, p.line) == ("summary.pass", 6)


def test_problems_sorted_deterministically(registry_copy: Path) -> None:
    _edit(registry_copy / f"cases/{SLOW}/judge.yaml", "fact: signal.kill_query_present",
          "fact: signal.nope")
    _edit(registry_copy / "suites/full.yaml", "description: Every", "descriptio: Every")
    first = validate_registry(registry_copy)
    assert first == validate_registry(registry_copy)
    assert first == sorted(first, key=Problem.sort_key)
    assert [p.file for p in first] == [f"cases/{SLOW}/judge.yaml", "suites/full.yaml"]


def test_catalog_lints_run_even_when_schema_fails(registry_copy: Path) -> None:
    path = registry_copy / f"cases/{SLOW}/judge.yaml"
    _edit(path, "fact: signal.kill_query_present", "fact: signal.nope")
    _edit(path, "mode: blended", "mode: vibes")
    codes = {p.code: p.field for p in validate_registry(registry_copy)}
    assert codes == {"unknown_fact": "judge.critical_evidence.checks[0].any_of[0].fact",
                     "invalid_value": "judge.diagnosis.mode"}


def test_case_id_naming_the_ground_truth_is_a_warning(fixture_registry: Path) -> None:
    reg = load_registry(fixture_registry)
    assert reg.ok and reg.problems == []
    (w,) = reg.warnings
    assert (w.code, w.severity, w.file, w.field, w.line) == (
        "case_id_leaks_ground_truth", "warning", f"cases/{TIKV}/case.yaml", "case_id", 1)
    assert "'panic', 'tikv'" in w.message and "--expose-case-ids" in w.message
    assert validate_registry(fixture_registry) == []  # errors only, by default
    assert validate_registry(fixture_registry, warnings=True) == [w]
    # a warning never stops a case from loading or running
    from rcaeval.registry import load_case

    assert load_case(fixture_registry, TIKV).case_id == TIKV


def test_case_id_leak_ignores_neutral_ids_and_visible_words(registry_copy: Path) -> None:
    judge = registry_copy / f"cases/{TIKV}/judge.yaml"
    _edit(judge, "family: storage_node_panic", "family: raft_log_corruption")
    (w,) = load_registry(registry_copy).warnings
    assert "'tikv'" in w.message and "'panic'" not in w.message  # the component still leaks
    # a word the agent is shown anyway (prompt, follow-ups, environment) adds nothing
    _edit(registry_copy / f"cases/{TIKV}/case.yaml", "Find the root cause.",
          "TiKV stores restarted. Find the root cause.")
    assert load_registry(registry_copy).warnings == []


def test_problem_severity_defaults_to_error() -> None:
    p = Problem("f.yaml", 1, "x", "invalid_value", "bad")
    assert p.severity == "error" and p.to_dict()["severity"] == "error"
