"""`rcaeval demo` end to end into a temporary store."""

from __future__ import annotations

import re

import pytest


@pytest.mark.slow
def test_demo_end_to_end(rcaeval, paths, db_query):
    r = rcaeval("demo", "--db", str(paths["db"]), "--out", str(paths["audits"]),
                "--no-progress", timeout=480)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    # the result: per run what its agent does, what it got, what it is expected to get
    # (data/recorded/EXPECTED.csv), and whether it did
    assert "result: what each run got, and what it is expected to get" in out
    assert re.search(r"✓\s+demo-thorough\s+13 pass\s+13 pass", out), out
    assert re.search(r"✓\s+rec-crashed\s+13 invalid\s+13 invalid: bundle_missing", out), out
    assert re.search(r"✓\s+demo-example-acp\s+\d+ pass", out), out
    assert "✗" not in out and "NOT as expected" not in out
    assert "all 9 runs got what they are expected to" in out
    assert len(out.splitlines()) < 60
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
