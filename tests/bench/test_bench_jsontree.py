"""bench/bench_jsontree.py measures what it says: over generated runs, DuckDB's json_tree with
the elided containers emptied walks exactly the rows extraction writes to raw_json, and over
the texts as read it walks those and every elided value besides."""

from __future__ import annotations

from pathlib import Path

from bench import bench_jsontree
from rcaeval.synth import generate_runs


def test_row_counts_of_the_three_ways_agree(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(bench_jsontree, "REPEAT", 1)
    generate_runs(tmp_path / "g", 4, 0)
    got = bench_jsontree.runs(tmp_path / "g" / "recorded")
    assert got["documents"] > 20
    kept = got["json_tree, elided emptied"]["rows"]
    assert kept == got["python"]["rows"] > 0
    assert got["json_tree, every value"]["rows"] > kept
    (row,) = bench_jsontree.sizes([10])
    assert row["members"] == 10 and row["rows"] > 0
