"""The verdict table `rcaeval judge` prints lists at most MAX_VERDICT_ROWS case runs and counts
the rest (rendering a row costs about a millisecond: 10,000 rows were seconds of CPU)."""

import io

import polars as pl
from rich.console import Console

from rcaeval.cli._cmd_judge import MAX_VERDICT_ROWS, _verdict_table


def _render(n: int) -> str:
    frame = pl.DataFrame({
        "run_id": ["r1"] * n, "case_id": [f"case-{i:05d}" for i in range(n)],
        "verdict": ["pass"] * n, "subtype": [None] * n, "score": [1.0] * n,
        "raw_score": [1.0] * n,
    })
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(_verdict_table(frame))
    return out.getvalue()


def test_small_table_lists_every_case_run() -> None:
    text = _render(3)
    assert all(f"case-{i:05d}" in text for i in range(3))
    assert "more case run" not in text


def test_large_table_lists_the_first_rows_and_counts_the_rest() -> None:
    text = _render(MAX_VERDICT_ROWS + 7)
    assert f"case-{MAX_VERDICT_ROWS - 1:05d}" in text
    assert f"case-{MAX_VERDICT_ROWS:05d}" not in text
    assert f"first {MAX_VERDICT_ROWS} case runs" in text
    assert "7 more case run(s)" in text
