"""The imported OpenRCA fixture end to end (slow: real agents through the runner, the MCP
incident tools and the sandbox): `rcaeval case prove` proves every case (the oracle passes,
the lazy and the wrong agent fail), the example agent runs every case through the tools, and
the OpenRCA profile (`rcaeval offline openrca-run`) gives exactly the scores `rcaeval offline
openrca` gives on the same answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rcaeval.corpora import import_openrca

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data" / "openrca"
CASES = [f"openrca-bank-{i:04d}" for i in range(5)]
EXAMPLE = "acp:{python} -m rcaeval.examples.example_agent"


def rcaeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=1500, check=False,
                          env={**os.environ, "COLUMNS": "220"})


def _profile_equals_offline(reg: Path, audit_run: Path, tmp: Path) -> list[float]:
    prof = rcaeval("offline", "openrca-run", str(audit_run), "--registry", str(reg),
                   "--export", str(tmp), "--json")
    assert prof.returncode == 0, prof.stderr
    doc = json.loads(prof.stdout)
    off = rcaeval("offline", "openrca", "--query", str(tmp / "query.csv"), "--predictions",
                  str(tmp / "predictions.csv"), "--out", str(tmp / "scores.csv"), "--json")
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout) == doc["summary"]
    rows = (tmp / "scores.csv").read_text().splitlines()
    assert [float(r.split(",")[2]) for r in rows[1:]] == [c["score"] for c in doc["cases"]]
    return [c["score"] for c in doc["cases"]]


@pytest.mark.timeout(2400)
def test_openrca_fixture_is_proven_run_and_scored_as_openrca_does(tmp_path: Path) -> None:
    reg = tmp_path / "reg"
    assert import_openrca(DATA, "Bank", reg).cases == CASES
    proof = rcaeval("case", "prove", "--registry", str(reg), "--suite", "openrca-bank",
                    "--out", str(tmp_path / "proof"), "--json")
    doc = json.loads(proof.stdout)
    assert proof.returncode == 0, proof.stdout + proof.stderr
    assert {r["case_id"]: (r["oracle"], r["lazy"], r["wrong"]) for r in doc["cases"]} == {
        c: ("pass", "fail", "fail") for c in CASES}
    audits = tmp_path / "proof" / "audits"
    oracle = next(p for p in audits.iterdir() if p.name.startswith("proof-oracle-"))
    wrong = next(p for p in audits.iterdir() if p.name.startswith("proof-wrong-"))
    assert _profile_equals_offline(reg, oracle, tmp_path / "oracle") == [1.0] * 5
    assert _profile_equals_offline(reg, wrong, tmp_path / "wrong") == [0.0] * 5

    run = rcaeval("run", "--suite", "openrca-bank", "--agent", EXAMPLE, "--registry",
                  str(reg), "--db", str(tmp_path / "s.duckdb"), "--audit-root",
                  str(tmp_path / "audits"), "--run-id", "example", "--no-progress")
    assert "5 case(s): pass 0, fail 5, invalid 0, errored 0" in run.stdout, (
        run.stdout + run.stderr)
    for cid in CASES:
        tel = (tmp_path / "audits" / "example" / cid / ".opencode" / "telemetry.log")
        calls = [json.loads(x) for x in tel.read_text().splitlines() if x.strip()]
        tools = {c.get("tool") for c in calls if c.get("event") == "tool.call"}
        assert {"get_ticket", "query_metrics", "search_logs", "submit_report"} <= tools
    _profile_equals_offline(reg, tmp_path / "audits" / "example", tmp_path / "example")


@pytest.mark.timeout(1800)
def test_rcaeval_fixture_is_proven_and_run_through_the_tools(tmp_path: Path) -> None:
    from rcaeval.corpora import import_rcaeval

    reg = tmp_path / "reg"
    cases = import_rcaeval(Path(__file__).parent / "data" / "rcaeval" / "RE2-OB", reg).cases
    assert len(cases) == 2
    proof = rcaeval("case", "prove", "--registry", str(reg), "--suite", "rcaeval-re2-ob",
                    "--json")
    doc = json.loads(proof.stdout)
    assert proof.returncode == 0, proof.stdout + proof.stderr
    assert {r["case_id"]: (r["oracle"], r["lazy"], r["wrong"]) for r in doc["cases"]} == {
        c: ("pass", "fail", "fail") for c in cases}
    run = rcaeval("run", "--suite", "rcaeval-re2-ob", "--agent", EXAMPLE, "--registry",
                  str(reg), "--db", str(tmp_path / "s.duckdb"), "--audit-root",
                  str(tmp_path / "audits"), "--run-id", "example", "--no-progress")
    assert "2 case(s):" in run.stdout and "invalid 0, errored 0" in run.stdout, (
        run.stdout + run.stderr)
    for cid in cases:
        assert (tmp_path / "audits" / "example" / cid / "output.txt").read_text().strip()
