"""Item: what is read of an agent's answer is capped (MAX_ANSWER_BYTES), streamed, never a
whole-file load: a 2 GiB sparse output.txt or a flood of NULs on stdout is truncated with a
note; the case is judged and the run completes."""

from __future__ import annotations

import orjson
import pytest
from reliability_kit import CASES, hostile_args, make_registry, query, rcaeval

from rcaeval.runner._agents import MAX_ANSWER_BYTES, read_capped


@pytest.mark.parametrize("mode,size,note", [
    ("big_output", 2 * 1024**3, "output.txt truncated: 2147483648 bytes"),
    ("nul_stdout", 40 * 1000 * 1000, "turn 1 stdout truncated: 40000000 bytes"),
])
def test_huge_answers_are_truncated_with_a_note(tmp_path, mode, size, note):
    reg = make_registry(tmp_path / "reg", CASES[:2])
    r = rcaeval("run", "--suite", "mini", "--registry", str(reg), "--db",
                str(tmp_path / "s.duckdb"), "--audit-root", str(tmp_path / "a"), "--run-id", "o1",
                "--no-progress", *hostile_args(mode, [CASES[0]], HOSTILE_SIZE=str(size)),
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = dict(query(tmp_path / "s.duckdb", "SELECT case_id, c.status || ' ' || "
                      "coalesce(c.error, '') FROM eval_case_runs c"))
    assert rows[CASES[0]].startswith("judged ") and note in rows[CASES[0]], rows[CASES[0]]
    assert rows[CASES[1]] == "judged "
    audit = tmp_path / "a" / "o1" / CASES[0]
    transcript = audit / "transcript.json"
    assert transcript.stat().st_size < 7 * MAX_ANSWER_BYTES  # NULs are 6 bytes in JSON
    assert orjson.loads(transcript.read_bytes())
    assert query(tmp_path / "s.duckdb", "SELECT status FROM eval_runs") == [("completed",)]


def test_read_capped_reads_no_more_than_the_cap(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(10**12)  # 1 TB sparse: a whole-file read would fail
    text, size = read_capped(big, 1000)
    assert len(text) == 1000 and size == 10**12
    (tmp_path / "small").write_text("héllo")
    assert read_capped(tmp_path / "small") == ("héllo", None)
    (tmp_path / "link").symlink_to(big)
    assert read_capped(tmp_path / "link") == ("", None)
