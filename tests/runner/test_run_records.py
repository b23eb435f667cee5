"""Run records in-process: run ids, agent hashes, progress counts, dropping a run."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime

import pytest
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


def test_expose_case_ids_is_part_of_the_agent_configuration():
    base = agent_config("replay:x", None, case_timeout_s=None, turn_timeout_s=600)
    assert "expose_case_ids" not in base  # a default configuration hashes as it always did
    exposed = agent_config("replay:x", None, case_timeout_s=None, turn_timeout_s=600,
                           expose_case_ids=True)
    assert exposed["expose_case_ids"] is True and agent_hash(exposed) != agent_hash(base)


@pytest.mark.slow
def test_run_records_real_ids_and_keys_opaque_references(tmp_path):
    import orjson
    import pytest

    from rcaeval.errors import InputError
    from rcaeval.runner import opaque_case_ref

    cid = "tikv-panic-restart-001"
    kw = {"audit_root": tmp_path / "a", "progress": False, "reports": False}
    with connect(tmp_path / "s.duckdb") as s:
        summary = run_suite(s, "smoke", "replay:thorough", run_id="o1", case_ids=[cid], **kw)
        assert summary.counts()["pass"] == 1  # replay finds its recording by the real id
        run_json = orjson.loads((tmp_path / "a" / "o1" / "run.json").read_bytes())
        key = run_json["case_ref_key"]
        assert re.fullmatch(r"[0-9a-f]{32}", key)
        assert "expose_case_ids" not in run_json["agent_config"]
        manifest = orjson.loads((tmp_path / "a" / "o1" / cid / "manifest.json").read_bytes())
        assert manifest["case_id"] == cid
        assert manifest["case_ref"] == opaque_case_ref("o1", cid, key) != cid
        assert s.sql("SELECT case_id FROM eval_case_runs").rows() == [(cid,)]
        with pytest.raises(InputError, match="--expose-case-ids added"):
            run_suite(s, "smoke", "replay:thorough", run_id="o1", resume=True,
                      expose_case_ids=True, **kw)

        exposed = run_suite(s, "smoke", "replay:thorough", run_id="o2", case_ids=[cid],
                            expose_case_ids=True, **kw)
        assert exposed.counts()["pass"] == 1
        run_json = orjson.loads((tmp_path / "a" / "o2" / "run.json").read_bytes())
        assert run_json["agent_config"]["expose_case_ids"] is True
        manifest = orjson.loads((tmp_path / "a" / "o2" / cid / "manifest.json").read_bytes())
        assert manifest["case_ref"] == cid and manifest["case_ids_exposed"] is True
        with pytest.raises(InputError, match="--expose-case-ids removed"):
            run_suite(s, "smoke", "replay:thorough", run_id="o2", resume=True, **kw)
        again = run_suite(s, "smoke", "replay:thorough", run_id="o2", resume=True,
                          expose_case_ids=True, **kw)
        assert again.reused == (cid,)
