"""`rcaeval run` end to end through real subprocesses: replay, the example ACP agent, and
agents that crash, hang or plant a symlink; a malformed registry case."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import orjson
import pytest
from runner_kit import RECORDED

from rcaeval.runner._proc import pid_running

SMOKE_CASES = 13


@pytest.mark.slow
def test_thorough_replay_runs_judges_and_reports(rcaeval, paths, db_query):
    r = rcaeval("run", "--suite", "smoke", "--agent", "replay:thorough", "--db", str(paths["db"]),
                "--audit-root", str(paths["audits"]), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert f"{SMOKE_CASES} case(s): pass {SMOKE_CASES}, fail 0, invalid 0" in r.stdout
    (run_id, suite_version, status, source, agent_hash, finished), = db_query(
        paths["db"], "SELECT run_id, suite_version, status, source, agent_hash, "
        "finished_at IS NOT NULL FROM eval_runs")
    assert re.fullmatch(r"smoke-\d{8}T\d{6}-[0-9a-f]{6}", run_id)
    assert (suite_version, status, source, finished) == ("2026.11.1", "completed", "runner", True)
    assert re.fullmatch(r"[0-9a-f]{64}", agent_hash)
    rows = db_query(paths["db"], "SELECT c.status, c.attempts, c.input_tokens > 0, "
                    "c.cost_usd > 0, j.verdict, c.audit_path FROM eval_case_runs c "
                    "JOIN eval_judgment j USING (run_id, case_id)")
    assert len(rows) == SMOKE_CASES
    for status, attempts, tokens, cost, verdict, audit_path in rows:
        assert (status, attempts, tokens, cost, verdict) == ("judged", 1, True, True, "pass")
        packet = orjson.loads((Path(audit_path) / "judgment.json").read_bytes())
        assert packet["run_id"] == run_id and packet["verdict"] == "pass"
    (checks,), = db_query(paths["db"], "SELECT count(*) FROM eval_check WHERE run_id = ?",
                          [run_id])
    assert checks > SMOKE_CASES * 10
    run_dir = paths["audits"] / run_id
    report = (run_dir / "report.txt").read_text()
    assert f"report: {run_dir / 'report.txt'}" in r.stdout
    assert "execution status:  completed (13 judged, 0 errored, 0 timed_out)" in report
    assert (run_dir / "report_detail.txt").is_file()
    assert orjson.loads((run_dir / "run.json").read_bytes())["agent_hash"] == agent_hash


@pytest.mark.slow
def test_example_acp_agent(rcaeval, paths, db_query):
    spec = f"acp:{shlex.quote(sys.executable)} -m rcaeval.examples.example_agent"
    cases = ["tikv-panic-restart-001", "kill-query-chain-001"]
    r = rcaeval("run", "--suite", "smoke", "--agent", spec, "--db", str(paths["db"]),
                "--audit-root", str(paths["audits"]), "--run-id", "acp-1",
                *[a for c in cases for a in ("--case", c)])
    assert r.returncode == 0, r.stderr
    rows = db_query(paths["db"], "SELECT case_id, c.status, j.verdict, c.input_tokens, "
                    "c.audit_path FROM eval_case_runs c LEFT JOIN eval_judgment j "
                    "USING (run_id, case_id) ORDER BY case_id")
    assert [r[0] for r in rows] == sorted(cases)
    for _cid, status, verdict, tokens, audit_path in rows:
        assert status == "judged" and verdict in ("pass", "fail") and tokens > 0
        assert (Path(audit_path) / ".rcaeval" / "acp.jsonl").is_file()
        assert (Path(audit_path) / "judgment.json").is_file()
    # the deterministic example agent names the panic correctly
    (verdict,), = db_query(paths["db"], "SELECT verdict FROM eval_judgment "
                           "WHERE case_id = 'tikv-panic-restart-001'")
    assert verdict == "pass"


@pytest.mark.slow
def test_misbehaving_agents_get_a_clear_status_and_the_run_continues(
        rcaeval, paths, db_query, multi_agent, tmp_path):
    secret = tmp_path / "outside-secret.json"
    secret.write_text('{"token": "TOPSECRET-42"}')
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    modes = ("tikv-panic-restart-001:crash,disk-full-tikv-001:hang,"
             "kill-query-chain-001:symlink")
    cases = ["tikv-panic-restart-001", "disk-full-tikv-001", "kill-query-chain-001",
             "cpu-hotspot-region-001"]
    # --sandbox none: the test agent reads recordings and writes pid files outside its workspace
    r = rcaeval("run", "--suite", "smoke", "--agent", multi_agent, "--sandbox", "none",
                "--db", str(paths["db"]),
                "--audit-root", str(paths["audits"]), "--run-id", "bad-agents",
                "--jobs", "4", "--timeout", "3", "--retries", "0", "--expose-case-ids",
                "--agent-env", f"AGENT_MODES={modes}",
                "--agent-env", f"REC_DIR={RECORDED / 'rec-thorough'}",
                "--agent-env", f"PID_DIR={pid_dir}", "--agent-env", f"SECRET_FILE={secret}",
                *[a for c in cases for a in ("--case", c)], timeout=90)
    assert r.returncode == 7, r.stderr  # a timed-out case: infrastructure, not a verdict
    assert "1 case(s) timed out (infrastructure): disk-full-tikv-001" in r.stderr
    got = {row[0]: row[1:] for row in db_query(
        paths["db"], "SELECT case_id, c.status, j.verdict, j.subtype, c.error, c.audit_path "
        "FROM eval_case_runs c LEFT JOIN eval_judgment j USING (run_id, case_id)")}
    status, verdict, subtype, error, _ = got["tikv-panic-restart-001"]
    assert (status, verdict, subtype) == ("judged", "invalid", "bundle_missing")
    assert error.startswith("agent crashed:")
    status, verdict, _, error, _ = got["disk-full-tikv-001"]
    assert status == "timed_out" and "time" in error and verdict is not None
    pid = int((pid_dir / "disk-full-tikv-001.pid").read_text())
    assert not pid_running(pid)
    status, verdict, _, error, audit_path = got["kill-query-chain-001"]
    assert status == "judged" and verdict == "pass"
    assert error.startswith("audit skipped 1 file(s): evidences/secret.json"), error
    for f in Path(audit_path).rglob("*"):
        assert not f.is_symlink()
        if f.is_file():
            assert b"TOPSECRET" not in f.read_bytes(), f
    assert got["cpu-hotspot-region-001"][:2] == ("judged", "pass")
    (run_status,), = db_query(paths["db"], "SELECT status FROM eval_runs")
    assert run_status == "completed"
    assert "timed_out 1" in r.stdout


@pytest.mark.slow
def test_malformed_registry_case_is_errored_and_the_run_continues(
        rcaeval, paths, db_query, make_registry):
    reg = make_registry(["tikv-panic-restart-001", "disk-full-tikv-001", "kill-query-chain-001"],
                        broken=("disk-full-tikv-001",), quarantined=("kill-query-chain-001",))
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--agent", "replay:thorough",
                "--db", str(paths["db"]), "--audit-root", str(paths["audits"]),
                "--run-id", "mini-1")
    assert r.returncode == 7, r.stderr  # an errored case: the run does not measure it
    assert "1 case(s) errored (infrastructure): disk-full-tikv-001" in r.stderr
    got = {row[0]: row[1:] for row in db_query(
        paths["db"], "SELECT case_id, c.status, j.verdict, c.error FROM eval_case_runs c "
        "LEFT JOIN eval_judgment j USING (run_id, case_id)")}
    status, verdict, error = got["disk-full-tikv-001"]
    assert (status, verdict) == ("errored", None)
    assert error.startswith("malformed case:") and "judge.yaml" in error
    assert got["tikv-panic-restart-001"][:2] == ("judged", "pass")
    assert got["kill-query-chain-001"][:2] == ("judged", "pass")  # quarantined still runs
    assert "quarantined" in r.stdout
    report = (paths["audits"] / "mini-1" / "report.txt").read_text()
    assert "1 errored" in report


def test_usage_errors(paths, db_query, capsys):
    from rcaeval.cli import main

    common = ["--db", str(paths["db"]), "--audit-root", str(paths["audits"])]
    assert main(["run", "--suite", "smoke", "--agent", "bogus", *common]) == 3
    assert "bad agent spec" in capsys.readouterr().err
    assert main(["run", "--suite", "smoke", "--agent", "replay:thorough", "--case", "nope",
                 *common]) == 6
    assert "nope" in capsys.readouterr().err
    assert main(["run", "--suite", "smoke", "--agent", "replay:thorough", "--resume", "nope",
                 *common]) == 6
    assert "nothing to resume" in capsys.readouterr().err
    assert main(["run", "--suite", "no-such-suite", "--agent", "replay:thorough", *common]) == 6
    assert db_query(paths["db"], "SELECT count(*) FROM eval_runs") == [(0,)]
