"""Layer (b): output detectors with negation and scope, against the seed's plain keyword
matching. Every case is judged in ONE set-based pass (one run per case)."""

from __future__ import annotations

import re

import pytest
from judge_kit import CASE, check, fact, healthy_rows, judge_rows, judge_spec, verdict

PANIC = r"tikv\S*\s+(?:node\s+|store\s+)?(?:panic|crash)"

# run_id -> (sentences as (section, kind, text), expected asserts_storage_panic)
CASES: dict[str, tuple[list[tuple[str, str, str]], bool]] = {
    "plain-root-cause": ([("Root cause", "root_cause",
                           "TiKV store panic on store 5 (corrupted raft entry).")], True),
    "post-negation": ([("Root cause", "root_cause", "The root cause is a network partition;"),
                       ("Root cause", "root_cause", "the TiKV panic was ruled out.")], False),
    "not-caused-by": ([("", "other", "The latency was not caused by a TiKV panic.")], False),
    "is-not-the-cause": ([("Diagnosis", "root_cause",
                           "A tikv-2 crash is not the root cause here.")], False),
    "no-evidence": ([("Conclusion", "root_cause",
                      "There is no evidence of a TiKV panic in any log.")], False),
    "alternatives-list": ([("Root cause", "root_cause", "Disk full on tikv-3."),
                           ("Alternatives considered", "alternatives", "TiKV panic.")], False),
    "mention-without-cause": ([("Investigation", "other",
                                "I grepped the logs for tikv panic signatures.")], False),
    "causal-cue-other-section": ([("Findings", "other",
                                   "The outage was triggered by a TiKV node crash.")], True),
    "contrast": ([("Root cause", "root_cause",
                   "It was not the network but a TiKV panic that caused it.")], True),
    "ruled-out-then-identified": ([("Summary", "root_cause",
                                    "We ruled out network partition and identified a TiKV "
                                    "panic as the cause.")], True),
    "negated-and-affirmed": ([("Root cause", "root_cause",
                               "Not a TiKV crash at first sight; but the TiKV panic on store 5 "
                               "is the root cause.")], True),
    "chinese-affirmed": ([("根因", "root_cause", "根因是 TiKV panic 导致的重启。")], True),
    "chinese-negated": ([("结论", "root_cause", "TiKV panic 不是根因。")], False),
    # the detector grammar: causal verbs, inline labels, hedges, roles, weak consequences
    "stems-from": ([("", "other", "The latency stems from a TiKV crash on store 5.")], True),
    "inline-verdict": ([("Timeline", "other", "Verdict: tikv-2 crash, store 5 restarted.")],
                       True),
    "inline-ruled-out": ([("Summary", "root_cause", "Ruled out: tikv-2 crash.")], False),
    "hedged": ([("Root cause", "root_cause", "It might be a TiKV crash on store 5.")], False),
    "or-cannot-tell": ([("Root cause", "root_cause",
                         "A TiKV crash or a disk stall, we cannot tell which.")], False),
    "symptom": ([("", "other", "The TiKV crash was merely a symptom; disk full caused it.")],
                False),
    "contributing-heading": ([("Contributing factors", "other",
                               "A tikv-2 crash caused some retries.")], False),
    "weak-consequence-alone": ([("", "other", "The latency was caused by a TiKV crash.")],
                               True),
    "chinese-hedged": ([("根因", "root_cause", "也许是 TiKV panic 导致的重启。")], False),
    "chinese-label": ([("", "other", "总结：TiKV panic 后反复重启。")], True),
    "followup-assert": ([("Root cause", "root_cause", "Still investigating."),
                         ("followup-1", "followup",
                          "The root cause was a TiKV store panic.")], True),
}


def _rows_for(run_id: str, sentences: list[tuple[str, str, str]]):
    rows = healthy_rows(run_id)
    out = []
    sec_idx: dict[str, int] = {}
    for i, (section, kind, text) in enumerate(sentences):
        s = sec_idx.setdefault(section, len(sec_idx))
        out.append({"run_id": run_id, "case_id": CASE, "section_idx": s, "section": section,
                    "section_kind": kind, "sentence_idx": i, "line_no": i + 1, "text": text})
    rows["raw_output_sentence"] = out
    return rows


@pytest.fixture(scope="module")
def frames():
    from judge_kit import make_db

    merged: dict[str, list] = {}
    for run_id, (sentences, _) in CASES.items():
        for table, items in _rows_for(run_id, sentences).items():
            merged.setdefault(table, []).extend(items)
    con = make_db()
    out = judge_rows(con, merged)
    yield out
    con.close()


