"""The lab live (slow; Debian's PostgreSQL 15, Prometheus and exporters, `make lab-deps`):
`rcaeval lab up` starts the real stack, a scenario's fault makes its alert fire in the real
Prometheus, the revert passes the recovery check, a second `up` cleans up after the first
run, and `rcaeval lab down` leaves nothing running. Runs as root in CI (the lab drops to an
unprivileged user) and as an ordinary user elsewhere."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from rcaeval import lab
from rcaeval.lab._http import port_open
from rcaeval.lab._inject import instant_query
from tests.lab.lab_kit import wait_until

pytestmark = pytest.mark.slow

MISSING = lab.missing_binaries()


def _cli(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "rcaeval", "lab", *args, "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _pids_with(text: str) -> list[int]:
    """Live processes whose command line mentions ``text`` (the lab dir)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                st = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                continue
            if text in cmd and st not in ("Z", "X"):
                out.append(int(entry.name))
    return out


@pytest.fixture
def lab_dir():
    # under /tmp, reachable by the unprivileged lab user (pytest's tmp_path is root-only)
    path = Path(tempfile.mkdtemp(prefix="rcaeval-lab-test-", dir="/tmp"))
    yield path
    lab.down(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.skipif(bool(MISSING), reason="the lab's Debian packages are not installed "
                    f"(missing {', '.join(MISSING)}; run `make lab-deps` as root)")
def test_lab_up_inject_alert_revert_down(lab_dir):
    first = _cli("up", "--dir", str(lab_dir))
    if os.getuid() == 0:
        assert first["user"] != "root"
    st = _cli("status", "--dir", str(lab_dir))
    assert set(st["targets"].values()) == {"up"} and len(st["targets"]) == 6
    assert all(c["alive"] for c in st["components"].values())
    first_pids = [c["pid"] for c in st["components"].values()]

    # a second `up` over a running lab (as after a killed run) stops the first one's processes
    _cli("up", "--dir", str(lab_dir))
    assert not any(Path(f"/proc/{p}").exists() and p in _pids_with(str(lab_dir))
                   for p in first_pids)

    sc = lab.load_scenario("lab-lock-contention")
    got = _cli("inject", sc.id, "--dir", str(lab_dir))
    assert got["alert"]["name"] == "LabLockWaits"
    assert got["alert"]["after_s"] <= sc.expected_alert.within_s
    state = lab._stack.read_state(lab_dir)
    # the fault is visible in the real telemetry: waiting backends, an old transaction
    waiting = instant_query(state, "lab_activity_lock_waiting_backends")
    assert waiting and float(waiting[0]["value"][1]) >= 1
    oldest = instant_query(state, "lab_activity_oldest_xact_seconds")
    assert oldest and float(oldest[0]["value"][1]) > 5
    events = [json.loads(x) for x in (lab_dir / "logs" / "injector.jsonl").read_text()
              .splitlines()]
    assert events[-1]["action"] == "inject" and events[-1]["scenario"] == sc.id

    _live_tools_see_the_lock(lab_dir, lab_dir / "bundle")
    _capture_is_an_offline_case(lab_dir, sc)

    rec = _cli("revert", sc.id, "--dir", str(lab_dir))
    assert rec["recovery"]["resolved"] is True
    assert lab.firing_alerts(state) == [] or all(
        a["name"] != "LabLockWaits" for a in lab.firing_alerts(state))

    down = _cli("down", "--dir", str(lab_dir))
    assert "postgres" in down["stopped"] and "prometheus" in down["stopped"]
    assert _pids_with(str(lab_dir)) == []
    assert not any(port_open(p) for p in state["ports"].values())
    assert _cli("status", "--dir", str(lab_dir))["running"] is False


def _live_tools_see_the_lock(lab_dir: Path, bundle: Path) -> None:
    """An MCP client of `rcaeval lab tools` (stdio) finds the lock in the live telemetry, and
    what the tools returned is recorded into the bundle as for a recorded case."""
    from mcp import Client, StdioServerParameters

    from rcaeval.tools import client_caller

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "rcaeval", "lab", "tools", "--dir", str(lab_dir), "--bundle-dir", str(bundle)])

    async def main() -> dict:
        async with Client(params) as client:
            call = client_caller(client)
            return {
                "ticket": await call("get_ticket", {}),
                "metric": await call("query_metrics",
                                     {"name": "lab_activity_lock_waiting_backends"}),
                "alerts": await call("get_alerts", {"status": "fail"}),
                "locks": await call("query_database_view", {"view": "pg_locks"}),
                "logs": await call("search_logs", {"pattern": "still waiting"}),
                "events": await call("list_events", {}),
            }
    got = asyncio.run(main())
    assert "LabLockWaits" in got["ticket"]["ticket"]["summary"]
    points = got["metric"]["series"][0]["points"]
    assert max(v for _, v in points) >= 1
    assert "LabLockWaits" in [c["name"] for c in got["alerts"]["checks"]]
    rows = got["locks"]["rows"]
    assert rows and all(r["relation"] == "pgbench_accounts" for r in rows)
    assert any("pg_sleep" in (r.get("blocker_query") or "") for r in rows)
    assert got["logs"]["total"] >= 1
    # the change event says a batch job started, never which scenario or script
    ev = got["events"]["events"]
    assert ev and ev[-1]["reason"] == "JobStarted"
    assert "lock" not in json.dumps(ev).lower() and "scenario" not in json.dumps(ev)
    recorded = json.loads((bundle / "evidences" / "queries.json").read_text())
    assert {r["id"] for r in rows} <= {q["id"] for q in recorded["queries"]}
    assert (bundle / "evidences" / "metrics.json").is_file()


