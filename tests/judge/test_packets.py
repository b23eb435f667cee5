"""Judgment packets, writing the eval_* tables, re-judging, rule reloading, explain."""

from __future__ import annotations

import orjson
import pytest
from judge_kit import CASE, RUN, healthy_rows, judge_spec, make_db, setup_case
from rich.console import Console

from rcaeval.judge import JUDGE_VERSION, explain_tree, judge_loaded, load_judgment, run_judge_sql
from rcaeval.judge._packet import build_packets


def _judge_twice(tmp_path):
    outs = []
    for i in range(2):
        con = make_db()
        setup_case(con, healthy_rows())
        frame = judge_loaded(con, out_dir=tmp_path / f"out{i}")
        stored = con.execute("SELECT judgment_json FROM eval_judgment").fetchall()[0][0]
        outs.append((frame, (tmp_path / f"out{i}" / RUN / CASE / "judgment.json").read_bytes(),
                     stored, con))
    return outs


@pytest.mark.slow
def test_packet_is_byte_identical_on_rejudge_and_stored_verbatim(tmp_path):
    (f1, file1, stored1, con1), (f2, file2, stored2, _) = _judge_twice(tmp_path)
    assert file1 == file2
    assert stored1.encode() == file1 == stored2.encode()
    assert f1.equals(f2)
    # re-judging on the same connection replaces rows instead of adding to them
    tables = ("eval_judgment", "eval_bucket", "eval_check", "eval_fact")
    before = {t: con1.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in tables}
    judge_loaded(con1, out_dir=tmp_path / "out0")
    after = {t: con1.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in tables}
    assert before == after and before["eval_judgment"] == 1 and before["eval_fact"] > 40
    assert (tmp_path / "out0" / RUN / CASE / "judgment.json").read_bytes() == file1


def test_packet_layout(db):
    setup_case(db, healthy_rows())
    frames = run_judge_sql(db)
    (data,) = build_packets(frames, judge_version=JUDGE_VERSION).values()
    assert data.endswith(b"\n")
    packet = orjson.loads(data)
    assert list(packet)[:12] == [
        "judgment_version", "judge_version", "judge_sql_digest", "run_id", "case_id",
        "case_type", "rules_hash", "scoring_profile", "verdict", "subtype", "precedence_step",
        "score"]
    assert packet["judge_version"] == JUDGE_VERSION
    assert [b["bucket"] for b in packet["buckets"]] == [
        "contract", "workflow", "execution_contract", "evidence_collection",
        "critical_evidence", "evidence_routing", "diagnosis"]
    diag = packet["buckets"][-1]
    assert [c["check_id"] for c in diag["checks"]] == [
        "names_storage_panic", "no_network_blame", "explains_restarts"]
    assert [c["kind"] for c in diag["checks"]] == ["hard", "hard", "supporting"]
    ce = packet["buckets"][4]["checks"][0]
    assert ce["evidence"] == {"file": "evidences/logs.json", "path": None, "line": 1,
                              "excerpt": "[panic] corrupted raft log entry at index 4411"}
    assert packet["facts"]["detector.asserts_storage_panic"] is True
    assert packet["bundle"] == {"status": "resolved", "reason": "one bundle at the case dir",
                                "dir": ".", "workspace_id": "ws-1"}
    assert "judged_at" not in packet and "generated_at" not in packet


def test_eval_tables_hold_checks_with_evidence(db):
    setup_case(db, healthy_rows())
    judge_loaded(db, write_files=False)
    row = db.execute(
        "SELECT passed, evidence_file, evidence_line FROM eval_check "
        "WHERE bucket = 'critical_evidence' AND check_id = 'panic_in_logs'").fetchall()
    assert row == [(True, "evidences/logs.json", 1)]
    buckets = db.execute("SELECT count(*), sum(score) FROM eval_bucket").fetchall()[0]
    assert buckets == (7, 100.0)
    j = db.execute("SELECT verdict, judge_version, rules_hash IS NOT NULL, judged_at IS NOT NULL"
                   " FROM eval_judgment").fetchall()
    assert j == [("pass", JUDGE_VERSION, True, True)]


def test_new_rules_hash_coexists_and_case_meta_picks_the_version(db):
    setup_case(db, healthy_rows())
    first = db.execute("SELECT DISTINCT rules_hash FROM case_meta").fetchall()

    def mutate(raw):
        raw["judge"]["critical_evidence"]["checks"][0]["all_of"][0]["keywords"] = ["oom"]

    from judge_kit import CASE_DOC

    from rcaeval.judge import CaseRules, register_cases

    register_cases(db, [(RUN, CASE)], {CASE: CaseRules(CASE, CASE_DOC, judge_spec(mutate))})
    second = db.execute("SELECT DISTINCT rules_hash FROM case_meta").fetchall()
    assert first != second
    hashes = db.execute("SELECT count(DISTINCT rules_hash) FROM rule_check").fetchall()[0][0]
    assert hashes == 2
    frames = run_judge_sql(db)
    assert frames.judgments["subtype"].to_list() == ["critical_evidence_partial"]


def test_explain_tree_renders_every_bucket_and_evidence(db):
    setup_case(db, healthy_rows())
    judge_loaded(db, write_files=False)
    packet = load_judgment(db, RUN, CASE)
    console = Console(record=True, width=200)
    console.print(explain_tree(packet))
    text = console.export_text()
    assert "pass (diagnosis_pass)" in text
    for name in ("contract", "workflow", "critical_evidence", "diagnosis"):
        assert f"{name}: pass" in text
    assert "evidences/logs.json:1" in text
