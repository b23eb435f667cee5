"""The soft events check on a recorded bundle: a run that attempted the events query but
persisted no events artifact fails only attempted_events_collection_persisted. That check
is soft by default, a score deduction: the run keeps verdict pass at 98.75 (it used to be
verdict fail through evidence_collection partial)."""

from __future__ import annotations

import json
import shutil

import pytest

from rcaeval._paths import data_dir

CASE = "tooldeg-events-api-io-stall-001"
SAMPLE = data_dir() / "recorded" / "rec-thorough" / CASE


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="sample data not generated yet")
def test_failing_only_the_soft_events_check_deducts_but_passes(tmp_path):
    from rich.console import Console

    import rcaeval.store as st
    from rcaeval.judge import explain_tree, judge_audit

    run = tmp_path / "rec" / "no-events" / CASE
    shutil.copytree(SAMPLE, run)
    (run / "evidences" / "events.json").unlink()

    s = st.connect(":memory:")
    try:
        frame = judge_audit(s, tmp_path / "rec", data_dir() / "registry",
                            out_dir=tmp_path / "out", workers=1)
        failed = s.sql("SELECT bucket, check_id FROM eval_check WHERE NOT passed").rows()
        ec = s.sql("SELECT status, score, reason FROM eval_bucket "
                   "WHERE bucket = 'evidence_collection'").rows()[0]
        console = Console(record=True, width=200)
    finally:
        s.close()
    run_id = frame.row(0, named=True)["run_id"]
    packet = json.loads((tmp_path / "out" / run_id / CASE / "judgment.json").read_text())
    console.print(explain_tree(packet))
    text = console.export_text()
    assert failed == [("evidence_collection", "attempted_events_collection_persisted")]
    soft = [c["soft"] for b in packet["buckets"] for c in b["checks"]
            if c["check_id"] == "attempted_events_collection_persisted"]
    assert soft == [True]
    row = frame.row(0, named=True)
    assert (row["verdict"], row["subtype"], row["score"]) == ("pass", "diagnosis_pass", 98.75)
    assert ec[0] == "pass" and ec[1] == pytest.approx(3.75)
    assert ec[2].endswith("soft deduction: attempted_events_collection_persisted")
    line = next(ln for ln in text.splitlines()
                if "attempted_events_collection_persisted" in ln and "✗" in ln)
    assert "soft" in line, line
