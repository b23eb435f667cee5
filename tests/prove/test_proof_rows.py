"""From the reference agents' results to a proof row: proven only when the oracle passes
and the lazy and wrong agents do not, each other outcome with its reason."""

from __future__ import annotations

from prove_kit import REGISTRY, make_unreachable, registry_copy

from rcaeval.prove import plan_case
from rcaeval.prove._verdict import FailedCheck, RoleResult, prove_row
from rcaeval.registry import load_case

CASE = "cpu-hotspot-region-001"


def _case():
    case = load_case(REGISTRY, CASE)
    return plan_case(case), case


def _ok() -> RoleResult:
    return RoleResult("judged", "pass", "diagnosis_pass")


def _failed(*checks: tuple[str, str, str]) -> RoleResult:
    return RoleResult("judged", "fail", "x", [FailedCheck(b, c, k, "r") for b, c, k in checks])


GUARD = ("diagnosis", "avoids_missing_index_misdiagnosis", "hard")
LAZY = ("evidence_collection", "preferred_channels_all_observed", "check")


def test_proven() -> None:
    plan, case = _case()
    plan.unreachable = []
    row = prove_row(plan, case, {"oracle": _ok(), "lazy": _failed(LAZY),
                                 "wrong": _failed(GUARD)})
    assert (row.status, row.oracle, row.lazy, row.wrong, row.reasons) == (
        "proven", "pass", "fail", "fail", [])


def test_oracle_failing_on_an_unreachable_check_names_the_file(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    check = make_unreachable(root)
    case = load_case(root, "disk-full-tikv-001")
    plan = plan_case(case)
    guard = ("diagnosis", "avoids_write_hotspot_misdiagnosis", "hard")
    row = prove_row(plan, case, {
        "oracle": _failed(("critical_evidence", check, "check")),
        "lazy": _failed(LAZY), "wrong": _failed(guard)})
    assert row.status == "unproven"
    assert row.reasons == [f"critical_evidence check {check} reads "
                           "evidences/operator_notes.json, which no tool writes"]


def test_oracle_failing_a_reachable_check_says_the_data_lacks_it() -> None:
    plan, case = _case()
    row = prove_row(plan, case, {
        "oracle": _failed(("critical_evidence", "hot_region_in_query_evidence", "check")),
        "lazy": _failed(LAZY), "wrong": _failed(GUARD)})
    assert row.reasons == ["critical_evidence check hot_region_in_query_evidence: the tools "
                           "never return what it needs, though the oracle called every tool "
                           "(judge: r)"]


def test_oracle_answer_not_firing_its_own_detector() -> None:
    plan, case = _case()
    row = prove_row(plan, case, {
        "oracle": _failed(("diagnosis", "identifies_cpu_hotspot", "hard"),
                          ("diagnosis", "names_hot_region", "supporting")),
        "lazy": _failed(LAZY), "wrong": _failed(GUARD)})
    assert row.reasons == ["the oracle's correct answer does not fire asserts_cpu_hotspot"]


def test_oracle_answer_firing_a_guard() -> None:
    plan, case = _case()
    row = prove_row(plan, case, {"oracle": _failed(GUARD), "lazy": _failed(LAZY),
                                 "wrong": _failed(GUARD)})
    assert row.reasons == ["the oracle's correct answer fires the guard asserts_missing_index "
                           "(avoids_missing_index_misdiagnosis)"]


def test_lazy_passing() -> None:
    plan, case = _case()
    plan.unreachable = []
    row = prove_row(plan, case, {"oracle": _ok(), "lazy": _ok(), "wrong": _failed(GUARD)})
    assert row.reasons == ["lazy: skipping the logs channel still passes"]


def test_wrong_failing_elsewhere_but_not_on_the_guard() -> None:
    plan, case = _case()
    row = prove_row(plan, case, {
        "oracle": _ok(), "lazy": _failed(LAZY),
        "wrong": _failed(("diagnosis", "identifies_cpu_hotspot", "hard"))})
    assert row.status == "unproven"
    assert row.reasons == ["diagnosis: no guard fires for the wrong answer 'missing index' "
                           "(avoids_missing_index_misdiagnosis passes)"]


def test_an_agent_that_did_not_run_is_a_reason() -> None:
    plan, case = _case()
    row = prove_row(plan, case, {
        "oracle": RoleResult("errored", error="agent binary missing"),
        "lazy": _failed(LAZY), "wrong": _failed(GUARD)})
    assert (row.oracle, row.reasons) == ("errored",
                                         ["the oracle errored: agent binary missing"])


def test_exempt_case_is_listed_with_its_reason() -> None:
    plan, case = _case()
    plan.exempt = "needs the on-call's pager screenshot"
    row = prove_row(plan, case, {})
    assert (row.status, row.oracle, row.reasons) == (
        "exempt", "exempt", ["exempt: needs the on-call's pager screenshot"])
    assert not row.proven
