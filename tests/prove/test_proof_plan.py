"""The proof plan derived from judge.yaml: targeted calls, the lazy channel, the wrong
answer, and what the reference agent process is handed."""

from __future__ import annotations

import orjson
import pytest
from prove_kit import REGISTRY, edit, registry_copy

from rcaeval.prove import plan_case
from rcaeval.registry import load_case


def _plan(case_id: str, root=REGISTRY):
    return plan_case(load_case(root, case_id))


def test_each_method_maps_to_the_tool_that_serves_it() -> None:
    plan = _plan("cpu-hotspot-region-001")
    calls = {c.check_id: c for c in plan.calls}
    logs = calls["read_pool_full_logged"]
    assert (logs.tool, logs.ref, logs.channel) == ("search_logs", "log", "logs")
    assert logs.args == {"pattern": r"unified\-read\-pool\ is\ full|server\ is\ busy",
                         "limit": 200}
    assert logs.match == ("unified-read-pool is full", "server is busy")
    metric = calls["read_pool_cpu_saturated"]
    assert (metric.tool, metric.ref, metric.threshold) == ("query_metrics", "metric", 7.0)
    assert metric.args == {"name": "tikv_thread_cpu_seconds_rate", "max_points": 1000,
                           "labels": {"instance": "tikv-1", "name": "unified_read_pool"}}
    query = calls["hot_region_in_query_evidence"]
    assert (query.tool, query.args, query.ref, query.match) == (
        "get_slow_queries", {}, "query", ("region 40512",))


def test_a_file_without_citable_records_is_called_but_not_cited() -> None:
    calls = {c.check_id: c for c in _plan("disk-full-tikv-001").calls}
    health = calls["store_degraded"]
    assert (health.tool, health.ref, health.match) == ("get_component_health", None,
                                                       ("Degraded",))
    assert (calls["disk_pressure_event"].tool, calls["disk_pressure_event"].ref) == (
        "list_events", "event")


def test_lazy_skips_the_channel_most_critical_weight_reads() -> None:
    plan = _plan("missing-index-fullscan-001")  # two query checks (weights add up)
    assert plan.lazy_channel == "queries"
    assert plan.lazy_tools == ["get_slow_queries"]


def test_lazy_never_skips_an_unavailable_channel() -> None:
    plan = _plan("tooldeg-metrics-api-tidb-oom-001")
    assert plan.unavailable == ["metrics"]
    assert plan.lazy_channel in ("logs", "queries", "events")
    assert all(c.channel != "metrics" for c in plan.calls)


def test_wrong_answer_names_the_first_guarded_misdiagnosis() -> None:
    plan = _plan("tikv-panic-restart-001")
    assert plan.wrong is not None
    assert (plan.wrong.check_id, plan.wrong.detector, plan.wrong.phrase) == (
        "avoids_cpu_hotspot_misdiagnosis", "asserts_cpu_hotspot", "cpu hotspot")


def test_a_case_without_a_guard_has_no_wrong_answer(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    path = root / "cases" / "disk-full-tikv-001" / "judge.yaml"
    for fam in ("write_hotspot", "false_alarm"):
        edit(path, f"""    - id: avoids_{fam}_misdiagnosis
      description: The answer does not state {fam} as the root cause.
      all_of:
      - detector: asserts_{fam}
        expect: false
""", "")
    plan = _plan("disk-full-tikv-001", root)
    assert plan.wrong is None
    assert "no hard check guards against a misdiagnosis" in plan.no_wrong_reason


def test_the_agent_plan_holds_answers_and_calls_but_no_rules() -> None:
    plan = _plan("pd-leader-election-storm-001")
    doc = plan.agent_plan()
    assert doc["novel"] is True
    assert doc["answers"]["oracle"] == doc["answers"]["lazy"] == plan.summary
    assert doc["answers"]["wrong"] == "The root cause is a storage node panic."
    assert doc["skip_tools"] == {"lazy": plan.lazy_tools}
    text = orjson.dumps(doc).decode()
    for judge_only in ("detectors", "hard_checks", "expect", "asserts_"):
        assert judge_only not in text


@pytest.mark.parametrize("detector,phrase", [
    ("asserts_storage_node_panic", "storage node panic"), ("asserts_false_alarm", "false alarm"),
    ("assert_x.y-z", "x y z")])
def test_family_phrase(detector: str, phrase: str) -> None:
    from rcaeval.prove._plan import family_phrase

    assert family_phrase(detector) == phrase
