"""`rcaeval demo` end to end into a temporary store."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_demo_end_to_end(rcaeval, paths, db_query):
    r = rcaeval("demo", "--db", str(paths["db"]), "--out", str(paths["audits"]),
                "--no-progress", timeout=240)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "demo-thorough          13 pass, 0 fail, 0 invalid" in out
    # the example agent passes the cases its rules cover, the five alert cases included
    assert "demo-example-acp       7 pass, 6 fail, 0 invalid" in out
    assert "rec-crashed            0 pass, 0 fail, 13 invalid" in out
    assert "verdicts per behaviour x case_type" in out
    for case_type in ("compositional", "known", "novel", "tool_degraded"):
        assert case_type in out
    assert f"store:   {paths['db']}" in out
    assert "rcaeval explain rec-misdiagnosis tikv-panic-restart-001" in out
    runs = dict(db_query(paths["db"], "SELECT run_id, count(*) FROM eval_judgment GROUP BY ALL"))
    assert set(runs) == {"demo-thorough", "demo-example-acp", "rec-thorough", "rec-shallow",
                         "rec-misdiagnosis", "rec-fabricated_refs", "rec-wrong_scope",
                         "rec-crashed", "rec-thorough_zh"}
    assert {r: n for r, n in runs.items() if n != 13} == {"rec-thorough_zh": 2}
    for run_id in runs:
        assert (paths["audits"] / run_id / "report.txt").is_file()
    # the recorded behaviours' judgment.json went to --out, not into the shipped data
    assert (paths["audits"] / "rec-thorough" / "tikv-panic-restart-001" / "judgment.json"
            ).is_file()
