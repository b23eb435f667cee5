"""The lab's process, disk and planner faults live (slow; the Debian packages of `make
lab-deps`): each scenario's fault fires its alert in the real Prometheus, shows its signal in
the real telemetry (the process exporter, the node exporter's filesystems, the supervisor's
counters, the database's statistics and logs), and its revert passes the recovery check.
Every wait is a bounded poll of a real condition."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from rcaeval import lab
from rcaeval.lab._http import poll
from rcaeval.lab._inject import instant_query
from rcaeval.lab._stack import read_state
from rcaeval.lab._volume import _mounts

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    bool(lab.missing_binaries()), reason="the lab's Debian packages are not installed "
    f"(missing {', '.join(lab.missing_binaries())}; run `make lab-deps` as root)")]


@pytest.fixture(scope="module")
def lab_dir():
    path = Path(tempfile.mkdtemp(prefix="rcaeval-lab-faults-", dir="/tmp"))
    lab.up(path)
    yield path
    lab.down(path)
    assert not [m for m in _mounts() if str(path) in str(m)]
    shutil.rmtree(path, ignore_errors=True)


def _value(state: dict, promql: str) -> float:
    got = instant_query(state, promql)
    return max((float(r["value"][1]) for r in got), default=float("nan")) if got else \
        float("nan")


def _log_has(path: Path, text: str) -> bool:
    return path.exists() and text in path.read_text(errors="replace")


def _cpu_hog(lab_dir: Path, state: dict, alert: dict) -> None:
    assert alert["labels"]["groupname"] == "stress-ng"
    assert _value(state, 'rate(namedprocess_namegroup_cpu_seconds_total{groupname="stress-ng"}'
                  '[20s])') > 0.25


def _disk_full(lab_dir: Path, state: dict, alert: dict) -> None:
    assert alert["labels"]["mountpoint"] == str(lab_dir / "disk")
    assert _value(state, 'node_filesystem_avail_bytes{mountpoint=~".+/disk"}') == 0
    poll("a write refused for space", lambda: _log_has(
        lab_dir / "logs" / "postgres.log", "No space left on device"), timeout_s=60)
    poll("a deposit failing for space", lambda: _log_has(
        lab_dir / "logs" / "service.jsonl", "could not extend file"), timeout_s=60)


def _crash_loop(lab_dir: Path, state: dict, alert: dict) -> None:
    assert _log_has(lab_dir / "logs" / "service.jsonl", "Address already in use")
    assert _value(state, 'lab_supervisor_restarts_total{unit="service"}') >= 2
    assert lab._stack.targets_up(state)["service"] == "down"


def _stale_stats(lab_dir: Path, state: dict, alert: dict) -> None:
    # the planner still counts the 200,000 shipped imports as rows changed since analyze
    assert _value(state, 'lab_table_planner_rows{relname="lab_orders"}') >= 390000
    assert _value(state, 'lab_table_n_mod_since_analyze{relname="lab_orders"}') >= 190000
    assert _value(state, 'rate(lab_table_seq_scan{relname="lab_orders"}[20s])') > 0.1


SIGNALS = {"lab-cpu-hog": _cpu_hog, "lab-disk-full": _disk_full,
           "lab-service-crash-loop": _crash_loop, "lab-stale-statistics": _stale_stats}


@pytest.mark.parametrize("scenario", sorted(SIGNALS))
def test_fault_alert_signal_revert_recovery(lab_dir, scenario):
    if scenario == "lab-disk-full" and os.geteuid() != 0:
        pytest.skip("the size-limited volume is a tmpfs mount, which needs root")
    sc = lab.load_scenario(scenario)
    state = read_state(lab_dir)
    lab.inject(sc, lab_dir)
    try:
        alert = lab.wait_alert(sc.expected_alert.name, lab_dir,
                               timeout_s=sc.expected_alert.within_s)
        SIGNALS[scenario](lab_dir, state, alert)
    finally:
        lab.revert(sc, lab_dir)
    assert lab.check_recovery(sc, lab_dir)["resolved"] is True
    assert read_state(lab_dir)["scenario"] is None
    assert not [m for m in _mounts() if str(lab_dir) in str(m)]
    status = lab.status(lab_dir)
    assert all(c["alive"] for c in status["components"].values()), status
