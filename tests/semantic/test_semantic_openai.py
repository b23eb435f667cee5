"""The semantic shadow against a fake OpenAI-compatible server on 127.0.0.1: the two files,
every status, the blended second pass, the cache and N-sample majority."""

from __future__ import annotations

import json

import orjson
import pytest
from semantic_kit import (
    BLENDED_CASE,
    CASES,
    DET_CASE,
    FAMILY,
    KEY_ENV,
    RUN,
    contexts_of,
    files_of,
    judge_run,
    needs_sample,
)

import rcaeval.store as st
from rcaeval.semantic import SemanticConfig, SemanticContext, SemanticPacket
from rcaeval.semantic._flow import ask

pytestmark = needs_sample

BUCKETS_BUT_DIAGNOSIS = ("contract", "workflow", "execution_contract", "evidence_collection",
                         "critical_evidence", "evidence_routing")


def _cfg(server, **kw) -> SemanticConfig:
    base = {"model": "judge-model", "base_url": server.url, "api_key_env": KEY_ENV,
            "timeout_s": 5.0, "jobs": 2}
    base.update(kw)
    return SemanticConfig.from_env("openai", env={KEY_ENV: "sk-test"}, **base)


def test_provider_none_writes_both_files_and_changes_nothing(baseline):
    plain, none, store = baseline
    for case in CASES:
        files = files_of(none, case)
        assert files["judgment.json"] == files_of(plain, case)["judgment.json"]
        assert set(files) == {"judgment.json", "semantic_context_v1.json",
                              "semantic_packet_v1.json"}
        assert set(files_of(plain, case)) == {"judgment.json"}
        ctx = SemanticContext.model_validate_json(files["semantic_context_v1.json"])
        assert ctx.input.ground_truth.family == FAMILY[case]
        assert ctx.input.answer and ctx.input.checks
        pkt = SemanticPacket.model_validate_json(files["semantic_packet_v1.json"])
        assert pkt.status == "missing_provider" and pkt.checks == [] and not pkt.second_pass
        assert "no semantic provider" in pkt.detail
    rows = store.con.execute("SELECT status, count(*), bool_or(second_pass) FROM eval_semantic "
                             "GROUP BY status").fetchall()
    assert rows == [("missing_provider", 4, False)]
    assert store.con.execute("SELECT count(*) FROM eval_judgment_blended").fetchall() == [(0,)]


def test_ok_blended_second_pass_changes_only_diagnosis_and_cache(fake_server, sem_audit,
                                                                 baseline, tmp_path):
    plain = baseline[0]
    s = st.connect(":memory:")
    out = tmp_path / "sem"
    judge_run(sem_audit, out, _cfg(fake_server), store=s)
    assert len(fake_server.requests) == len(CASES)

    # the deterministic primary judgment is byte-identical with and without the shadow
    for case in CASES:
        assert files_of(out, case)["judgment.json"] == files_of(plain, case)["judgment.json"]
    files = files_of(out, BLENDED_CASE)
    det = orjson.loads(files["judgment.json"])
    assert det["verdict"] == "fail" and det["subtype"] == "diagnosis_fail"
    stored = s.con.execute("SELECT verdict, judgment_json FROM eval_judgment WHERE case_id = ?",
                           [BLENDED_CASE]).fetchall()[0]
    assert stored[0] == "fail" and stored[1].encode() == files["judgment.json"]

    ctx = SemanticContext.model_validate_json(files["semantic_context_v1.json"])
    pkt = SemanticPacket.model_validate_json(files["semantic_packet_v1.json"])
    assert ctx.diagnosis_mode == "blended"
    assert pkt.status == "ok" and pkt.shadow_available and pkt.second_pass
    assert pkt.settings.model == "judge-model" and pkt.settings.temperature == 0.0
    assert pkt.settings.seed == 0 and pkt.settings.samples == 1
    assert pkt.settings.prompt_version == "v1" and pkt.settings.response_format == "json_schema"
    assert pkt.usage.input_tokens == 1000 and pkt.usage.requests == 1
    assert [c.check_id for c in pkt.checks] == [c.check_id for c in ctx.input.checks]
    assert any(c.deterministic == "fail" and c.verdict == "pass" for c in pkt.checks)

    # the second pass changed the diagnosis bucket and nothing else
    blended = orjson.loads(files["judgment_blended.json"])
    assert blended["verdict"] == "pass" and blended["subtype"] == "diagnosis_pass"
    by = {b["bucket"]: b for b in blended["buckets"]}
    det_by = {b["bucket"]: b for b in det["buckets"]}
    for b in BUCKETS_BUT_DIAGNOSIS:
        assert by[b] == det_by[b]
    assert blended["facts"] == det["facts"]
    assert by["diagnosis"]["status"] == "pass" and det_by["diagnosis"]["status"] == "fail"
    assert "semantic shadow decided" in by["diagnosis"]["reason"]
    flipped = [c for c in by["diagnosis"]["checks"] if c["reason"].startswith("semantic pass")]
    assert flipped and flipped[0]["evidence"]["file"] == "semantic_packet_v1.json"
    row = s.con.execute("SELECT verdict, diagnosis_status, judgment_json FROM "
                        "eval_judgment_blended WHERE case_id = ?", [BLENDED_CASE]).fetchall()
    assert row[0][:2] == ("pass", "pass") and row[0][2].encode() == files["judgment_blended.json"]

    # deterministic_only cases: shadow recorded, no second pass
    for case in CASES[1:]:
        other = files_of(out, case)
        assert "judgment_blended.json" not in other
        pkt = SemanticPacket.model_validate_json(other["semantic_packet_v1.json"])
        assert pkt.status == "ok" and not pkt.second_pass
    assert s.con.execute("SELECT count(*) FROM eval_judgment_blended").fetchall() == [(1,)]

    # what the model was asked: structured output, temperature 0, seed, key from the env
    body = fake_server.requests[0]
    assert body["_path"] == "/v1/chat/completions" and body["_auth"] == "Bearer sk-test"
    assert body["temperature"] == 0.0 and body["seed"] == 0 and body["model"] == "judge-model"
    assert body["response_format"]["type"] == "json_schema"

    # re-judging the stored run: served from the cache, same bytes, no request
    again = tmp_path / "again"
    judge_run(sem_audit, again, _cfg(fake_server), store=s)
    assert len(fake_server.requests) == len(CASES)
    for case in CASES:
        assert files_of(again, case) == files_of(out, case)
    hits = s.con.execute("SELECT count(*) FILTER (WHERE cache_hit), count(*) FROM eval_semantic"
                         ).fetchall()[0]
    assert hits == (len(CASES), len(CASES))


