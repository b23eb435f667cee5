"""Reading the shadow back: agreement (confusion counts, Cohen's kappa) via SQL, the CLI and
the notebook function; explain side by side; the run report; `rcaeval run --semantic`."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from semantic_kit import BLENDED_CASE, CASES, REGISTRY, RUN, needs_sample

import rcaeval.store as st
from rcaeval.cli import main
from rcaeval.report import write_reports
from rcaeval.semantic import agreement, report_lines, verdict_comparison
from rcaeval.stats import cohen_kappa

SCRIPT = Path(__file__).parent / "agents" / "fake_semantic_command.py"


def _provider(mode: str = "ok") -> str:
    return "command:" + shlex.join([sys.executable, str(SCRIPT), mode])


def test_cohen_kappa_reference_values():
    assert cohen_kappa(20, 5, 10, 15) == pytest.approx(0.4)
    assert cohen_kappa(10, 0, 0, 10) == pytest.approx(1.0)
    assert cohen_kappa(0, 10, 10, 0) == pytest.approx(-1.0)
    assert cohen_kappa(0, 0, 0, 0) is None
    assert cohen_kappa(7, 0, 0, 0) is None          # one verdict everywhere: undefined
    with pytest.raises(ValueError):
        cohen_kappa(-1, 0, 0, 0)


def _insert_checks(con, rows):
    con.executemany(
        "INSERT INTO eval_semantic_check (run_id, case_id, check_id, kind, det_passed, "
        "sem_passed, votes_pass, votes_fail, spread, rationale) "
        "VALUES (?, ?, ?, ?, ?, ?, 1, 0, 0, NULL)", rows)


def test_agreement_counts_and_kappa(tmp_path, capsys):
    db = tmp_path / "s.duckdb"
    with st.connect(db) as s:
        rows = []
        # check a: 20 both pass, 5 det pass/sem fail, 10 det fail/sem pass, 15 both fail
        pattern = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10 + \
            [(False, False)] * 15
        rows += [("r1", f"c{i}", "a", "hard", d, m) for i, (d, m) in enumerate(pattern)]
        rows += [("r1", "c0", "b", "supporting", True, None),        # a tie
                 ("r1", "c1", "b", "supporting", True, True),
                 ("r2", "c0", "a", "hard", False, False)]           # another run
        _insert_checks(s.con, rows)
        df = agreement(s, "r1")
        a = df.row(0, named=True)
        assert (a["check_id"], a["kind"], a["n"], a["both_pass"], a["det_pass_sem_fail"],
                a["det_fail_sem_pass"], a["both_fail"], a["ties"]) == (
            "a", "hard", 50, 20, 5, 10, 15, 0)
        assert a["agreement"] == pytest.approx(0.7) and a["kappa"] == pytest.approx(0.4)
        b = df.row(1, named=True)
        assert (b["n"], b["ties"], b["kappa"], b["agreement"]) == (1, 1, None, 1.0)
        total = df.row(2, named=True)
        assert total["check_id"] is None and total["kind"] is None
        assert (total["n"], total["ties"], total["case_runs"]) == (51, 1, 50)
        assert agreement(s, None).row(0, named=True)["n"] == 51
    code = main(["semantic", "agreement", "r1", "--db", str(db), "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)
    assert doc[0]["check_id"] == "a" and doc[0]["kappa"] == pytest.approx(0.4)
    assert main(["semantic", "agreement", "r1", "--db", str(db)]) == 0
    table = capsys.readouterr().out
    assert "all checks" in table and "0.400" in table
    assert main(["semantic", "agreement", "nope", "--db", str(db)]) == 6
    assert main(["semantic", "agreement", "--db", str(db)]) == 3
    assert main(["semantic", "agreement", "r1", "--db", str(db), "--format", "xml"]) == 3


@needs_sample
def test_explain_summary_and_report_after_judge(sem_audit, tmp_path, capsys):
    audits, registry = sem_audit
    db, out = tmp_path / "s.duckdb", tmp_path / "out"
    assert main(["judge", str(audits), "--registry", str(registry), "--db", str(db),
                 "--out", str(out), "--workers", "1", "--semantic", _provider()]) == 0
    capsys.readouterr()
    assert main(["explain", RUN, BLENDED_CASE, "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "deterministic vs blended" in text and "detectors vs model" in text
    assert "semantic shadow: ok" in text and "≠" in text
    assert main(["explain", RUN, CASES[1], "--db", str(db)]) == 0
    assert "no second pass (diagnosis mode deterministic_only)" in capsys.readouterr().out
    assert main(["semantic", "summary", RUN, "--db", str(db)]) == 0
    summary = capsys.readouterr().out
    assert "judge tokens:" in summary and "input 28, output 12 (4 requests)" in summary
    with st.connect(db) as s:
        v = {r["verdict"]: r for r in verdict_comparison(s, RUN).iter_rows(named=True)}
        assert (v["fail"]["deterministic"], v["fail"]["blended"]) == (4, 3)
        assert (v["pass"]["deterministic"], v["pass"]["blended"]) == (0, 1)
        assert v["fail"]["changed_from"] == 1
        lines = report_lines(s, RUN)
        report, _ = write_reports(s, RUN, tmp_path / "reports", baseline=None)
    text = report.read_text()
    for line in lines:
        assert line in text
    assert "blended verdicts:  pass 1, fail 3, invalid 0 (deterministic: pass 0, fail 4, " \
        "invalid 0)" in text
    assert "judge cost:        $0.0040 (4 of 4 cases reported)" in text


@needs_sample
def test_report_without_shadow_has_no_semantic_lines(baseline, tmp_path):
    with st.connect(":memory:") as s:
        assert report_lines(baseline[2], RUN) and not report_lines(s, RUN)


@pytest.mark.slow
@needs_sample
def test_run_with_semantic_command(tmp_path):
    registry = tmp_path / "registry"
    (registry / "suites").mkdir(parents=True)
    for cid in (BLENDED_CASE, CASES[1]):
        shutil.copytree(REGISTRY / "cases" / cid, registry / "cases" / cid)
    judge = registry / "cases" / BLENDED_CASE / "judge.yaml"
    doc = yaml.safe_load(judge.read_text())
    doc["judge"]["diagnosis"]["mode"] = "blended"
    judge.write_text(yaml.safe_dump(doc, sort_keys=False))
    suite = {"suite_id": "mini", "version": "1", "execution": {"jobs": 2},
             "cases": [{"id": c, "status": "active"} for c in (BLENDED_CASE, CASES[1])]}
    (registry / "suites" / "mini.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    db, audits = tmp_path / "s.duckdb", tmp_path / "audits"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    r = subprocess.run(
        [sys.executable, "-m", "rcaeval", "run", "--suite", "mini", "--agent",
         "replay:misdiagnosis", "--registry", str(registry), "--db", str(db), "--audit-root",
         str(audits), "--run-id", "sem-run", "--no-progress", "--semantic", _provider()],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "2 case(s): pass 0, fail 2" in r.stdout
    files = {p.name for p in (audits / "sem-run" / BLENDED_CASE).iterdir()}
    assert {"judgment.json", "semantic_context_v1.json", "semantic_packet_v1.json",
            "judgment_blended.json"} <= files
    report = (audits / "sem-run" / "report.txt").read_text()
    assert "blended verdicts:  pass 1, fail 1" in report
    assert "semantic status:   2 cases: ok 2; 1 second pass(es), 0 from cache" in report
