"""`rcaeval run --repeat K`: every attempt stored as its own run of a repeat group, per case
pass rate / pass@k / pass^k, the suite pass rate with a Wilson interval, flaky cases, JUnit
with one testcase per case x repeat, a rate-based baseline comparison, and resuming a group.
Real CLI, real subprocess agents (the example ACP agent, and a test agent that fails every
other time)."""

from __future__ import annotations

import shlex
import sys
import xml.etree.ElementTree as ET

import orjson
import pytest
from runner_kit import RECORDED

from rcaeval.cli import main
from rcaeval.report import promote_baseline
from rcaeval.stats import wilson_interval
from rcaeval.store import connect

CASES = ["tikv-panic-restart-001", "kill-query-chain-001"]


@pytest.mark.slow
def test_example_agent_three_repeats(paths, make_registry, tmp_path, capsys, db_query):
    reg = make_registry(CASES)
    spec = f"acp:{shlex.quote(sys.executable)} -m rcaeval.examples.example_agent"
    out_json, out_xml = tmp_path / "results.json", tmp_path / "junit.xml"
    code = main(["run", "--suite", "mini", "--registry", str(reg), "--agent", spec,
                 "--db", str(paths["db"]), "--audit-root", str(paths["audits"]),
                 "--run-id", "ex", "--repeat", "3", "--no-progress",
                 "--results-json", str(out_json), "--junit-xml", str(out_xml)])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0, out
    runs = db_query(paths["db"], "SELECT run_id, status FROM eval_runs ORDER BY run_id")
    assert runs == [("ex-r1", "completed"), ("ex-r2", "completed"), ("ex-r3", "completed")]
    assert db_query(paths["db"], "SELECT count(*), count(DISTINCT workspace_id) FROM "
                    "eval_case_runs") == [(6, 6)]  # every attempt kept, each fresh
    doc = orjson.loads(out_json.read_bytes())
    assert doc["run"]["id"] == "ex" and doc["run"]["repeat"] == 3
    rate = doc["summary"]["pass_rate"]
    passes = sum(c["passes"] for c in doc["cases"])
    assert (rate["successes"], rate["n"]) == (passes, 6)
    assert (rate["ci_low"], rate["ci_high"]) == pytest.approx(wilson_interval(passes, 6))
    # the example agent is deterministic: a case passes every time or never
    for c in doc["cases"]:
        assert c["runs"] == 3 and not c["flaky"]
        assert c["pass_at_k"] == c["pass_hat_k"] == (c["passes"] == 3)
    assert doc["summary"]["pass_at_k"]["n"] == 2 and doc["summary"]["flaky"] == []
    assert "pass rate" in out and "pass@3" in out and "pass^3" in out and "Wilson" in out
    root = ET.parse(out_xml).getroot()
    names = sorted(tc.get("name") for tc in root.iter("testcase"))
    assert names == sorted(f"{c} [repeat {i}/3]" for c in CASES for i in (1, 2, 3))
    assert len(root.findall("testsuite")) == 3 and root.get("tests") == "6"


def test_flaky_agent_repeats_stats_gate_baseline_and_resume(paths, make_registry, tmp_path,
                                                           capsys, multi_agent, db_query):
    reg = make_registry(CASES)
    counts = tmp_path / "counts"
    counts.mkdir()
    common = ["--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
              "--audit-root", str(paths["audits"]), "--no-progress", "--retries", "0",
              "--expose-case-ids", "--agent", multi_agent, "--sandbox", "none",
              "--agent-env", f"REC_DIR={RECORDED / 'rec-thorough'}"]  # reads host recordings

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["run", *common, *args])
        got = capsys.readouterr()
        return code, " ".join(got.out.split()), " ".join(got.err.split())

    code, out, err = run("--run-id", "steady")
    assert code == 0, out + err
    with connect(paths["db"]) as s:
        promote_baseline(s, "steady", reg, paths["audits"])
    # kill-query-chain fails every other attempt: r1 pass, r2 crash (invalid)
    flaky_env = ["--agent-env", f"AGENT_MODES={CASES[1]}:alternate",
                 "--agent-env", f"COUNT_DIR={counts}"]
    code, out, err = run("--run-id", "grp", "--repeat", "2", *flaky_env, "--baseline-diff",
                         "--fail-under", "0.9", "--results-json", str(tmp_path / "r.json"))
    assert code == 4, out + err  # 3/4 = 0.75 < 0.9; crashes are judged, not infrastructure
    assert "pass rate 0.750 (3/4) is below --fail-under 0.9" in err
    assert "flaky: kill-query-chain-001" in out
    assert "one-sided Fisher exact p =" in out and "no regression: no case stopped passing" in out
    doc = orjson.loads((tmp_path / "r.json").read_bytes())
    flaky = {c["case_id"]: c for c in doc["cases"]}[CASES[1]]
    assert [a["outcome"] for a in flaky["attempts"]] == ["pass", "invalid"]
    assert flaky["flaky"] and flaky["pass_at_k"] and not flaky["pass_hat_k"]
    assert doc["summary"]["pass_hat_k"]["successes"] == 1
    assert doc["exit"]["code"] == 4
    assert db_query(paths["db"], "SELECT group_id, run_id, repeat_index, repeats FROM "
                    "eval_repeat_runs ORDER BY repeat_index") == \
        [("grp", "grp-r1", 1, 2), ("grp", "grp-r2", 2, 2)]

    # resuming a finished group re-runs nothing (the counter does not move)
    code, out, err = run("--resume", "grp", *flaky_env)
    assert code == 0, out + err
    assert (counts / f"{CASES[1]}.n").read_text() == "2"
    code, out, err = run("--resume", "grp", "--repeat", "3", *flaky_env)
    assert code == 3 and "has 2 repeats, not 3" in err


def test_a_case_that_never_passes_now_gates_whatever_the_p_value(paths, make_registry, capsys):
    """Two cases that passed in the baseline and fail in both repeats: Fisher's p is 0.0667
    (two cases cannot reach 0.05), but each is a regression on its own, as in a single run."""
    reg = make_registry(CASES)
    common = ["--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
              "--audit-root", str(paths["audits"]), "--no-progress"]
    assert main(["run", *common, "--agent", "replay:thorough", "--run-id", "steady"]) == 0
    with connect(paths["db"]) as s:
        promote_baseline(s, "steady", reg, paths["audits"])
    capsys.readouterr()
    code = main(["run", *common, "--agent", "replay:shallow", "--run-id", "worse",
                 "--repeat", "2", "--baseline-diff"])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 4, out
    assert "one-sided Fisher exact p = 0.0667" in out
    assert ("REGRESSION: 2 eligible case(s) passed in the baseline and in none of the 2 runs: "
            "kill-query-chain-001 (pass -> 0/2), tikv-panic-restart-001 (pass -> 0/2)") in out
    assert "significantly lower" not in out
