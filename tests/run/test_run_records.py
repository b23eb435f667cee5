"""Run records in-process: run ids, agent hashes, progress counts, dropping a run."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime

from rich.console import Console

from rcaeval.runner import RunProgress, agent_config, agent_hash, drop_run, new_run_id, run_suite
from rcaeval.runner._progress import outcome_of
from rcaeval.store import connect


def test_run_id_format():
    rid = new_run_id("smoke", datetime(2026, 10, 3, 14, 5, 9, tzinfo=UTC))
    assert re.fullmatch(r"smoke-20261003T140509-[0-9a-f]{6}", rid)
    assert new_run_id("smoke") != new_run_id("smoke")


def test_agent_hash_is_canonical_and_hides_secrets():
    a = agent_config("replay:x", {"B": "s3cr3t-value", "A": None}, case_timeout_s=None,
                     turn_timeout_s=600)
    b = agent_config("replay:x", {"A": None, "B": "s3cr3t-value"}, case_timeout_s=None,
                     turn_timeout_s=600.0)
    assert agent_hash(a) == agent_hash(b)
    assert a["env"]["A"] == "<inherited>" and "s3cr3t" not in a["env"]["B"]
    c = agent_config("replay:x", {"A": None, "B": "3"}, case_timeout_s=None, turn_timeout_s=600)
    assert agent_hash(c) != agent_hash(a)
    d = agent_config("replay:y", {"A": None, "B": "s3cr3t-value"}, case_timeout_s=None,
                     turn_timeout_s=600)
    assert agent_hash(d) != agent_hash(a)


def test_progress_counts_and_bar():
    assert outcome_of("judged", "pass") == "pass"
    assert outcome_of("timed_out", "invalid") == "timed_out"
    assert outcome_of("errored", None) == "errored"
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120)
    with RunProgress(3, title="smoke r1", done=["pass"], console=console) as bar:
        assert bar.enabled
        bar.record("fail")
        bar.record("timed_out")
    text = buf.getvalue()
    assert "3/3" in text and "pass 1" in text and "t/o 1" in text
    quiet = RunProgress(1, title="x", console=Console(file=io.StringIO()))
    assert not quiet.enabled  # not a terminal


def test_drop_run_removes_rows_and_audits(tmp_path):
    with connect(tmp_path / "s.duckdb") as s:
        summary = run_suite(s, "smoke", "replay:crashed", run_id="d1",
                            case_ids=["tikv-panic-restart-001"], audit_root=tmp_path / "a",
                            progress=False, reports=False)
        assert [c.verdict for c in summary.cases] == ["invalid"]
        assert summary.cases[0].status == "judged"
        assert s.sql("SELECT count(*) AS n FROM raw_file WHERE run_id = 'd1'")["n"][0] > 0
        drop_run(s, "d1", tmp_path / "a")
        for table in ("eval_runs", "eval_case_runs", "eval_judgment", "eval_check", "raw_file",
                      "case_meta"):
            assert s.sql(f"SELECT count(*) AS n FROM {table}")["n"][0] == 0, table
        assert not (tmp_path / "a" / "d1").exists()
