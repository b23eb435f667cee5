"""`rcaeval run --baseline-diff`: exit 4 when the run regresses against the suite's baseline;
no baseline is a warning, not a failure."""

from __future__ import annotations

import pytest

from rcaeval.report import promote_baseline
from rcaeval.store import connect


@pytest.mark.slow
def test_baseline_diff_exit_codes(rcaeval, paths, make_registry):
    reg = make_registry(["tikv-panic-restart-001", "disk-full-tikv-001"])
    common = ["--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
              "--audit-root", str(paths["audits"]), "--baseline-diff", "--no-progress"]
    r = rcaeval("run", *common, "--agent", "replay:thorough", "--run-id", "good")
    assert r.returncode == 0, r.stderr
    assert "no baseline comparison" in r.stderr
    with connect(paths["db"]) as s:
        promote_baseline(s, "good", reg, paths["audits"])
    r = rcaeval("run", *common, "--agent", "replay:shallow", "--run-id", "worse")
    assert r.returncode == 4, r.stdout + r.stderr
    assert "REGRESSION" in (paths["audits"] / "worse" / "report.txt").read_text()
