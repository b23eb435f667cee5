"""`rcaeval lab selftest` live (slow; the Debian packages of `make lab-deps`): the oracle
investigates two live scenarios over MCP and passes, each recovers; the wrong and the lazy
agent do not pass; and the scenario captured during the oracle's run, proven offline through
the runner and the recorded-case tools (`rcaeval case prove`), gets the same verdict as live."""

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

LIVE = ["lab-stale-statistics", "lab-service-crash-loop"]


@pytest.fixture(scope="module")
def lab_dir():
    path = Path(tempfile.mkdtemp(prefix="rcaeval-lab-selftest-", dir="/tmp"))
    yield path
    lab.down(path)
    shutil.rmtree(path, ignore_errors=True)


def test_oracle_passes_live_and_the_capture_proves_offline(lab_dir, tmp_path, capsys):
    out = tmp_path / "oracle"
    code = main(["lab", "selftest", *LIVE, "--dir", str(lab_dir), "--out", str(out),
                 "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    rows = {r["scenario"]: r for r in report["scenarios"]}
    assert list(rows) == LIVE
    for sc_id, row in rows.items():
        sc = lab.load_scenario(sc_id)
        assert row["verdict"] == "pass", row
        assert row["recovery"] == "resolved"
        assert row["alert_after_s"] <= sc.expected_alert.within_s
        audit = Path(row["bundle"])
        assert (audit / "manifest.json").is_file()
        assert (audit / "evidences" / "metrics.json").is_file()
    assert lab.status(lab_dir)["running"] is False  # taken down afterwards

    # the captured case, judged offline: the runner and the recorded-case tools, three agents
    from rcaeval.prove import prove

    proof = prove(out / "registry", case_ids=["lab-stale-statistics"], out=tmp_path / "proof")
    (row,) = proof.rows
    assert row.oracle == rows["lab-stale-statistics"]["verdict"]
    assert row.status == "proven", row.reasons


@pytest.mark.parametrize("agent", ["wrong", "lazy"])
def test_wrong_and_lazy_agents_do_not_pass_live(lab_dir, tmp_path, agent):
    report = lab.selftest(lab_dir, scenarios=["lab-stale-statistics"], role=agent,
                          out=tmp_path / agent)
    (row,) = report.rows
    assert row.error is None and row.verdict != "pass", row
    assert report.ok  # for these agents a pass would be the failure
    if agent == "wrong":
        assert "avoids_missing_index_misdiagnosis" in (row.verdict_reason or "") or \
            row.verdict in ("fail", "partial"), row