@pytest.mark.parametrize("run_id", sorted(CASES))
def test_asserts_storage_panic(frames, run_id):
    expected = CASES[run_id][1]
    f = fact(frames, "detector.asserts_storage_panic", run_id)
    assert f["value"] is expected, f


@pytest.mark.parametrize("run_id", ["post-negation", "not-caused-by", "is-not-the-cause",
                                    "no-evidence", "alternatives-list", "chinese-negated"])
def test_plain_keyword_matching_would_have_been_fooled(frames, run_id):
    """The seed's heuristic: a keyword/regex match anywhere in the answer. It fires on every
    one of these answers; the negation- and scope-aware detector does not."""
    sentences = CASES[run_id][0]
    plain = any(re.search(PANIC, text, re.I) for _, _, text in sentences)
    assert plain is True
    f = fact(frames, "detector.asserts_storage_panic", run_id)
    assert f["value"] is False
    assert ("negated" in f["detail"]) or ("outside scope" in f["detail"])
    # and the diagnosis hard check built on it fails, so the run cannot pass
    assert check(frames, "diagnosis", "names_storage_panic", run_id)["passed"] is False
    assert verdict(frames, run_id)["subtype"] == "diagnosis_fail"


def test_fired_detector_points_at_the_sentence(frames):
    f = fact(frames, "detector.asserts_storage_panic", "post-negation")
    assert f["evidence_line"] == 2 and "ruled out" in f["evidence_excerpt"]
    f = fact(frames, "detector.asserts_storage_panic", "followup-assert")
    assert f["evidence_file"] == "transcript.json"
    f = fact(frames, "detector.asserts_storage_panic", "plain-root-cause")
    assert f["evidence_file"] == "output.txt" and f["evidence_line"] == 1
    assert verdict(frames, "plain-root-cause")["verdict"] == "pass"


def test_alternatives_scope_and_negation_off(db):
    def mutate(raw):
        raw["detectors"]["considers_panic"] = {
            "description": "Lists a TiKV panic among the alternatives.",
            "any": [PANIC], "scope": "alternatives", "negation": False}
        raw["detectors"]["any_mention_negated_ok"] = {
            "description": "Mentions a panic anywhere, negated or not.",
            "any": [PANIC], "scope": "anywhere", "negation": False}
        raw["detectors"]["both_words"] = {
            "description": "Panic and raft in the same sentence.",
            "any": [PANIC], "all": ["raft"], "scope": "anywhere"}
        raw["judge"]["diagnosis"]["supporting_checks"].append(
            {"id": "considered", "all_of": [{"detector": "considers_panic"}]})

    rows = _rows_for("r", [("Root cause", "root_cause", "Disk full on tikv-3."),
                           ("Ruled out", "alternatives", "TiKV panic: ruled out."),
                           ("Notes", "other", "A TiKV panic logs raft errors.")])
    frames = judge_rows(db, rows, judge_spec(mutate))
    assert fact(frames, "detector.considers_panic", "r")["value"] is True
    assert fact(frames, "detector.any_mention_negated_ok", "r")["value"] is True
    both = fact(frames, "detector.both_words", "r")
    assert both["value"] is True and both["evidence_line"] == 3
    assert fact(frames, "detector.asserts_storage_panic", "r")["value"] is False


def test_all_patterns_must_match_the_same_sentence(db):
    def mutate(raw):
        raw["detectors"]["both_words"] = {
            "description": "Panic and raft in the same sentence.",
            "any": [PANIC], "all": ["raft"], "scope": "anywhere"}

    rows = _rows_for("r", [("Root cause", "root_cause", "The root cause is a TiKV panic."),
                           ("Root cause", "root_cause", "The raft log was corrupted.")])
    frames = judge_rows(db, rows, judge_spec(mutate))
    f = fact(frames, "detector.both_words", "r")
    assert f["value"] is False and "`all`" in f["detail"]


def test_no_output_means_no_detector_fires(db):
    rows = _rows_for("r", [])
    frames = judge_rows(db, rows)
    f = fact(frames, "detector.asserts_storage_panic", "r")
    assert f["value"] is False and f["detail"] == "no sentence of the answer matches"
    assert fact(frames, "workflow.final_answer_emitted", "r")["value"] is False