def test_failure_statuses_leave_deterministic_score(fake_server, sem_audit, baseline, tmp_path):
    plain = baseline[0]
    fake_server.modes = {"kill_query_chain": "error", "storage_node_panic": "hang",
                         "cpu_hotspot": "malformed"}
    out = tmp_path / "sem"
    s = judge_run(sem_audit, out, _cfg(fake_server, timeout_s=0.5, jobs=4))
    expect = {BLENDED_CASE: ("provider_failure", "HTTP 500"),
              DET_CASE: ("timeout", "within 0.5s"),
              "cpu-hotspot-region-001": ("provider_failure", "not JSON"),
              "disk-full-tikv-001": ("ok", None)}
    for case, (status, detail) in expect.items():
        files = files_of(out, case)
        assert files["judgment.json"] == files_of(plain, case)["judgment.json"]
        assert "judgment_blended.json" not in files
        SemanticContext.model_validate_json(files["semantic_context_v1.json"])
        pkt = SemanticPacket.model_validate_json(files["semantic_packet_v1.json"])
        assert pkt.status == status, case
        if detail:
            assert detail in pkt.detail
            assert not pkt.shadow_available and pkt.checks == [] and pkt.cache_key
    rows = dict(s.con.execute("SELECT case_id, status FROM eval_semantic").fetchall())
    assert rows == {c: st_ for c, (st_, _) in expect.items()}
    assert s.con.execute("SELECT count(*) FROM eval_judgment_blended").fetchall() == [(0,)]
    assert s.con.execute("SELECT count(*) FROM semantic_cache").fetchall() == [(1,)]


def test_missing_key_is_missing_provider(fake_server, sem_audit, baseline, tmp_path):
    cfg = SemanticConfig.from_env("openai", env={}, model="m", base_url=fake_server.url,
                                  api_key_env=KEY_ENV)
    out = tmp_path / "nokey"
    judge_run(sem_audit, out, cfg)
    for case in CASES:
        files = files_of(out, case)
        assert files["judgment.json"] == files_of(baseline[0], case)["judgment.json"]
        pkt = json.loads(files["semantic_packet_v1.json"])
        assert pkt["status"] == "missing_provider" and KEY_ENV in pkt["detail"]
        assert "judgment_blended.json" not in files
    assert fake_server.requests == []


def test_failures_are_not_cached(fake_server, baseline):
    con = st.connect(":memory:").con
    fake_server.mode = "error"
    for packet, _ in ask(con, contexts_of(baseline), _cfg(fake_server)).values():
        assert packet["status"] == "provider_failure"
    fake_server.mode = "ok"
    for packet, hit in ask(con, contexts_of(baseline), _cfg(fake_server)).values():
        assert packet["status"] == "ok" and not hit
    assert len(fake_server.requests) == 4
    for _, hit in ask(con, contexts_of(baseline), _cfg(fake_server)).values():
        assert hit
    assert len(fake_server.requests) == 4


