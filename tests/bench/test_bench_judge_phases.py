"""bench/bench_judge_phases.py profiles what it says: a re-judge from the store with every
manifest line of the judging phases timed once per chunk (or per pass; a line that only
defines views and macros not at all, since the judge before it made them on the same
connection), the steps' files split out, and the lines' sum no more than the whole
re-judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import bench_judge_phases
from rcaeval.judge._manifest import _definitions, phase
from rcaeval.synth import generate_runs


@pytest.mark.slow  # judges and re-judges 4 generated runs: ~35 s on 2 cores
def test_every_decide_line_is_timed_once_per_chunk(tmp_path: Path) -> None:
    generate_runs(tmp_path, 4, 0)
    prof = bench_judge_phases.run(tmp_path, chunk_size=2, workers=1, memory_limit=None)
    assert prof.runs == 4
    decide = {ln.text() for ln in phase("decide")}
    # files that only define views and macros ran once, in the judge before, on this
    # connection (docs/judge.md, "The manifest"): the re-judge skips them untimed
    definitions = {ln.text() for ln in phase("decide") if _definitions(ln)}
    assert "facts/base.sql" in definitions
    calls = {line: c.calls for (ph, line), c in prof.lines.items() if ph == "decide"}
    assert set(calls) == decide - definitions
    assert set(calls.values()) == {2}  # two chunks of two case runs
    assert calls["judge/stage1_facts.sql"] == 2
    release = [c.calls for (ph, _), c in prof.lines.items() if ph == "release"]
    assert release and set(release) == {1}  # between the two chunks only
    assert ("detect", "facts/detector_match.sql") in {(ph, f) for ph, _, f in prof.files}
    in_cpu = sum(c.cpu for c in prof.lines.values())
    assert 0 < in_cpu <= prof.cpu
    text = bench_judge_phases.table(prof, top=5)
    body = text.splitlines()[1:6]
    costs = [float(r.split()[-2]) for r in body]
    assert costs == sorted(costs, reverse=True)
    assert "re-judge total" in text and "outside the manifest" in text


def test_the_timer_is_off_outside_the_block(tmp_path: Path) -> None:
    from rcaeval.judge import _manifest

    seen: list[str] = []
    with _manifest.timed_lines(lambda ph, line, f, w, c: seen.append(ph)):
        assert _manifest._timer is not None
    assert _manifest._timer is None and not seen
