"""An interrupted run counts its unfinished cases as what they are: a real SIGINT to a real
`rcaeval run` with two agents running and one case pending gives "interrupted 2, pending 1"
on the console and in report.txt (not "errored 3", not "3 other"), the cases keep their case
type, and the baseline comparison calls none of them a regression."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from runner_kit import PY, RECORDED, cli_env

from rcaeval.report import promote_baseline
from rcaeval.runner._proc import pid_running
from rcaeval.store import connect

CASES = ["cpu-hotspot-region-001", "disk-full-tikv-001", "fake-alarm-scrape-gap-001"]
TYPES = {"cpu-hotspot-region-001": "known", "disk-full-tikv-001": "known",
         "fake-alarm-scrape-gap-001": "novel"}


def _wait_for(pred, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_sigint_counts_interrupted_and_pending(paths, make_registry, multi_agent,
                                               tmp_path: Path) -> None:
    reg = make_registry(CASES, jobs=2)
    common = ["--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
              "--audit-root", str(paths["audits"]), "--no-progress"]
    base = subprocess.run([PY, "-m", "rcaeval", "run", *common, "--agent", "replay:thorough",
                           "--run-id", "base"], capture_output=True, text=True, timeout=300,
                          env=cli_env(), cwd=tmp_path)
    assert base.returncode == 0, base.stdout + base.stderr
    with connect(paths["db"]) as s:
        promote_baseline(s, "base", reg, paths["audits"])

    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    proc = subprocess.Popen(
        [PY, "-m", "rcaeval", "run", *common, "--agent", multi_agent, "--run-id", "t1",
         "--sandbox", "none", "--jobs", "2", "--baseline-diff", "--expose-case-ids",
         "--agent-env", "AGENT_DEFAULT=hang", "--agent-env", f"PID_DIR={pid_dir}",
         "--agent-env", f"REC_DIR={RECORDED / 'rec-thorough'}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
        cwd=tmp_path)
    # the two agents have started and hang: the third case is still pending
    _wait_for(lambda: len(list(pid_dir.glob("*.pid"))) == 2, 120, "two hanging agents")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, out + err
    for f in pid_dir.glob("*.pid"):
        assert not pid_running(int(f.read_text()))
    running = {f.name.removesuffix(".pid") for f in pid_dir.glob("*.pid")}
    (pending,) = set(CASES) - running

    assert "3 case(s): pass 0, fail 0, invalid 0, errored 0, timed_out 0, interrupted 2, " \
        "pending 1" in out
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:4]]
            for line in out.splitlines() if line.startswith("│")}
    assert rows == {cid: [TYPES[cid], "pending" if cid == pending else "interrupted"]
                    for cid in CASES}

    report = (paths["audits"] / "t1" / "report.txt").read_text("utf-8")
    assert "execution status:  interrupted (0 judged, 0 errored, 0 timed_out, 2 interrupted, " \
        "1 pending)" in report
    assert "other" not in report and "REGRESSION" not in report
    assert "compared with baseline base: OK (no regression); 3 case(s) not finished, not " \
        "compared" in report
    assert "unfinished 3" in report and "pass→" not in report
    case_lines = {line.split()[0]: line.split() for line in report.splitlines()
                  if line.startswith("  ") and line.split()[0] in CASES}
    for cid, words in case_lines.items():
        assert words[1] == TYPES[cid]
        assert ("pending" if cid == pending else "interrupted") in words
