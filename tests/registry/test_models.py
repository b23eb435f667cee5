"""Model parsing without a registry on disk or a database."""

from __future__ import annotations

import copy
import re
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from rcaeval.registry import (
    FACTS,
    BaselineSpec,
    CaseSpec,
    DetectorCondition,
    FactCondition,
    JsonListNonempty,
    JsonTextContainsAny,
    JudgeSpec,
    KeywordAny,
    NumericSeriesAnyGt,
    SuiteSpec,
    apply_defaults,
    is_known_fact,
    re2_problem,
    rules_hash,
)
from rcaeval.registry._defaults import judge_defaults

TIKV = "cases/tikv-panic-restart-001"


def test_suite_defaults(load_fixture_yaml) -> None:
    suite = SuiteSpec.model_validate(load_fixture_yaml("suites/full.yaml"))
    assert suite.execution.jobs == 2
    assert suite.execution.case_timeout_s == 900
    assert suite.execution.max_infra_retries == 1
    assert suite.execution.turn_timeout_s == 600
    assert [c.status for c in suite.cases] == ["active", "active", "quarantined"]
    assert [c.baseline_eligible for c in suite.cases] == [True, True, False]


def test_suite_rejects_unknown_key_and_bad_status(load_fixture_yaml) -> None:
    doc = load_fixture_yaml("suites/smoke.yaml")
    bad = {**doc, "jobs": 3}
    with pytest.raises(ValidationError, match="jobs"):
        SuiteSpec.model_validate(bad)
    bad = copy.deepcopy(doc)
    bad["cases"][0]["status"] = "disabled"
    with pytest.raises(ValidationError):
        SuiteSpec.model_validate(bad)
    bad = {**doc, "suite_id": "Smoke Suite"}
    with pytest.raises(ValidationError, match="pattern"):
        SuiteSpec.model_validate(bad)


def test_case_time_window_normalised_to_utc(load_fixture_yaml) -> None:
    case = CaseSpec.model_validate(load_fixture_yaml(f"{TIKV}/case.yaml"))
    assert case.time_window.start == datetime(2026, 10, 3, 14, 0, tzinfo=UTC)
    assert case.time_window.start.utcoffset().total_seconds() == 0
    assert case.time_window.tolerance_s == 600
    assert case.followup[0].text.startswith("Which evidence")
    assert case.incident_data == "incident"


@pytest.mark.parametrize(
    ("start", "end", "match"),
    [
        ("2026-10-03T15:00:00Z", "2026-10-03T14:00:00Z", "before"),
        ("2026-10-03T14:00:00", "2026-10-03T15:00:00Z", "timezone"),
    ],
)
def test_case_time_window_errors(load_fixture_yaml, start: str, end: str, match: str) -> None:
    doc = load_fixture_yaml(f"{TIKV}/case.yaml")
    doc["time_window"] = {"start": start, "end": end}
    with pytest.raises(ValidationError, match=match):
        CaseSpec.model_validate(doc)


def test_case_rejects_bad_type_and_escaping_incident_dir(load_fixture_yaml) -> None:
    doc = load_fixture_yaml(f"{TIKV}/case.yaml")
    with pytest.raises(ValidationError, match="case_type"):
        CaseSpec.model_validate({**doc, "case_type": "weird"})
    with pytest.raises(ValidationError, match="relative directory"):
        CaseSpec.model_validate({**doc, "incident_data": "../other"})
    with pytest.raises(ValidationError, match="ground_truth"):
        CaseSpec.model_validate({**doc, "ground_truth": {}})


def test_condition_union_parses_each_form(load_fixture_yaml) -> None:
    judge = JudgeSpec.model_validate(load_fixture_yaml(f"{TIKV}/judge.yaml"))
    checks = judge.judge.critical_evidence.checks
    kinds = [type(c) for chk in checks for c in chk.conditions]
    assert kinds == [
        KeywordAny, KeywordAny, JsonListNonempty, JsonTextContainsAny, NumericSeriesAnyGt,
        FactCondition,
    ]
    series = checks[2].conditions[0]
    assert series.file == "metrics.json" and series.labels == {"instance": "tikv-2"}
    supporting = judge.judge.diagnosis.supporting_checks
    assert isinstance(supporting[0].conditions[0], DetectorCondition)
    assert supporting[0].conditions[0].expect is False
    assert checks[1].combinator == "all_of" and checks[0].combinator == "any_of"


