"""queries/judge/detector_unused.sql lists, per detector scope, the grammar regexes that
facts/detector_match.sql never reaches under that scope; the detector step binds a
never-matching pattern for them (RE2 compiles every bound regex per query). The list is kept
by hand, so this checks it decides nothing: every scope's hits over answers that exercise
labels, leads, headings, picks, anaphora, causal cues and every cue stage are the same with
the list and with every regex bound. The step also runs on one DuckDB thread, which likewise
decides nothing."""

from __future__ import annotations

import pytest

import rcaeval.judge._pipeline as pipeline
from rcaeval._paths import data_dir
from rcaeval.authoring._judging import Answer, judge_answers
from rcaeval.registry import load_case

CASE = "tikv-panic-restart-001"
SCOPES = ("anywhere", "alternatives", "root_cause")
TEXTS = [
    "## Root cause\nTiKV store 5 (tikv-2) panicked on a corrupted raft log entry.\n",
    "Root cause: tikv-2 panicked. Evidence: the crash loop.\n",
    "**Conclusion** tikv-2 panicked on a corrupted raft entry.\n",
    "## Ruled out\n- tikv-2 panicking: it did not restart.\n- A CPU hotspot.\n",
    "Candidates:\n(1) tikv-2 panicked on a corrupted raft entry\n(2) a CPU hotspot\n"
    "It's (1).\n",
    "tikv-2 panicked on a corrupted raft entry. That is the root cause.\n",
    "The outage was caused by tikv-2 panicking; the disk was fine.\n",
    "It was not tikv-2 panicking. It might be tikv-2 crashing, we could not confirm it.\n",
    "The tikv-2 crash loop was merely a symptom of the disk failure.\n",
    "The disk failure led to tikv-2 panicking on a corrupted raft entry.\n",
    "## Symptoms\nStore 5 panicked after the disk filled up.\n",
    "Alternatives considered: tikv-2 panicked; a CPU hotspot on region 88213.\n",
]


def _hits(cases: dict, answers: list[Answer]) -> dict:
    found = judge_answers(cases, answers)
    return {key: {d: (dec.fires, dec.hits) for d, dec in j.detectors.items()}
            for key, j in found.items()}


@pytest.mark.parametrize("scope", SCOPES)
def test_the_unused_grammar_keys_decide_nothing(scope: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    merged = load_case(data_dir() / "registry", CASE)
    for det in merged.judge.detectors.values():
        det.scope = scope
    cases = {CASE: merged}
    answers = [Answer(f"a{i}", CASE, text) for i, text in enumerate(TEXTS)]
    with_list = _hits(cases, answers)
    monkeypatch.setattr(pipeline, "_unused_keys", lambda con: {})
    every_regex = _hits(cases, answers)
    assert with_list == every_regex
    assert any(fires for by_det in with_list.values() for fires, _ in by_det.values())



def _threads(con) -> int:
    return int(con.execute("SELECT current_setting('threads')").fetchone()[0])


def test_detectors_run_on_one_thread_and_decide_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """The detector queries run with DuckDB's threads lowered to one (their cost is regex
    compilation per thread), which decides nothing: the hits are those of the instance's
    own thread count, and the count is set back afterwards."""
    import contextlib

    cases = {CASE: load_case(data_dir() / "registry", CASE)}
    answers = [Answer(f"a{i}", CASE, text) for i, text in enumerate(TEXTS)]
    inside: list[int] = []
    around: list[tuple[int, int]] = []
    queries, run = pipeline._detector_queries, pipeline._run_detectors

    def observed_queries(con, rows):
        inside.append(_threads(con))
        queries(con, rows)

    def observed_run(con):
        before = _threads(con)
        run(con)
        around.append((before, _threads(con)))

    monkeypatch.setattr(pipeline, "_detector_queries", observed_queries)
    monkeypatch.setattr(pipeline, "_run_detectors", observed_run)
    one_thread = _hits(cases, answers)
    assert inside and set(inside) == {1}
    assert around and all(before == after for before, after in around)
    monkeypatch.setattr(pipeline, "threads_lowered", lambda con, n=1: contextlib.nullcontext())
    assert _hits(cases, answers) == one_thread
