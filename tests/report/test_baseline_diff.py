"""`diff_against_baseline`: classes, eligibility, the gate, warnings and the renderings."""

from __future__ import annotations

import orjson
import polars as pl
import pytest
from report_kit import BASE_CASES, Env, add_run, write_registry

from rcaeval.errors import GateFailed, InputError, NotFoundError
from rcaeval.report import (
    diff_against_baseline,
    promote_baseline,
    render_json,
    render_markdown,
    render_text,
)


@pytest.fixture
def promoted(env: Env) -> Env:
    promote_baseline(env.store, "base-1", env.registry, env.audits)
    return env


def test_identical_rerun_has_no_regression(promoted: Env) -> None:
    d = diff_against_baseline(promoted.store, "rerun-1", promoted.registry)
    assert d.counts == {"regressed": 0, "score_drop": 0, "missing": 0, "unfinished": 0,
                        "new": 0, "improved": 0, "unchanged": 5}
    assert d.regressed.is_empty()
    assert not d.gate_failed
    assert (d.pass_before, d.pass_after) == (3, 3)  # case-q is quarantined
    assert d.warnings == ()
    d.check_gate()
    assert render_text(d).splitlines()[1] == "result:        OK: no regression"
    md = render_markdown(d)
    assert md.startswith("**✅ OK: no regression** — suite `smoke`")
    assert "No changed cases." in md


def test_worse_run_classes_and_gate(promoted: Env) -> None:
    d = diff_against_baseline(promoted.store, "worse-1", promoted.registry)
    classes = dict(zip(d.frame["case_id"], d.frame["class"], strict=True))
    assert classes == {"case-a": "unchanged", "case-b": "regressed", "case-c": "unchanged",
                       "case-d": "missing", "case-e": "new", "case-q": "regressed"}
    assert d.frame["case_id"].to_list() == sorted(classes)
    assert d.regressed["case_id"].to_list() == ["case-b"]  # case-q is quarantined
    assert d.gating["case_id"].to_list() == ["case-b"]
    row = d.frame.row(by_predicate=pl.col("case_id") == "case-b", named=True)
    assert (row["verdict_before"], row["verdict_after"], row["score_delta"]) == \
        ("pass", "fail", -35.0)
    assert d.gate_failed
    assert (d.pass_before, d.pass_after) == (3, 1)
    assert d.gate_reasons == [
        "1 eligible case(s) passed in the baseline and do not pass now: case-b (pass→fail)",
        "eligible pass count dropped from 3 to 1 (not run: case-d)",
    ]
    with pytest.raises(GateFailed, match="case-b \\(pass→fail\\)"):
        d.check_gate()
    assert d.changed["case_id"].to_list() == ["case-b", "case-q", "case-d", "case-e"]


def test_missing_pass_case_alone_fails_gate_unless_allowed(promoted: Env) -> None:
    partial = {k: v for k, v in BASE_CASES.items() if k != "case-d"}
    add_run(promoted.store, "partial-1", partial)
    d = diff_against_baseline(promoted.store, "partial-1", promoted.registry)
    assert d.gating.is_empty()
    assert d.gate_reasons == ["eligible pass count dropped from 3 to 2 (not run: case-d)"]
    ok = diff_against_baseline(promoted.store, "partial-1", promoted.registry,
                               allow_missing=True)
    assert not ok.gate_failed
    assert (ok.pass_before, ok.pass_after) == (2, 2)


def test_score_drop_improved_and_tolerance(promoted: Env) -> None:
    cases = {**BASE_CASES, "case-a": ("pass", 84.5), "case-c": ("pass", 75.0),
             "case-b": ("invalid", 0.0)}
    add_run(promoted.store, "mixed-1", cases)
    d = diff_against_baseline(promoted.store, "mixed-1", promoted.registry)
    classes = dict(zip(d.frame["case_id"], d.frame["class"], strict=True))
    assert classes["case-a"] == "score_drop"
    assert classes["case-c"] == "improved"
    assert classes["case-b"] == "regressed"
    assert d.gating["case_id"].to_list() == ["case-b"]
    tolerant = diff_against_baseline(promoted.store, "mixed-1", promoted.registry,
                                     score_tolerance=1.0)
    assert tolerant.frame.filter(tolerant.frame["case_id"] == "case-a")["class"].item() \
        == "unchanged"