def _capture_is_an_offline_case(lab_dir: Path, sc) -> None:
    """`rcaeval lab capture` freezes the window into a case the recorded-case tools serve."""
    import yaml

    from rcaeval.cli import main
    from rcaeval.tools._data import load_case_data

    out = lab_dir / "registry" / "cases" / "lab-capture-001"
    assert main(["lab", "capture", "--dir", str(lab_dir), "--scenario", sc.id,
                 "--out", str(out)]) == 0
    judge = yaml.safe_load((out / "judge.yaml").read_text())
    assert judge["ground_truth"]["root_cause"]["family"] == "lock_contention"
    data = load_case_data(out)
    assert any(s["name"] == "lab_activity_lock_waiting_backends"
               and max(v for _, v in s["points"]) >= 1 for s in data.series)
    assert any("still waiting" in ln.message for ln in data.logs)
    assert any(c["name"] == "LabLockWaits" and c["status"] == "fail" for c in data.checks)


def _killed(argv: list[str], until: str, cond, timeout_s: float) -> None:
    """Run ``rcaeval lab ARGV`` and kill -9 its whole process group once ``cond`` holds."""
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "rcaeval", "lab", *argv],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_until(until, cond, timeout_s)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.skipif(bool(MISSING), reason="the lab's Debian packages are not installed "
                    f"(missing {', '.join(MISSING)}; run `make lab-deps` as root)")
def test_a_killed_up_or_inject_leaves_nothing_after_the_next_up_and_down(lab_dir):
    """kill -9 of `lab up` while it starts the stack, then of `lab inject` of the disk-full
    scenario once its size-limited volume is mounted and filling: the next `lab up` stops
    what the killed commands left, and after `lab down` no process, port or mount is left."""
    from rcaeval.lab._procs import read_procs
    from rcaeval.lab._volume import _mounts

    def mounted() -> list[Path]:
        return [m for m in _mounts() if m == lab_dir or lab_dir in m.parents]

    _killed(["up", "--dir", str(lab_dir)], "a component of `up` running",
            lambda: any(p.alive() for p in read_procs(lab_dir)), timeout_s=240)
    left = [p for p in read_procs(lab_dir) if p.alive()]
    assert left  # the kill left what `up` had started (each component has its own session)
    first = lab._stack.read_state(lab_dir) or {}
    _cli("up", "--dir", str(lab_dir))
    assert not any(p.alive() for p in left)
    _killed(["inject", "lab-disk-full", "--dir", str(lab_dir)], "the volume mounted",
            lambda: bool(mounted()), timeout_s=240)
    assert mounted()  # the killed inject left its volume mounted
    state = lab._stack.read_state(lab_dir)
    _cli("up", "--dir", str(lab_dir))
    assert mounted() == []  # the next `up` unmounted it
    last = lab._stack.read_state(lab_dir)
    _cli("down", "--dir", str(lab_dir))
    assert _pids_with(str(lab_dir)) == []
    ports = {*last["ports"].values(), *state["ports"].values(),
             *(first.get("ports") or {}).values()}
    assert not any(port_open(p) for p in ports)
    assert mounted() == []
    assert _cli("status", "--dir", str(lab_dir))["running"] is False
