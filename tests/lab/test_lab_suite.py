"""`rcaeval run --suite lab` live (slow; the lab's Debian packages, `make lab-deps`): the
scenarios run end to end through the ordinary runner — inject, alert, a real subprocess agent
over the live MCP tools, its actions, the recovery check, reset — judged, with the mitigation
in the store and the report beside the verdict; the reference agents give each mitigation
outcome; a run killed with kill -9 leaves the lab running only until `--resume`, which
finishes it; nothing of the lab runs afterwards. Runs as root in CI (the lab drops to an
unprivileged user)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from rcaeval import lab
from rcaeval.lab._procs import read_procs
from rcaeval.lab._stack import read_state
from tests.lab.lab_kit import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    bool(lab.missing_binaries()), reason="the lab's Debian packages are not installed "
    f"(missing {', '.join(lab.missing_binaries())}; run `make lab-deps` as root)")]

ORACLE = "command:{python} -m rcaeval.examples.lab_agent --behaviour oracle"
EXAMPLE = "acp:{python} -m rcaeval.examples.example_agent"


@pytest.fixture
def env(tmp_path):
    # the lab dir under /tmp: reachable by the unprivileged lab user
    lab_dir = Path(tempfile.mkdtemp(prefix="rcaeval-lab-suite-", dir="/tmp"))
    yield {"lab_dir": lab_dir, "db": tmp_path / "store.duckdb", "audits": tmp_path / "audits",
           "env": {**os.environ, "RCAEVAL_LAB_REGISTRY": str(tmp_path / "lab-registry")}}
    lab.down(lab_dir)
    shutil.rmtree(lab_dir, ignore_errors=True)


def _argv(env: dict, agent: str, *cases: str, extra: tuple[str, ...] = ()) -> list[str]:
    argv = [sys.executable, "-m", "rcaeval", "run", "--suite", "lab", "--agent", agent,
            "--lab-dir", str(env["lab_dir"]), "--db", str(env["db"]), "--audit-root",
            str(env["audits"]), "--no-progress", *extra]
    for c in cases:
        argv += ["--case", c]
    return argv


def _run(env: dict, agent: str, *cases: str, extra: tuple[str, ...] = ()) -> dict:
    out = env["audits"].parent / "results.json"
    done = subprocess.run(_argv(env, agent, *cases, extra=(*extra, "--results-json", str(out))),
                          env=env["env"], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(out.read_text())
    return {"stdout": done.stdout, "run_id": doc["run"]["id"],
            "verdicts": {c["case_id"]: c["attempts"][0]["verdict"] for c in doc["cases"]},
            "lab": {c["case_id"]: c["attempts"][0]["lab"] for c in doc["cases"]}}


def _mitigation(env: dict, run_id: str) -> dict[str, dict]:
    from rcaeval.lab._suite import mitigation_rows
    from rcaeval.store import connect

    store = connect(env["db"])
    try:
        return {r["case_id"]: r for r in mitigation_rows(store.con, run_id)}
    finally:
        store.close()


def _nothing_left(lab_dir: Path) -> None:
    assert read_procs(lab_dir) == []
    assert not any(p.alive() for p in read_procs(lab_dir))
    assert lab.status(lab_dir)["running"] is False


def test_oracle_diagnoses_and_mitigates_two_scenarios(env):
    got = _run(env, ORACLE, "lab-lock-contention", "lab-false-alarm-exporter-stopped")
    assert got["verdicts"] == {"lab-lock-contention": "pass",
                               "lab-false-alarm-exporter-stopped": "pass"}
    rows = _mitigation(env, got["run_id"])
    for case_id, row in rows.items():
        assert row["mitigation"] == "resolved", (case_id, row)
        assert row["verdict"] == "pass"
        assert row["alert_after_s"] > 0 and row["actions_applied"] == 1
        assert row["time_to_diagnosis_s"] is not None
        assert row["time_to_mitigation_s"] >= row["time_to_diagnosis_s"]
        # results.json carries the same mitigation beside the verdict
        assert got["lab"][case_id]["mitigation"] == "resolved"
        assert got["lab"][case_id]["time_to_mitigation_s"] == row["time_to_mitigation_s"]
    assert "lab mitigation" in got["stdout"]
    report = (env["audits"] / got["run_id"] / "report.txt").read_text()
    assert "lab-lock-contention" in report.split("lab mitigation")[1]
    manifest = json.loads((env["audits"] / got["run_id"] / "lab-lock-contention" /
                           "manifest.json").read_text())
    applied = [a for a in manifest["lab"]["actions"] if a["status"] == "applied"]
    assert applied[0]["action"] == "terminate_backend"
    # the judged incident data is the exercise's own window, captured before the revert
    incident = Path(env["env"]["RCAEVAL_LAB_REGISTRY"]) / "cases" / "lab-lock-contention" \
        / "incident"
    assert "still waiting" in (incident / "logs" / "postgres.log").read_text()
    # ... and kept as the run's own case, which loads and is judged by the same rules
    from rcaeval.lab._suite import run_case_id
    from rcaeval.registry import load_case

    reg = Path(env["env"]["RCAEVAL_LAB_REGISTRY"])
    kept = run_case_id("lab-lock-contention", got["run_id"])
    case = load_case(reg, kept)
    assert case.case_id == kept
    assert (reg / "cases" / kept / "incident" / "logs" / "postgres.log").read_text() == \
        (incident / "logs" / "postgres.log").read_text()
    same = load_case(reg, "lab-lock-contention")
    assert case.judge.model_dump(exclude={"case_id"}) == \
        same.judge.model_dump(exclude={"case_id"})
    _nothing_left(env["lab_dir"])


def test_a_rerun_keeps_the_earlier_runs_captured_case(env):
    from rcaeval.lab._suite import run_case_id

    lazy = "command:{python} -m rcaeval.examples.lab_agent --behaviour lazy"
    reg = Path(env["env"]["RCAEVAL_LAB_REGISTRY"])
    first = _run(env, lazy, "lab-lock-contention", extra=("--run-id", "lab-rerun-1"))
    kept = reg / "cases" / run_case_id("lab-lock-contention", first["run_id"])
    before = {p.relative_to(kept): p.read_bytes() for p in kept.rglob("*") if p.is_file()}
    assert "still waiting" in before[Path("incident/logs/postgres.log")].decode()
    second = _run(env, lazy, "lab-lock-contention", extra=("--run-id", "lab-rerun-2"))
    again = reg / "cases" / run_case_id("lab-lock-contention", second["run_id"])
    assert again != kept and (again / "incident" / "metrics.json").is_file()
    assert {p.relative_to(kept): p.read_bytes() for p in kept.rglob("*") if p.is_file()} \
        == before  # the first run's real-telemetry case is as it was
    current = reg / "cases" / "lab-lock-contention" / "incident"
    assert (current / "metrics.json").read_bytes() == \
        (again / "incident" / "metrics.json").read_bytes()  # judged against the latest
    _nothing_left(env["lab_dir"])


def test_example_agent_runs_live_and_attempts_no_mitigation(env):
    got = _run(env, EXAMPLE, "lab-dropped-index")
    assert got["verdicts"]["lab-dropped-index"] in ("pass", "fail")
    row = _mitigation(env, got["run_id"])["lab-dropped-index"]
    assert row["mitigation"] == "not_attempted" and row["actions_applied"] == 0
    assert row["time_to_diagnosis_s"] is not None  # it queried the scan metrics
    _nothing_left(env["lab_dir"])


@pytest.mark.parametrize(("behaviour", "case", "outcome"), [
    ("lazy", "lab-lock-contention", "not_attempted"),
    ("unsafe", "lab-lock-contention", "unsafe"),
    ("wrong", "lab-false-alarm-exporter-stopped", "not_resolved"),
])
def test_reference_agents_give_each_mitigation_outcome(env, behaviour, case, outcome):
    got = _run(env, f"command:{{python}} -m rcaeval.examples.lab_agent --behaviour {behaviour}",
               case)
    assert got["verdicts"][case] != "pass"
    row = _mitigation(env, got["run_id"])[case]
    assert row["mitigation"] == outcome, row
    if outcome == "unsafe":
        assert row["unsafe_attempts"] == 1 and row["actions_applied"] == 0
        manifest = json.loads((env["audits"] / got["run_id"] / case / "manifest.json")
                              .read_text())
        refused = manifest["lab"]["actions"][0]  # the refusal names what gate 3 missed
        assert refused["status"] == "refused"
        assert any("read-only verification" in m for m in refused["missing"])
    _nothing_left(env["lab_dir"])


def test_a_killed_run_is_cleaned_up_and_finished_by_resume(env):
    run_id = "lab-killed-run-001"
    proc = subprocess.Popen(_argv(env, ORACLE, "lab-lock-contention",
                                  extra=("--run-id", run_id)), env=env["env"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_until("the scenario injected", lambda: (read_state(env["lab_dir"]) or {}).get(
            "scenario") is not None, timeout_s=240)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    left = [p for p in read_procs(env["lab_dir"]) if p.alive()]
    assert {p.name for p in left} >= {"postgres", "prometheus"}  # the kill left the lab up
    got = _run(env, ORACLE, extra=("--resume", run_id))
    assert got["run_id"] == run_id and got["verdicts"]["lab-lock-contention"] == "pass"
    assert not any(p.alive() for p in left)  # the resumed run's `up` stopped them
    assert _mitigation(env, run_id)["lab-lock-contention"]["mitigation"] == "resolved"
    _nothing_left(env["lab_dir"])
