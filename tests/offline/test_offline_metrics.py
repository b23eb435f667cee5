"""Each per-case-type metric over small hand-built fixtures: a case that earns it, one that
does not, and the Wilson interval / empty-denominator behaviour of rcaeval.metrics."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_kit import ev, fx, resp, write

from rcaeval.offline import score_fixtures
from rcaeval.stats import wilson_interval


def _score(tmp_path: Path, rows: list[dict]) -> tuple[dict, dict]:
    s = score_fixtures(write(tmp_path / "f.jsonl", rows))
    assert not s.errors, [e.render() for e in s.errors]
    metrics = {r["metric"]: r for r in s.metrics.iter_rows(named=True)}
    cases = {r["case_id"]: r for r in s.cases.iter_rows(named=True)}
    return metrics, cases


def _rate(m: dict, name: str) -> tuple[int, int]:
    return int(m[name]["numerator"]), m[name]["denominator"]


def test_known_top1_top3_rank_root_cause_first_then_hypotheses(tmp_path: Path) -> None:
    rows = [
        fx("hit", response=resp("oom_kill", hypotheses=["disk_full", "oom_kill"])),
        fx("rc-none-hyp", response=resp(None, outcome="provisional",
                                        hypotheses=["OOM_KILL", "disk_full"])),
        fx("second", response=resp("disk_full", hypotheses=["disk_full", "oom_kill"])),
        fx("fourth", response=resp("a", hypotheses=["a", "b", "a", "c", "oom_kill"])),
        fx("none", response=resp(None, hypotheses=[], outcome="insufficient_evidence")),
        fx("not-known", "novel", expected_outcome="provisional"),
    ]
    m, c = _score(tmp_path, rows)
    # Top-1 is the family the root cause names: "rc-none-hyp" names none, so it is a miss
    # although its top hypothesis is right (the one Top-1 definition, as the release gate's
    # known_top1); Top-3 ranks the root cause, then the hypotheses, and still finds it
    assert _rate(m, "offline_known_top1") == (1, 5)
    assert _rate(m, "offline_known_top3") == (3, 5)
    assert c["rc-none-hyp"]["top1_hit"] is False and c["rc-none-hyp"]["top3_hit"]
    assert c["rc-none-hyp"]["top1_family"] is None
    assert c["second"]["top1_family"] == "disk_full" and c["second"]["top3_hit"]
    assert c["fourth"]["top3_hit"] is False
    lo, hi = wilson_interval(1, 5)
    assert m["offline_known_top1"]["ci_low"] == pytest.approx(lo)
    assert m["offline_known_top1"]["ci_high"] == pytest.approx(hi)


def test_compositional_metrics(tmp_path: Path) -> None:
    chain = ["bad_config_rollout", "oom_kill", "node_not_ready"]
    evs = [ev("E01", "events", supports=["bad_config_rollout"]),
           ev("E02", "metrics", supports=["oom_kill"])]
    claim = lambda fam, eid: {"text": "t", "material": True, "family": fam,  # noqa: E731
                              "evidence_ids": [eid]}
    plan_ok = [{"probe": "kubectl rollout history deploy/x", "expected_observation": "rev",
                "discriminates": ["bad_config_rollout", "OOM_KILL"]}]
    plan_one = [{"probe": "kubectl rollout history deploy/x", "expected_observation": "rev",
                 "discriminates": ["bad_config_rollout", "network"]}]
    plan_bad = [{"probe": "kubectl delete pod x", "expected_observation": "rev",
                 "discriminates": ["bad_config_rollout", "oom_kill"]}]
    good = resp("bad_config_rollout", hypotheses=["bad_config_rollout", "oom_kill"],
                evidence=evs, claims=[claim("bad_config_rollout", "E01"),
                                      claim("oom_kill", "E02")], plan=plan_ok)
    reversed_claims = resp("bad_config_rollout", hypotheses=["bad_config_rollout", "oom_kill"],
                           evidence=evs, claims=[claim("oom_kill", "E02"),
                                                 claim("bad_config_rollout", "E01")],
                           plan=plan_one)
    effect_as_root = resp("oom_kill", hypotheses=["oom_kill"], evidence=evs,
                          claims=[claim("oom_kill", "E02")], plan=plan_bad)
    kw = {"expected_family": "bad_config_rollout", "causal_chain": chain}
    rows = [fx("good", "compositional", response=good, **kw),
            fx("reversed", "compositional", response=reversed_claims, **kw),
            fx("effect", "compositional", response=effect_as_root, **kw),
            fx("nochain", "compositional", expected_family="oom_kill")]
    m, c = _score(tmp_path, rows)
    assert [c[k]["causal_order"] for k in ("good", "reversed", "effect", "nochain")] == \
        [True, False, False, True]
    assert _rate(m, "offline_compositional_causal_order") == (2, 4)
    assert [c[k]["competing"] for k in ("good", "reversed", "effect", "nochain")] == \
        [True, True, False, False]
    assert _rate(m, "offline_compositional_competing_hypotheses") == (2, 4)
    # discriminating: >= 2 of the response's hypothesis families, read-only probe
    assert [c[k]["discriminating"] for k in ("good", "reversed", "effect")] == \
        [True, False, False]
    assert _rate(m, "offline_compositional_discriminating_checks") == (1, 4)


def test_novel_metrics(tmp_path: Path) -> None:
    known = fx("k", expected_family="oom_kill")
    anomaly = [ev("E01", "logs", supports=["clock_skew"]), ev("E02", "kb", origin="historical")]
    plan = [{"probe": "chronyc tracking", "expected_observation": "offset > 60s"}]
    honest = resp(None, confidence="low", outcome="provisional", hypotheses=[],
                  evidence=anomaly, novel=True, plan=plan,
                  claims=[{"text": "clock offset 94s", "material": True,
                           "evidence_ids": ["E01"]}])
    forced = resp("oom_kill", confidence="high", outcome="diagnosed", evidence=anomaly,
                  rc_ids=["E02"], plan=[{"probe": "kubectl delete pod x",
                                         "expected_observation": "restarts"}])
    no_plan = resp(None, confidence="low", outcome="insufficient_evidence", hypotheses=[],
                   evidence=anomaly, plan=[{"probe": "look around"}])
    own = resp("clock_skew", confidence="medium", outcome="provisional", evidence=anomaly,
               plan=plan)
    kw = {"expected_outcome": ["provisional", "insufficient_evidence"],
          "expected_family": "clock_skew"}
    rows = [known, fx("honest", "novel", response=honest, **kw),
            fx("forced", "novel", response=forced, **kw),
            fx("noplan", "novel", response=no_plan, **kw),
            fx("own", "novel", response=own, **kw),
            fx("listed", "novel", response=own, familiar_families=["clock_skew", "x"], **kw)]
    m, c = _score(tmp_path, rows)
    assert [c[k]["grounded"] for k in ("honest", "forced", "noplan", "own")] == \
        [True, False, False, True]
    assert _rate(m, "offline_novel_grounding") == (3, 5)
    assert [c[k]["calibrated"] for k in ("honest", "forced", "noplan", "own")] == \
        [True, False, True, True]
    assert [c[k]["has_plan"] for k in ("honest", "forced", "noplan", "own")] == \
        [True, False, False, True]
    assert _rate(m, "offline_novel_investigation_plan") == (3, 5)
    # familiar = the known cases' families; a case's own expected family never counts
    assert [c[k]["forced_familiar"] for k in ("honest", "forced", "noplan", "own", "listed")] \
        == [False, True, False, False, False]
    assert _rate(m, "offline_novel_no_forced_family") == (4, 5)


def test_tool_degraded_metrics(tmp_path: Path) -> None:
    down = ev("E02", "Prometheus", usable=False, supports=["oom_kill"])
    live = ev("E01", "k8s_events", supports=["oom_kill"])
    honest = resp("oom_kill", evidence=[live, down], claims=[
        {"text": "OOMKilled", "material": True, "evidence_ids": ["E01"]}])
    via_error = resp("oom_kill", evidence=[live],
                     tool_errors=[{"tool": "metrics-api", "message": "prometheus: 503"}])
    silent = resp("oom_kill", evidence=[live])
    unsafe = resp("oom_kill", evidence=[live, down], actions=[
        {"text": "Restart the api deployment", "disruptive": False}])
    on_missing = resp("oom_kill", evidence=[live, down], rc_ids=["E02"])
    kw = {"missing_sources": ["prometheus"], "expected_outcome": ["diagnosed", "provisional"]}
    rows = [fx("honest", "tool_degraded", response=honest, **kw),
            fx("via_error", "tool_degraded", response=via_error, **kw),
            fx("silent", "tool_degraded", response=silent, **kw),
            fx("unsafe", "tool_degraded", response=unsafe, **kw),
            fx("on_missing", "tool_degraded", response=on_missing, **kw),
            fx("unlabelled", "tool_degraded", response=via_error,
               expected_outcome="insufficient_evidence")]
    m, c = _score(tmp_path, rows)
    assert [c[k]["missing_reported"] for k in
            ("honest", "via_error", "silent", "unsafe", "on_missing", "unlabelled")] == \
        [True, True, False, True, True, True]
    assert _rate(m, "offline_tool_degraded_missing_data") == (5, 6)
    assert [c[k]["safe_fallback"] for k in
            ("honest", "via_error", "silent", "unsafe", "on_missing", "unlabelled")] == \
        [True, True, True, False, False, False]
    assert _rate(m, "offline_tool_degraded_safe_fallback") == (3, 6)


def test_empty_case_types_report_sample_size_zero(tmp_path: Path) -> None:
    m, _ = _score(tmp_path, [fx("k")])
    for name in ("offline_novel_grounding", "offline_compositional_causal_order",
                 "offline_tool_degraded_safe_fallback"):
        assert m[name]["denominator"] == 0 and m[name]["value"] is None
        assert m[name]["ci_low"] is None
    assert _rate(m, "offline_outcome_match") == (1, 1)