def _judge_doc(load_fixture_yaml) -> dict:
    return load_fixture_yaml(f"{TIKV}/judge.yaml")


def test_evidence_method_rejected_outside_critical_evidence(load_fixture_yaml) -> None:
    doc = _judge_doc(load_fixture_yaml)
    doc["judge"]["workflow"] = {"checks": [{"id": "x", "all_of": [
        {"method": "keyword_any", "source": "logs", "keywords": ["a"]}]}]}
    with pytest.raises(ValidationError, match="critical_evidence"):
        JudgeSpec.model_validate(doc)


@pytest.mark.parametrize(
    "cond",
    [
        {"method": "keyword_any", "source": "../etc/passwd", "keywords": ["a"]},
        {"method": "json_list_nonempty", "file": "sub/x.json", "path": "$.a"},
        {"method": "json_list_nonempty", "file": "x.json", "path": "a.b"},
        {"method": "json_text_contains_any", "file": "x.json", "path": "$.a[x]", "needles": ["n"]},
        {"method": "json_text_contains_any", "file": "x.json", "needles": []},
        {"method": "numeric_series_any_gt", "series": "s"},
        {"method": "no_such_method"},
        {"neither": "fact nor detector"},
        {"fact": "cluster.matched", "detector": "d"},
    ],
)
def test_bad_conditions_rejected(load_fixture_yaml, cond: dict) -> None:
    doc = _judge_doc(load_fixture_yaml)
    doc["judge"]["critical_evidence"]["checks"][0]["any_of"] = [cond]
    with pytest.raises(ValidationError):
        JudgeSpec.model_validate(doc)


def test_jsonpath_lite_accepts_documented_forms(load_fixture_yaml) -> None:
    doc = _judge_doc(load_fixture_yaml)
    for path in ("$", "$.a", "$.components[*].last_termination_reason", "$.a[0].b[12]"):
        doc["judge"]["critical_evidence"]["checks"][0]["any_of"] = [
            {"method": "json_list_nonempty", "file": "x.json", "path": path}
        ]
        JudgeSpec.model_validate(doc)


def test_check_needs_exactly_one_combinator(load_fixture_yaml) -> None:
    doc = _judge_doc(load_fixture_yaml)
    hard = doc["judge"]["diagnosis"]["hard_checks"][0]
    hard["any_of"] = hard["all_of"]
    with pytest.raises(ValidationError, match="exactly one of all_of / any_of"):
        JudgeSpec.model_validate(doc)
    del hard["any_of"], hard["all_of"]
    with pytest.raises(ValidationError, match="exactly one"):
        JudgeSpec.model_validate(doc)


@pytest.mark.parametrize(
    "pattern",
    [r"foo(?=bar)", r"foo(?!bar)", r"(?<=a)b", r"(?<!a)b", r"(a)\1", r"(?P<x>a)(?P=x)",
     r"a\Z", r"(?>ab)", r"a++", r"a(b", r"(?x)a b", r"a{2}+"],
)
def test_detector_patterns_must_be_re2(load_fixture_yaml, pattern: str) -> None:
    assert re2_problem(pattern) is not None
    doc = _judge_doc(load_fixture_yaml)
    doc["detectors"]["asserts_storage_panic"]["any"] = [pattern]
    with pytest.raises(ValidationError):
        JudgeSpec.model_validate(doc)


@pytest.mark.parametrize("pattern", [r"a\\1", r"[(?=]x", r"(?:a|b)+?", r"(?i)tikv\S+", r"\d{2}"])
def test_re2_compatible_patterns_pass(pattern: str) -> None:
    assert re2_problem(pattern) is None


