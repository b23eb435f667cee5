"""`rcaeval lab selftest` live (slow; the Debian packages of `make lab-deps`): the lab suite
through the ordinary runner with the reference agents of `rcaeval.examples.lab_agent`. The
oracle passes and resolves two live scenarios (its rows are the run store's mitigation rows,
the kept case has its own capture window, and the recorded answer judged offline against it
gets the live verdict); the lazy agent neither passes nor resolves one."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from rcaeval import lab
from rcaeval.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    bool(lab.missing_binaries()), reason="the lab's Debian packages are not installed "
    f"(missing {', '.join(lab.missing_binaries())}; run `make lab-deps` as root)")]

LIVE = ["lab-connection-exhaustion", "lab-false-alarm-exporter-stopped"]


@pytest.fixture(scope="module")
def lab_dir():
    # under /tmp: reachable by the unprivileged lab user when run as root
    path = Path(tempfile.mkdtemp(prefix="rcaeval-lab-selftest-", dir="/tmp"))
    yield path
    lab.down(path)
    shutil.rmtree(path, ignore_errors=True)


def test_oracle_passes_and_resolves_live_from_the_runs_store(lab_dir, tmp_path, capsys):
    from rcaeval.authoring import try_answer
    from rcaeval.lab._suite import mitigation_rows, run_case_id
    from rcaeval.registry import load_case
    from rcaeval.store import connect

    out = tmp_path / "oracle"
    code = main(["lab", "selftest", *LIVE, "--dir", str(lab_dir), "--out", str(out),
                 "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["ok"] and report["behaviour"] == "oracle"
    rows = {r["scenario"]: r for r in report["scenarios"]}
    assert list(rows) == LIVE
    assert lab.status(lab_dir)["running"] is False  # taken down afterwards
    store = connect(out / "store.duckdb")
    try:
        stored = {r["case_id"]: r for r in mitigation_rows(store.con, report["run_id"])}
    finally:
        store.close()
    assert set(stored) == set(LIVE)
    for sc_id, row in rows.items():
        sc = lab.load_scenario(sc_id)
        assert row["status"] == "judged" and row["error"] is None, row
        assert row["verdict"] == "pass" and row["mitigation"] == "resolved", row
        assert row["actions_applied"] == 1 and row["unsafe_attempts"] == 0
        assert 0 < row["alert_after_s"] <= sc.expected_alert.within_s
        assert row["time_to_mitigation_s"] >= row["time_to_diagnosis_s"]
        assert row["wall_s"] > row["alert_after_s"]
        for key in ("alert", "alert_after_s", "verdict", "mitigation", "time_to_diagnosis_s",
                    "time_to_mitigation_s", "actions_applied", "unsafe_attempts"):
            assert row[key] == stored[sc_id][key], key  # the row is the store's

    # the kept case: its own capture window, and the live answer judged offline against it
    sc_id = LIVE[0]
    audit = Path(rows[sc_id]["audit"])
    kept = run_case_id(sc_id, report["run_id"])
    case = load_case(out / "registry", kept)
    window = case.case.time_window
    whole = load_case(out / "registry", sc_id).case.time_window  # the run's window
    assert whole.start <= window.start < window.end < whole.end
    assert (window.end - window.start).total_seconds() < rows[sc_id]["wall_s"] + 60
    answer = (audit / "output.txt").read_text(encoding="utf-8")
    offline = try_answer(out / "registry", kept, answer, bundle=audit)
    assert offline.verdict == rows[sc_id]["verdict"], offline.verdict_reason


def test_lazy_agent_neither_passes_nor_resolves_live(lab_dir, tmp_path):
    report = lab.selftest(lab_dir, scenarios=["lab-lock-contention"], behaviour="lazy",
                          out=tmp_path / "lazy")
    (row,) = report.rows
    assert row.status == "judged" and row.error is None, row
    assert row.verdict != "pass" and row.mitigation == "not_attempted", row
    assert row.actions_applied == 0 and row.time_to_mitigation_s is None
    assert report.ok  # for the lazy agent a pass or a resolution would be the failure
    assert lab.status(lab_dir)["running"] is False
