"""The static half of a proof: which checks nothing the agent is given can pass, and the
``unreachable_evidence`` warning of ``rcaeval validate``."""

from __future__ import annotations

import json

from prove_kit import REGISTRY, edit, make_unreachable, rcaeval, registry_copy

from rcaeval.prove import unreachable_checks
from rcaeval.prove._reach import condition_problem
from rcaeval.registry import FACTS, load_case, load_registry
from rcaeval.registry._conditions import FactCondition, JsonListNonempty
from rcaeval.registry._facts import FACT_INPUTS


def test_every_catalog_fact_says_what_it_reads() -> None:
    assert set(FACT_INPUTS) == set(FACTS)


def test_a_file_no_tool_writes_is_unreachable(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    check = make_unreachable(root)
    found = unreachable_checks(load_case(root, "disk-full-tikv-001"))
    assert [(u.bucket, u.check_id, u.message) for u in found] == [(
        "critical_evidence", check, f"critical_evidence check {check} reads "
        "evidences/operator_notes.json, which no tool writes")]
    assert found[0].field == ("judge", "critical_evidence", "checks", 3)


def test_any_of_is_reachable_while_one_condition_is(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    path = root / "cases" / "disk-full-tikv-001" / "judge.yaml"
    edit(path, """      - method: json_text_contains_any
        file: component_health.json""", """      - method: json_list_nonempty
        file: operator_notes.json
        path: $.notes
      - method: json_text_contains_any
        file: component_health.json""")
    assert unreachable_checks(load_case(root, "disk-full-tikv-001")) == []


def test_a_tool_whose_backend_is_down_writes_nothing() -> None:
    cond = JsonListNonempty(method="json_list_nonempty", file="events.json", path="$.events")
    assert condition_problem(cond, []) is None
    assert condition_problem(cond, ["events"]) == (
        "reads evidences/events.json, which only list_events writes, and the events backend "
        "is unavailable in this case (incident/tool_status.json)")


def test_collection_errors_need_an_outage() -> None:
    cond = JsonListNonempty(method="json_list_nonempty", file="collection_errors.json",
                            path="$.errors")
    assert condition_problem(cond, ["metrics"]) is None
    assert "lists no unavailable channel" in condition_problem(cond, [])


def test_facts_are_reachable_through_any_input() -> None:
    assert condition_problem(FactCondition(fact="channel.logs_observed"), []) is None
    assert condition_problem(FactCondition(fact="window.matched_allowed_window"), []) is None
    why = condition_problem(FactCondition(fact="artifacts.logs_dir_present"), [])
    assert why == "needs fact artifacts.logs_dir_present, which reads logs/, which no tool writes"
    # a fact that must be false is always within reach
    assert condition_problem(FactCondition(fact="artifacts.logs_dir_present",
                                           expect=False), []) is None


def test_shipped_default_checks_are_all_reachable() -> None:
    for case in load_registry(REGISTRY).cases.values():
        assert [u for u in unreachable_checks(case) if u.bucket != "critical_evidence"] == []


def test_validate_warns_naming_file_line_and_field(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    check = make_unreachable(root)
    res = rcaeval("validate", "--registry", str(root), "--format", "json")
    assert res.returncode == 0, res.stderr
    warned = [w for w in json.loads(res.stdout)["warnings"]
              if w["code"] == "unreachable_evidence"
              and w["file"] == "cases/disk-full-tikv-001/judge.yaml"]
    assert len(warned) == 1
    w = warned[0]
    assert w["field"] == "judge.critical_evidence.checks[3]"
    lines = (root / w["file"]).read_text().splitlines()
    assert lines[w["line"] - 1].strip() == f"- id: {check}"
    assert w["message"].startswith(f"critical_evidence check {check} reads "
                                   "evidences/operator_notes.json, which no tool writes")
    assert w["severity"] == "warning"