def test_defaults_applied_and_required_resolved(load_fixture_yaml) -> None:
    raw = JudgeSpec.model_validate(_judge_doc(load_fixture_yaml))
    assert raw.judge.contract is None
    judge = apply_defaults(raw).judge
    assert [c.id for c in judge.contract.checks] == ["time_window_match", "cluster_scope_match"]
    assert all(c.required is True for c in judge.contract.checks)
    wf = {c.id: c.required for c in judge.workflow.checks}
    assert wf["summary_read_completed"] is False and wf["diagnosis_run_initialized"] is True
    # the given evidence_collection keeps its channels but gets the default checks
    ec = judge.evidence_collection
    assert ec.preferred_channels == ["logs", "metrics", "events"]
    assert ec.min_preferred_channels == 2
    ecs = {c.id: c.required for c in ec.checks}
    assert ecs["attempted_events_collection_persisted"] is False
    assert ecs["required_artifacts_present"] is True
    # bucket-dependent defaults for checks that leave `required` out
    assert all(c.required is False for c in judge.critical_evidence.checks)
    assert judge.diagnosis.hard_checks[0].required is True
    assert all(c.required is False for c in judge.diagnosis.supporting_checks)
    # every check references catalog facts only
    for bucket in ("contract", "workflow", "execution_contract", "evidence_collection",
                   "evidence_routing"):
        for chk in getattr(judge, bucket).checks:
            for cond in chk.conditions:
                assert cond.fact in FACTS


def test_given_bucket_overrides_defaults(load_fixture_yaml) -> None:
    doc = load_fixture_yaml("cases/slow-query-kill-002/judge.yaml")
    judge = apply_defaults(JudgeSpec.model_validate(doc)).judge
    assert [c.id for c in judge.contract.checks] == ["cluster_scope_match"]
    assert judge.contract.checks[0].required is True  # contract default
    assert {c.id: c.required for c in judge.workflow.checks} == {
        "diagnosis_run_initialized": True, "log_query": False}
    assert [c.id for c in judge.evidence_routing.checks] == ["patch_valid_json"]


def test_judge_defaults_file_is_valid() -> None:
    d = judge_defaults()
    routing = {c.id: c.required for c in d.evidence_routing.checks}
    assert routing == {
        "patch_present": True, "patch_valid_json": True, "items_shape_valid": True,
        "key_evidence_present": True, "metric_refs_resolvable": True,
        "query_refs_resolvable": True, "log_refs_resolvable": False,
        "event_refs_resolvable": False,
    }


def test_rules_hash_stable_and_sensitive(load_fixture_yaml) -> None:
    doc = _judge_doc(load_fixture_yaml)
    h1 = rules_hash(JudgeSpec.model_validate(doc))
    assert h1 == rules_hash(JudgeSpec.model_validate(copy.deepcopy(doc)))
    assert len(h1) == 64 and int(h1, 16) >= 0
    # applying defaults is idempotent for the hash
    assert rules_hash(apply_defaults(JudgeSpec.model_validate(doc))) == h1
    # writing out a default explicitly does not change the hash
    explicit = copy.deepcopy(doc)
    explicit["judge"]["critical_evidence"]["checks"][0]["required"] = False
    assert rules_hash(JudgeSpec.model_validate(explicit)) == h1
    changed = copy.deepcopy(doc)
    changed["judge"]["critical_evidence"]["checks"][0]["weight"] = 3
    assert rules_hash(JudgeSpec.model_validate(changed)) != h1
    changed = copy.deepcopy(doc)
    changed["detectors"]["blames_network"]["negation"] = False
    assert rules_hash(JudgeSpec.model_validate(changed)) != h1


def test_fact_catalog_matches_docs(repo_root) -> None:
    text = (repo_root / "docs" / "registry.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \|", text, re.M))
    assert documented == set(FACTS)
    assert all(isinstance(v, str) and v for v in FACTS.values())
    assert is_known_fact("detector.x", {"x"})
    assert not is_known_fact("detector.y", {"x"})
    assert not is_known_fact("window.bogus")


def test_baseline_parses_pass_alias(load_fixture_yaml) -> None:
    base = BaselineSpec.model_validate(load_fixture_yaml("baselines/smoke.yaml"))
    assert base.summary.pass_ == 1
    assert base.promoted_at.tzinfo is not None
    assert base.cases[1].subtype == "diagnosis_failed"
    assert base.model_dump(by_alias=True)["summary"]["pass"] == 1
    bad = load_fixture_yaml("baselines/smoke.yaml")
    bad["cases"][0]["verdict"] = "maybe"
    with pytest.raises(ValidationError, match="verdict"):
        BaselineSpec.model_validate(bad)
