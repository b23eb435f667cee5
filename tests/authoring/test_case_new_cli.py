"""`rcaeval case new`: a case drafted from a sample incident validates (with draft warnings),
and its drafted critical-evidence checks fire on a bundle the incident tools record from the
same incident data."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from rcaeval.authoring import draft_case, try_answer
from rcaeval.errors import InputError, NotFoundError
from rcaeval.tools import IncidentTools, load_case_data
from tests.authoring.conftest import PANIC_CASE, rcaeval

NEW = "panic-draft-001"


def _collect_everything(case_dir: Path, bundle: Path) -> None:
    """What a thorough agent does through the incident tools: every channel, every page."""
    tools = IncidentTools(load_case_data(case_dir), bundle)
    tools.get_ticket()
    tools.get_topology()
    for name in sorted({s["name"] for s in tools.data.series}):
        tools.query_metrics(name)
    cursor = None
    while True:
        page = tools.search_logs(min_level="ERROR", cursor=cursor, limit=200)
        cursor = page.get("next_cursor")
        if not cursor:
            break
    tools.list_events()
    tools.get_component_health()
    tools.get_slow_queries()
    if tools.data.checks:
        tools.get_alerts()


def test_case_new_drafts_a_case_that_validates_and_whose_checks_fire(
        sample_copy: Path, tmp_path: Path) -> None:
    incident = sample_copy / "cases" / PANIC_CASE / "incident"
    proc = rcaeval("case", "new", NEW, "--incident", str(incident),
                   "--registry", str(sample_copy))
    assert proc.returncode == 0, proc.stderr
    assert "channels with data: logs, metrics, queries, events, alerts" in proc.stdout
    case_dir = sample_copy / "cases" / NEW
    assert {p.name for p in case_dir.iterdir()} == {"case.yaml", "judge.yaml", "expected.md",
                                                   "incident"}
    judge_text = (case_dir / "judge.yaml").read_text(encoding="utf-8")
    marks = len(re.findall(r"(?m)^\s*(?:- )?draft: true$", judge_text))
    assert judge_text.count("# REVIEW: ") == marks >= 4
    judge = yaml.safe_load(judge_text)
    assert judge["judge"]["evidence_collection"]["preferred_channels"] == [
        "logs", "metrics", "queries", "events", "alerts"]
    checks = judge["judge"]["critical_evidence"]["checks"]
    methods = {c["any_of"][0]["method"] for c in checks}
    assert methods >= {"keyword_any", "numeric_series_any_gt", "json_text_contains_any"}
    panic = next(c for c in checks if c["any_of"][0]["method"] == "keyword_any")
    assert panic["any_of"][0]["keywords"] == ["TiKV panic"]
    restarts = next(c for c in checks if c["any_of"][0].get("series") == "tikv_restart_total")
    assert restarts["any_of"][0]["labels"] == {"instance": "tikv-2"}
    assert 0 < restarts["any_of"][0]["threshold"] < 8
    case = yaml.safe_load((case_dir / "case.yaml").read_text(encoding="utf-8"))
    assert case["environment"]["cluster_id"] == "prod-tidb-017"
    assert case["time_window"] == {"start": "2026-10-03T14:00:00Z",
                                   "end": "2026-10-03T15:00:00Z", "tolerance_s": 600}
    assert "TiDBP99LatencyHigh" in case["prompt"]["text"]

    proc = rcaeval("validate", "--registry", str(sample_copy), "--format", "json")
    assert proc.returncode == 0, proc.stdout
    drafts = [w for w in json.loads(proc.stdout)["warnings"]
              if w["code"] == "draft" and w["file"].startswith(f"cases/{NEW}/")]
    assert len(drafts) == marks + 1  # + case.yaml

    bundle = tmp_path / "bundle"
    _collect_everything(case_dir, bundle)
    result = try_answer(sample_copy, NEW, "Root cause: tikv panic on tikv-2.", bundle=bundle)
    evidence = result.bucket_checks("critical_evidence")
    assert len(evidence) == len(checks)
    assert all(c["passed"] for c in evidence), [c for c in evidence if not c["passed"]]
    assert result.bucket("critical_evidence")["status"] == "pass"
    assert result.detectors["asserts_unknown"].fires


def test_case_new_refuses_bad_ids_and_existing_cases(sample_copy: Path) -> None:
    incident = sample_copy / "cases" / PANIC_CASE / "incident"
    proc = rcaeval("case", "new", "../escape", "--incident", str(incident),
                   "--registry", str(sample_copy))
    assert proc.returncode == 3 and "invalid case id" in proc.stderr
    for bad in ("a/b", "a\\b", "a..b", "Upper", "", "nul\x00"):
        with pytest.raises(InputError, match="invalid case id"):
            draft_case(sample_copy, bad, incident)
    proc = rcaeval("case", "new", PANIC_CASE, "--incident", str(incident),
                   "--registry", str(sample_copy))
    assert proc.returncode == 3 and "--force" in proc.stderr
    assert (sample_copy / "cases" / PANIC_CASE / "expected.md").read_text().startswith(
        f"# {PANIC_CASE}")
    with pytest.raises(NotFoundError, match="absent"):
        draft_case(sample_copy, NEW, sample_copy / "absent")
    assert not any(p.name.startswith(".") for p in (sample_copy / "cases").iterdir())
    assert not (sample_copy / "cases" / NEW).exists()


def test_force_replaces_and_given_truth_is_not_a_draft(sample_copy: Path) -> None:
    incident = sample_copy / "cases" / PANIC_CASE / "incident"
    draft_case(sample_copy, NEW, incident)
    drafted = draft_case(sample_copy, NEW, incident, family="storage_node_panic",
                         summary="TiKV store 5 panicked on a corrupted raft log entry.",
                         force=True)
    judge = yaml.safe_load((drafted.case_dir / "judge.yaml").read_text(encoding="utf-8"))
    assert "draft" not in judge["ground_truth"]["root_cause"]
    assert judge["detectors"]["asserts_storage_node_panic"]["any"] == [
        r"\bstorage[\s_-]*node[\s_-]*panic\b"]
    assert not any(w.field.startswith("ground_truth") for w in drafted.warnings)
    assert not any(p.name.startswith(".") for p in (sample_copy / "cases").iterdir())


def test_failed_alert_checks_become_an_alerts_channel_and_checks(
        sample_copy: Path, tmp_path: Path) -> None:
    incident = tmp_path / "incident"
    shutil.copytree(sample_copy / "cases" / PANIC_CASE / "incident", incident)
    (incident / "alerts.json").write_text(json.dumps({"checks": [
        {"name": "TiKVStoreDown", "status": "fail", "component": "tikv-2",
         "detail": "store 5 (tikv-2) down for 6 minutes: missed 6 consecutive heartbeats"},
        {"name": "PDLeaderStable", "status": "pass", "detail": "no PD leader change"},
    ]}), encoding="utf-8")
    drafted = draft_case(sample_copy, NEW, incident)
    assert drafted.channels == ["logs", "metrics", "queries", "events", "alerts"]
    (alert,) = [s for s in drafted.signals if s.channel == "alerts"]
    assert alert.check_id == "alert_tikvstoredown"
    assert alert.condition["file"] == "gate_checks.json"
    bundle = tmp_path / "bundle"
    _collect_everything(drafted.case_dir, bundle)
    result = try_answer(sample_copy, NEW, "Root cause: tikv panic.", bundle=bundle)
    evidence = {c["check_id"]: c["passed"] for c in result.bucket_checks("critical_evidence")}
    assert evidence["alert_tikvstoredown"] is True
    assert all(evidence.values()), evidence


def test_error_spans_become_a_traces_channel_and_span_checks(
        sample_copy: Path, tmp_path: Path) -> None:
    src = Path(__file__).resolve().parents[1] / "prove" / "traces_registry" / "cases"
    incident = tmp_path / "incident"
    shutil.copytree(src / "checkout-db-pool-001" / "incident", incident)
    drafted = draft_case(sample_copy, NEW, incident)
    assert "traces" in drafted.channels
    spans = [s for s in drafted.signals if s.channel == "traces"]
    assert [s.check_id for s in spans] == ["span_error_checkout"]
    assert spans[0].condition == {"method": "span_error_any", "service": "checkout",
                                  "keywords": ["charge failed"]}
    bundle = tmp_path / "bundle"
    _collect_everything(drafted.case_dir, bundle)  # never searches traces
    lazy = try_answer(sample_copy, NEW, "Root cause: pool exhausted.", bundle=bundle)
    checks = {c["check_id"]: c["passed"] for c in lazy.bucket_checks("critical_evidence")}
    assert checks["span_error_checkout"] is False
    IncidentTools(load_case_data(drafted.case_dir), bundle).search_traces(status="error")
    found = try_answer(sample_copy, NEW, "Root cause: pool exhausted.", bundle=bundle)
    checks = {c["check_id"]: c["passed"] for c in found.bucket_checks("critical_evidence")}
    assert checks["span_error_checkout"] is True
