"""Loader errors: YAML syntax, missing fields and wrong types map to file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from rcaeval.errors import ExitCode, InputError, NotFoundError
from rcaeval.registry import (
    MergedCase,
    RegistryError,
    iter_suite_cases,
    load_case,
    load_suite,
    rules_hash,
)
from rcaeval.registry._yamlsrc import parse_yaml

TIKV = "tikv-panic-restart-001"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_load_case_merges_case_and_judge(fixture_registry: Path) -> None:
    merged = load_case(fixture_registry, TIKV)
    assert isinstance(merged, MergedCase)
    assert merged.case_id == TIKV
    assert merged.case_dir == fixture_registry / "cases" / TIKV
    assert merged.incident_dir == merged.case_dir / "incident"
    assert merged.expected_md == merged.case_dir / "expected.md"
    assert merged.judge.judge.contract is not None  # defaults applied
    assert merged.rules_hash == rules_hash(merged)
    other = load_case(fixture_registry, "slow-query-kill-002")
    assert other.incident_dir is None and other.expected_md is None
    assert other.rules_hash != merged.rules_hash


def test_load_case_not_found(fixture_registry: Path) -> None:
    with pytest.raises(NotFoundError):
        load_case(fixture_registry, "no-such-case")
    with pytest.raises(NotFoundError):
        load_case(fixture_registry / "nope", TIKV)


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "x.yaml", "a: 1\nb: [1, 2\nc: 3\n")
    doc, problems = parse_yaml(path, "x.yaml")
    assert doc is None
    assert [(p.file, p.code) for p in problems] == [("x.yaml", "yaml_syntax")]
    assert problems[0].line == 3


def test_non_mapping_document(tmp_path: Path) -> None:
    doc, problems = parse_yaml(_write(tmp_path / "x.yaml", "- a\n- b\n"), "x.yaml")
    assert doc is None and problems[0].code == "not_a_mapping"
    doc, problems = parse_yaml(_write(tmp_path / "e.yaml", ""), "e.yaml")
    assert doc is None and "empty" in problems[0].message


def test_line_map_covers_keys_and_items(tmp_path: Path) -> None:
    path = _write(tmp_path / "x.yaml", "a:\n  b:\n    - x\n    - {c: 1}\nd: 2\n")
    doc, problems = parse_yaml(path, "x.yaml")
    assert not problems and doc is not None
    assert doc.lines[("a",)] == 1
    assert doc.lines[("a", "b", 1)] == 4
    assert doc.lines[("a", "b", 1, "c")] == 4
    assert doc.lines[("d",)] == 5
    assert doc.line_of(("a", "b", 1, "missing")) == 4


def test_missing_field_names_field_and_line(registry_copy: Path) -> None:
    path = registry_copy / "cases" / TIKV / "judge.yaml"
    text = path.read_text(encoding="utf-8")
    _write(path, text.replace("    summary: TiKV store", "    summry: TiKV store"))
    with pytest.raises(RegistryError) as info:
        load_case(registry_copy, TIKV)
    err = info.value
    assert err.exit_code == ExitCode.INVALID_INPUT and isinstance(err, InputError)
    by_code = {p.code: p for p in err.problems}
    missing = by_code["missing_field"]
    assert missing.file == f"cases/{TIKV}/judge.yaml"
    assert missing.field == "ground_truth.root_cause.summary"
    assert missing.line == 3  # the line of root_cause, the mapping that lacks it
    extra = by_code["unknown_field"]
    assert extra.field == "ground_truth.root_cause.summry" and extra.line == 6
    assert err.file.endswith("judge.yaml") and err.line is not None


def test_wrong_type_names_field_and_line(registry_copy: Path) -> None:
    path = registry_copy / "cases" / TIKV / "case.yaml"
    text = path.read_text(encoding="utf-8")
    _write(path, text.replace("  tolerance_s: 600", "  tolerance_s: ten minutes"))
    with pytest.raises(RegistryError) as info:
        load_case(registry_copy, TIKV)
    (problem,) = info.value.problems
    assert problem.file == f"cases/{TIKV}/case.yaml"
    assert problem.field == "time_window.tolerance_s"
    assert problem.line == 16
    assert problem.code == "invalid_value" and "ten minutes" in problem.message


def test_nested_condition_error_line(registry_copy: Path) -> None:
    path = registry_copy / "cases" / TIKV / "judge.yaml"
    text = path.read_text(encoding="utf-8")
    _write(path, text.replace("            threshold: 0", "            threshold: high"))
    with pytest.raises(RegistryError) as info:
        load_case(registry_copy, TIKV)
    (problem,) = info.value.problems
    assert problem.field == "judge.critical_evidence.checks[2].any_of[0].threshold"
    lines = text.splitlines()
    assert lines[problem.line - 1].strip() == "threshold: 0"


def test_load_suite(fixture_registry: Path) -> None:
    suite = load_suite(fixture_registry, "smoke")
    assert suite.case_ids == [TIKV, "slow-query-kill-002"]
    with pytest.raises(NotFoundError, match="full, smoke"):
        load_suite(fixture_registry, "nightly")


def test_iter_suite_cases_yields_broken_cases_with_problems(registry_copy: Path) -> None:
    _write(registry_copy / "cases" / "slow-query-kill-002" / "judge.yaml", "case_id: [\n")
    entries = list(iter_suite_cases(registry_copy, "full"))
    assert [e.entry.id for e in entries] == [TIKV, "slow-query-kill-002", "events-degraded-003"]
    assert [e.ok for e in entries] == [True, False, True]
    assert entries[1].problems[0].code == "yaml_syntax"
    assert entries[2].entry.status == "quarantined"
