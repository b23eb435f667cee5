"""capture/2 and rca_response/2 fields (knowledge package, trace-v3 observations, the
ranker's confidence_diagnostics) and the metrics that read them, each on a hand-built window
whose answers are worked out here by hand."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from release_kit import capture, evidence, with_probability, with_trace, write_jsonl
from release_kit import obs as o

import rcaeval.release as rel
from rcaeval.harness import RcaResponse, analysis_hash

WIN = "2026-11-01..2026-11-14"


def _measure(tmp_path: Path, rows: list) -> rel.Measurement:
    return rel.measure(write_jsonl(tmp_path / "c.jsonl", rows), WIN)


def test_old_versions_keep_loading_and_hashing() -> None:
    cap = capture("a")
    r1 = RcaResponse.model_validate(cap["response"])
    r2 = RcaResponse.model_validate(with_probability(capture("a"), 0.7)["response"])
    assert r1.confidence_diagnostics is None and r2.confidence_diagnostics.probability == 0.7
    # a version-1 response hashes exactly as before the field existed: the block is left out
    # of the canonical form when absent, and changes the hash when present
    assert analysis_hash(r1) != analysis_hash(r2)
    from rcaeval.harness._contract import canonical_data
    assert "confidence_diagnostics" not in canonical_data(r1)
    c = rel.Capture.model_validate(with_trace(capture("b"), [o(1, template="p")]))
    assert c.trace.observations[0].incident_time_relation == "during" and c.knowledge is None
    assert rel.Capture.model_validate(capture("c")).trace is None   # capture/1


def test_probe_metrics_per_template_from_approved_snapshots_only(tmp_path: Path) -> None:
    a = with_trace(capture("a"), [       # approved; root cause oom_kill citing E01, E02
        o(1, template="probe-oom", evidence_id="E01", supporting=["k8s_events"]),  # contributes
        o(2, template="probe-oom", evidence_id="E09", supporting=["logs"],  # E09 not cited
          relation="after"),
        o(3, template="probe-disk", hypothesis="disk_full", contradicting=["prometheus"]),
        o(4, template=None, supporting=["logs"]),                           # not a probe
    ])
    b = with_trace(capture("b"), [o(1, template="probe-oom", supporting=["x"])],
                   status="pending")                                        # not approved
    c = with_trace(capture("c", family=None, outcome="insufficient_evidence"), [
        o(1, template="probe-oom", evidence_id="E01", supporting=["k8s_events"])])  # no cause
    d = with_trace(capture("d", family="OOM_Kill"), [      # families compare case-insensitively
        o(1, template="probe-oom", hypothesis="oom_kill", evidence_id="E02",
          supporting=["prometheus"], contradicting=["logs"])])
    m = _measure(tmp_path, [a, b, c, d, capture("e")])
    assert not m.problems
    rows = {r["probe_template_id"]: r for r in m.diagnostics["probe_by_template"]}
    assert set(rows) == {"probe-oom", "probe-disk"}
    oom, disk = rows["probe-oom"], rows["probe-disk"]
    assert (oom["executions"], oom["captures"], oom["supported"], oom["refuted"],
            oom["contributed"]) == (4, 3, 4, 1, 2)
    assert (disk["executions"], disk["supported"], disk["refuted"], disk["contributed"]) \
        == (1, 0, 1, 0)
    assert oom["contribution_rate"] == 0.5
    assert (oom["before"], oom["during"], oom["after"], oom["unknown"]) == (0, 3, 1, 0)
    lo, hi = rel_wilson(2, 4)
    assert math.isclose(oom["contribution_rate_ci_low"], lo)
    assert math.isclose(oom["contribution_rate_ci_high"], hi)


def rel_wilson(k: int, n: int) -> tuple[float, float]:
    from rcaeval.stats import wilson_interval
    lo, hi = wilson_interval(k, n)
    assert lo is not None and hi is not None
    return lo, hi


def test_calibration_reliability_bins_and_brier(tmp_path: Path) -> None:
    rows = [
        with_probability(capture("a"), 0.9),                              # right
        with_probability(capture("b", family="disk_full"), 0.8),          # wrong
        with_probability(capture("c", family="disk_full"), 0.2),          # wrong
        with_probability(capture("d"), 1.0),                              # right, last bin
        with_probability(capture("e"), 0.35),                             # right
        with_probability(capture("f", expected_family=None), 0.9),        # no expected family
        with_probability(capture("g", family=None, outcome="insufficient_evidence"), 0.9),
        with_probability(capture("h"), None),                             # no probability
        capture("i"),                                                     # rca_response/1
    ]
    m = _measure(tmp_path, rows)
    assert not m.problems
    brier = m.diagnostics["confidence_brier"]
    assert brier["sample_size"] == 5
    assert math.isclose(brier["value"], (0.01 + 0.64 + 0.04 + 0 + 0.4225) / 5)
    bins = {r["bin"]: (r["n"], r["correct"]) for r in m.diagnostics["confidence_reliability"]}
    assert bins == {9: (2, 2), 8: (1, 0), 2: (1, 0), 3: (1, 1)}
    nine = next(r for r in m.diagnostics["confidence_reliability"] if r["bin"] == 9)
    assert math.isclose(nine["mean_probability"], 0.95) and nine["accuracy"] == 1.0
    assert (nine["lower"], nine["upper"]) == (0.9, 1.0)


def test_self_check_brier_scores_the_calibrated_probability_on_the_same_captures(
        tmp_path: Path) -> None:
    def checked(cap, p, calibrated):
        with_probability(cap, p)["response"]["confidence_diagnostics"]["self_check"][
            "calibrated_probability"] = calibrated
        return cap

    rows = [
        checked(capture("a"), 0.6, 0.9),                        # right: 0.16 -> 0.01
        checked(capture("b", family="disk_full"), 0.7, 0.4),    # wrong: 0.49 -> 0.16
        checked(capture("c"), 0.8, None),                       # no calibrated probability
        with_probability(capture("d", expected_family=None), 0.9),  # no expected family
    ]
    m = _measure(tmp_path, rows)
    assert not m.problems
    raw, sc = m.diagnostics["confidence_brier"], m.diagnostics["confidence_brier_self_check"]
    assert raw["sample_size"] == 3 and sc["sample_size"] == 2
    assert math.isclose(raw["value"], (0.16 + 0.49 + 0.04) / 3)
    assert math.isclose(sc["value"], (0.01 + 0.16) / 2)
    (tmp_path / "none").mkdir()
    empty = _measure(tmp_path / "none", [capture("e")])       # rca_response/1: nothing
    assert empty.diagnostics["confidence_brier_self_check"] == {"value": None,
                                                                "sample_size": 0}


def test_declared_source_groups_and_breakdown_sums(tmp_path: Path) -> None:
    """The ranker's independent source groups against the live evidence its root cause
    cites (as the harness counts groups), and whether its additive account adds up."""
    def declared(cap, groups, *, base=0.4, deltas=(0.2,), final=0.6):
        cd = with_probability(cap, 0.7)["response"]["confidence_diagnostics"]
        cd.update(independent_source_groups=groups, base_score=base, final_score=final,
                  adjustments=[{"name": f"a{i}", "delta": d} for i, d in enumerate(deltas)])
        return cap

    rows = [
        # k8s_events + prometheus, both live and supporting oom_kill: honest (case-insensitive)
        declared(capture("a"), ["K8s_Events", " prometheus "]),
        # prometheus is historical here: declaring it overclaims
        declared(capture("b", ev=[evidence("E01", "k8s_events", supports=["oom_kill"]),
                                  evidence("E02", "prometheus", supports=["oom_kill"],
                                           origin="historical")]),
                 ["k8s_events", "prometheus"]),
        # the cited evidence supports another family: no live group backs oom_kill
        declared(capture("c", ev=[evidence("E01", "logs", supports=["disk_full"])]), ["logs"]),
        # a group named by source_group (not source) counts under that name; an uncited
        # artifact never backs a declaration
        declared(capture("d", ev=[evidence("E01", "loki-eu", group="logs", supports=[]),
                                  evidence("E02", "traces", supports=["oom_kill"])],
                         rc_ids=["E01"]), ["logs"], base=0.5, deltas=(0.1, -0.05), final=0.9),
        declared(capture("e"), []),                                  # declares nothing
        declared(capture("f", family=None, outcome="insufficient_evidence"), ["logs"]),
        capture("g"),                                                # rca_response/1
    ]
    m = _measure(tmp_path, rows)
    assert not m.problems
    over = m.diagnostics["confidence_source_groups_overclaimed"]
    assert (over["numerator"], over["sample_size"]) == (2, 4)          # b, c of a, b, c, d
    lo, hi = rel_wilson(2, 4)
    assert math.isclose(over["ci_low"], lo) and math.isclose(over["ci_high"], hi)
    adds = m.diagnostics["confidence_adjustments_inconsistent"]
    assert adds == {"value": 1, "sample_size": 6}                      # d: 0.5 + 0.05 != 0.9


def test_high_confidence_despite_a_failed_gate(tmp_path: Path) -> None:
    """The ranker's own confidence gates: a root cause labelled high although one of its
    gates did not pass is counted; a failed gate under a medium label, passed gates, and a
    breakdown listing no gate are not (the last is outside the sample)."""
    def gated(cap, gates):
        cd = with_probability(cap, 0.8)["response"]["confidence_diagnostics"]
        cd["gates"] = [{"gate": f"g{i}", "passed": ok} for i, ok in enumerate(gates)]
        return cap

    rows = [
        gated(capture("a", confidence="high"), [True, False]),     # counted
        gated(capture("b", confidence="high"), [True, True]),      # every gate passed
        gated(capture("c", confidence="medium"), [False]),         # failed, but not high
        gated(capture("d", confidence="high"), []),                # lists no gate
        capture("e", confidence="high"),                           # rca_response/1
    ]
    m = _measure(tmp_path, rows)
    assert not m.problems
    assert m.diagnostics["confidence_failed_gate_high"] == {"value": 1, "sample_size": 3}


def test_nan_probability_is_refused_never_averaged(tmp_path: Path) -> None:
    """Parquet JSON text can carry NaN; it must not reach the Brier score (in DuckDB NaN
    compares greater than every number, so a range check alone would let it through)."""
    import orjson
    good = with_probability(capture("a"), 0.9)
    bad = with_probability(capture("b"), 0.5)
    frame = pl.DataFrame([{k: (orjson.dumps(v).decode() if isinstance(v, dict | list) else v)
                           for k, v in c.items()} for c in (good, bad)])
    frame = frame.with_columns(pl.col("response").str.replace('"probability":0.5',
                                                              '"probability":NaN'))
    m = rel.measure(frame, WIN)
    fields = {(p["line"], p["field"]) for p in m.problems}
    assert any(line == 2 and f.startswith("response") for line, f in fields), m.problems
    assert m.diagnostics["confidence_brier"]["sample_size"] == 1


def test_probe_ordering_adherence(tmp_path: Path) -> None:
    a = with_trace(capture("a"), [
        # step 1: priority 15 (new collector, new plane, unresolved hypothesis, planned);
        # the others 14: adheres. It resolves oom_kill (a supporting group).
        o(1, "prometheus", "metrics", plan_step=1, supporting=["prometheus"]),
        # step 2: collector and plane seen (case-insensitive), oom_kill resolved: 0; the
        # remaining loki probe is 14: does not adhere
        o(2, "Prometheus", "Metrics"),
        o(3, "loki", "logs", hypothesis="disk_full"),     # last step: no choice left
    ])
    b = with_trace(capture("b"), [o(1)])                   # one observation: not counted
    c = with_trace(capture("c"), [o(2, "loki", "logs"), o(1, "loki", "logs")],  # by `order`
                   status="pending")                       # any status counts; a tie adheres
    m = _measure(tmp_path, [a, b, c])
    r = m.diagnostics["probe_ordering_adherence"]
    assert (r["numerator"], r["sample_size"]) == (2, 3)
    assert r["ci_low"] < 2 / 3 < r["ci_high"]


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda c: c.update(knowledge={"package_id": " ", "activation_path": "typedb"}),
     "knowledge.package_id"),
    (lambda c: c.update(knowledge={"package_id": "kp", "activation_path": 3}),
     "knowledge.activation_path"),
    (lambda c: c.update(knowledge="kp-1"), "knowledge"),
    (lambda c: with_trace(c, []).update(trace={"format": "trace/2", "status": "approved"}),
     "trace.format"),
    (lambda c: with_trace(c, [], status="live"), "trace.status"),
    (lambda c: with_trace(c, [o(0)]), "trace.observations[0].order"),
    (lambda c: with_trace(c, [o(1), o(1)]), "trace.observations"),
    (lambda c: with_trace(c, [o(1, relation="later")]),
     "trace.observations[0].incident_time_relation"),
    (lambda c: with_trace(c, [o(1, supporting="prometheus")]),   # type: ignore[arg-type]
     "trace.observations[0].supporting_source_groups"),
    (lambda c: with_trace(c, [o(1, contradicting=[1])]),         # type: ignore[list-item]
     "trace.observations[0].contradicting_source_groups"),
    (lambda c: with_trace(c, [o(1, plan_step=0)]), "trace.observations[0].plan_step"),
    (lambda c: with_trace(c, [{**o(1), "collector": None}]), "trace.observations[0].collector"),
    (lambda c: with_probability(c, 1.5), "response.confidence_diagnostics.probability"),
    (lambda c: with_probability(c, "high"), "response.confidence_diagnostics.probability"),
    (lambda c: with_probability(c, 0.5)["response"]["confidence_diagnostics"].update(
        adjustments=[{"name": "x", "delta": "big"}]),
     "response.confidence_diagnostics.adjustments[0].delta"),
    (lambda c: with_probability(c, 0.5)["response"]["confidence_diagnostics"].update(
        gates=[{"gate": "g", "passed": "yes"}]),
     "response.confidence_diagnostics.gates[0].passed"),
])
def test_bad_capture2_fields_are_named_and_left_out(tmp_path: Path, mutate, field) -> None:
    bad = capture("bad")
    mutate(bad)
    m = _measure(tmp_path, [capture("ok"), bad])
    assert [(p["line"], p["field"]) for p in m.problems] == [(2, field)], m.problems
    assert m.population["captures"]["in_window"] == 1
    assert m.population["captures"]["invalid_in_window"] == 1