def test_fail_to_invalid_is_regressed_but_not_gating(promoted: Env) -> None:
    add_run(promoted.store, "inv-1", {**BASE_CASES, "case-c": ("invalid", 0.0)})
    d = diff_against_baseline(promoted.store, "inv-1", promoted.registry)
    assert d.regressed["case_id"].to_list() == ["case-c"]
    assert not d.gate_failed


def test_errored_case_without_verdict_regresses(promoted: Env) -> None:
    add_run(promoted.store, "err-1", {**BASE_CASES, "case-a": (None, None)},
            case_status={"case-a": "errored"})
    d = diff_against_baseline(promoted.store, "err-1", promoted.registry)
    assert d.gating["case_id"].to_list() == ["case-a"]
    assert "case-a (pass→errored)" in d.gate_reasons[0]
    assert "| `case-a` | **regressed** | pass → errored |" in render_markdown(d)


def test_baseline_ineligible_case_never_gates(promoted: Env) -> None:
    path = promoted.registry / "baselines" / "smoke.yaml"
    path.write_text(path.read_text().replace(
        "- case_id: case-b\n  verdict: pass\n  score: 80.0\n  subtype: diagnosis_pass\n"
        "  baseline_eligible: true",
        "- case_id: case-b\n  verdict: pass\n  score: 80.0\n  subtype: diagnosis_pass\n"
        "  baseline_eligible: false"))
    add_run(promoted.store, "b-fails", {**BASE_CASES, "case-b": ("fail", 10.0)})
    d = diff_against_baseline(promoted.store, "b-fails", promoted.registry)
    assert d.regressed.is_empty()
    assert not d.gate_failed
    assert "not baseline-eligible, never gates" in render_text(d)


def test_suite_version_mismatch_warns(promoted: Env) -> None:
    add_run(promoted.store, "v2-1", BASE_CASES, suite_version="2.0")
    write_registry(promoted.registry, version="2.0")
    d = diff_against_baseline(promoted.store, "v2-1", promoted.registry)
    assert any(w.startswith("suite version differs: the run used 2.0, the baseline 1.0")
               for w in d.warnings)
    assert any("registry's suite is at version 2.0" in w for w in d.warnings)
    assert not d.gate_failed
    assert "warning:       suite version differs" in render_text(d)
    assert "> ⚠️ suite version differs" in render_markdown(d)


def test_markdown_and_json(promoted: Env) -> None:
    d = diff_against_baseline(promoted.store, "worse-1", promoted.registry)
    md = render_markdown(d).splitlines()
    assert md[0] == ("**❌ REGRESSION: 1 gating case(s)** — suite `smoke` · run `worse-1` vs "
                     "baseline `base-1` · eligible pass 3 → 1")
    header = md.index("| case | change | verdict | score | Δ score | note |")
    assert md[header + 1] == "|---|---|---|---:|---:|---|"
    assert md[header + 2] == ("| `case-b` | **regressed** | pass → fail | 80.00 → 45.00 | "
                              "-35.00 | gating; now: diagnosis_fail |")
    assert md[header + 3].startswith("| `case-q` | **regressed** |")
    assert md[header + 4] == ("| `case-d` | missing | pass → not run | 90.00 → - | - | "
                              "counts as not passing |")
    assert md[header + 5] == "| `case-e` | new | - → pass | - → 88.00 | - |  |"
    assert not any("case-a" in line for line in md)  # unchanged cases are not listed
    assert md[-1].startswith("**Counts:** regressed 2 (1 gating) · score_drop 0 · missing 1")
    payload = orjson.loads(render_json(d))
    assert payload["result"] == "regression"
    assert payload["gating"] == ["case-b"]
    assert [c["case_id"] for c in payload["cases"]] == sorted(c["case_id"]
                                                              for c in payload["cases"])
    assert render_json(d) == render_json(
        diff_against_baseline(promoted.store, "worse-1", promoted.registry))


def test_no_baseline_is_not_found(env: Env) -> None:
    with pytest.raises(NotFoundError, match="has no baseline"):
        diff_against_baseline(env.store, "worse-1", env.registry)