def test_unsupported_provider_and_missing_model(baseline):
    contexts = contexts_of(baseline)
    con = st.connect(":memory:").con
    for cfg, status, detail in (
        (SemanticConfig(provider="anthropic"), "unsupported_provider", "'anthropic'"),
        (SemanticConfig(provider="openai", env={"OPENAI_API_KEY": "k"}), "missing_provider",
         "needs a model"),
        (SemanticConfig(provider="command"), "missing_provider", "command line"),
    ):
        for packet, hit in ask(con, contexts, cfg).values():
            assert (packet["status"], hit) == (status, False) and detail in packet["detail"]
            SemanticPacket.model_validate(packet)


def test_samples_majority_and_spread(fake_server, baseline):
    def policy(ids, body, n):
        # seeds 30, 31, 32: the first check fails on seed 31 only; the second passes on 32 only
        out = dict.fromkeys(ids, "pass")
        out[ids[0]] = "fail" if body["seed"] == 31 else "pass"
        out[ids[1]] = "pass" if body["seed"] == 32 else "fail"
        return out

    fake_server.policy = policy
    con = st.connect(":memory:").con
    answered = ask(con, contexts_of(baseline), _cfg(fake_server, samples=3, seed=30))
    assert len(fake_server.requests) == 6
    assert sorted(b["seed"] for b in fake_server.requests) == [30, 30, 31, 31, 32, 32]
    pkt = SemanticPacket.model_validate(answered[(RUN, BLENDED_CASE)][0])
    assert pkt.settings.samples == 3 and pkt.usage.requests == 3
    assert pkt.usage.input_tokens == 3000 and pkt.usage.output_tokens == 150
    c0, c1, c2 = pkt.checks[:3]
    assert (c0.verdict, c0.votes.pass_, c0.votes.fail, c0.samples) == (
        "pass", 2, 1, ["pass", "fail", "pass"])
    assert c0.spread == pytest.approx(0.3333) and c0.rationale == "model says pass"
    assert (c1.verdict, c1.votes.pass_, c1.votes.fail, c1.spread) == ("fail", 1, 2, 0.3333)
    assert (c2.verdict, c2.spread) == ("pass", 0.0)
    # a different sample count is a different question; the same one is cached
    ask(con, contexts_of(baseline), _cfg(fake_server, samples=3, seed=30))
    assert len(fake_server.requests) == 6
    ask(con, contexts_of(baseline), _cfg(fake_server, samples=1, seed=30))
    assert len(fake_server.requests) == 8
    ask(con, contexts_of(baseline), _cfg(fake_server, samples=1, seed=30, model="other"))
    assert len(fake_server.requests) == 10


def test_even_samples_tie(fake_server, baseline):
    fake_server.policy = lambda ids, body, n: dict.fromkeys(
        ids, "pass" if body["seed"] % 2 == 0 else "fail")
    con = st.connect(":memory:").con
    answered = ask(con, contexts_of(baseline), _cfg(fake_server, samples=2))
    pkt = SemanticPacket.model_validate(answered[(RUN, BLENDED_CASE)][0])
    assert pkt.status == "ok"
    assert all(c.verdict == "tie" and c.spread == 0.5 and c.agrees is None for c in pkt.checks)


def test_answer_in_a_code_fence_is_read(fake_server, baseline):
    fake_server.mode = "fenced"
    answered = ask(st.connect(":memory:").con, contexts_of(baseline), _cfg(fake_server))
    for packet, _ in answered.values():
        assert packet["status"] == "ok"
        assert {c["verdict"] for c in packet["checks"]} == {"fail"}


def test_json_schema_rejected_falls_back_to_json_object(fake_server, baseline):
    fake_server.mode = "reject_schema"
    con = st.connect(":memory:").con
    answered = ask(con, contexts_of(baseline), _cfg(fake_server, jobs=1))
    for packet, _ in answered.values():
        assert packet["status"] == "ok"
        assert packet["settings"]["response_format"] == "json_object"
    kinds = [b["response_format"]["type"] for b in fake_server.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]


@pytest.mark.slow
def test_samples_stored_and_tie_keeps_deterministic(fake_server, sem_audit, tmp_path):
    fake_server.policy = lambda ids, body, n: dict.fromkeys(
        ids, "pass" if body["seed"] % 2 == 0 else "fail")
    out = tmp_path / "sem"
    s = judge_run(sem_audit, out, _cfg(fake_server, samples=2, jobs=1))
    files = files_of(out, BLENDED_CASE)
    det = orjson.loads(files["judgment.json"])
    blended = orjson.loads(files["judgment_blended.json"])
    assert (blended["verdict"], blended["score"]) == (det["verdict"], det["score"])
    diag = next(b for b in blended["buckets"] if b["bucket"] == "diagnosis")
    assert all("deterministic verdict kept" in c["reason"] for c in diag["checks"])
    rows = s.con.execute("SELECT DISTINCT sem_passed, votes_pass, votes_fail, spread "
                         "FROM eval_semantic_check").fetchall()
    assert rows == [(None, 1, 1, 0.5)]