def test_changed_rules_and_judge_version_warn(promoted: Env) -> None:
    add_run(promoted.store, "rules-1", BASE_CASES)
    promoted.store.con.execute(
        "UPDATE eval_judgment SET rules_hash = 'ffff' WHERE run_id = 'rules-1' "
        "AND case_id = 'case-c'")
    promoted.store.con.execute(
        "UPDATE eval_runs SET judge_version = '0.2.0' WHERE run_id = 'rules-1'")
    d = diff_against_baseline(promoted.store, "rules-1", promoted.registry)
    assert d.warnings == (
        "judge version differs: the run was judged by 0.2.0, the baseline by 0.1.0",
        "judge rules changed since the baseline for 1 case(s): case-c",
    )
    assert d.frame.filter(pl.col("rules_changed"))["case_id"].to_list() == ["case-c"]
    assert not d.gate_failed


def test_every_eligible_pass_failing(promoted: Env) -> None:
    add_run(promoted.store, "all-fail", {c: ("fail", 1.0) for c in BASE_CASES})
    d = diff_against_baseline(promoted.store, "all-fail", promoted.registry)
    assert d.gate_reasons == ["3 eligible case(s) passed in the baseline and do not pass now: "
                              "case-a (pass→fail), case-b (pass→fail), case-d (pass→fail)"]
    assert render_markdown(d).startswith("**❌ REGRESSION: 3 gating case(s)**")


def test_long_case_lists_are_abbreviated() -> None:
    from rcaeval.report._diff import _some

    assert _some(f"c{i}" for i in range(7)) == "c0, c1, c2, c3, c4 and 2 more"
    assert _some(["a", "b"]) == "a, b"


def _trajectory_row(run_id: str, case_id: str, steps: int, evidence_step: int | None,
                    seconds: float | None, failed: int = 0) -> dict:
    return {"run_id": run_id, "case_id": case_id, "steps": steps, "failed_calls": failed,
            "repeated_calls": 1, "tools_used": 3, "channels_queried": 2,
            "evidence_step": evidence_step, "evidence_seconds": seconds,
            "budget_enforced": False, "efficiency": "no_budget", "over_budget": [],
            "efficiency_reason": "no budget declared"}


def test_trajectory_comparison_with_the_baseline_run(promoted: Env) -> None:
    """When the baseline's run is in the store with trajectory rows, the diff compares the
    shared cases' steps and steps to evidence (informational: the gate is unchanged)."""
    before = diff_against_baseline(promoted.store, "worse-1", promoted.registry)
    assert before.trajectory is None and "trajectory:" not in render_text(before)
    rows = [_trajectory_row("base-1", "case-a", 10, 4, 12.0),
            _trajectory_row("base-1", "case-b", 20, 6, 30.0),
            _trajectory_row("base-1", "case-d", 99, 1, 1.0),  # not in worse-1: not shared
            _trajectory_row("worse-1", "case-a", 30, 8, 40.0, failed=2),
            _trajectory_row("worse-1", "case-b", 50, None, None, failed=1)]
    promoted.store.con.register("__t", pl.DataFrame(rows).to_arrow())
    promoted.store.con.execute("INSERT INTO eval_trajectory BY NAME SELECT * FROM __t")
    promoted.store.con.unregister("__t")
    d = diff_against_baseline(promoted.store, "worse-1", promoted.registry)
    assert d.gate_reasons == before.gate_reasons
    assert d.trajectory["shared_cases"] == 2
    line = ("median steps 15 -> 40, reached cited evidence 2 -> 1, median steps to it 5 -> 8 "
            "(21.0s -> 40.0s), failed calls 0 -> 3, repeated 2 -> 2 over 2 shared cases "
            "(informational: never gates)")
    assert f"trajectory:    {line}\n" in render_text(d)
    assert f"**Trajectory:** {line}" in render_markdown(d)
    assert orjson.loads(render_json(d))["trajectory"]["median_steps_after"] == 40.0


@pytest.mark.parametrize("tolerance", [float("nan"), float("inf")])
def test_a_non_finite_score_tolerance_is_bad_input(promoted: Env, tolerance: float) -> None:
    """``delta < -NaN`` is false for every delta, so a NaN tolerance would hide every score
    drop; an infinite one would too."""
    add_run(promoted.store, "mixed-2", {**BASE_CASES, "case-a": ("pass", 84.5)})
    with pytest.raises(InputError, match="finite"):
        diff_against_baseline(promoted.store, "mixed-2", promoted.registry,
                              score_tolerance=tolerance)
