"""bench/bench_store_growth.py replays what it says: a judged store's raw rows once per
extraction batch, then per judging chunk its eval rows, each copy with its own run ids and
bundle_seq range, and prints memory after every step."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import rcaeval.store as st
from bench import bench_store_growth
from rcaeval.judge import judge_audit
from rcaeval.synth import generate_runs


@pytest.mark.slow  # judges 4 generated runs, then replays them 3 times: ~30 s on 2 cores
@pytest.mark.parametrize("extra", [[], ["--plain-checkpoint", "--row-group-size", "2048"]])
def test_each_chunk_is_a_copy_with_its_own_ids(tmp_path: Path, capsys, extra) -> None:
    generate_runs(tmp_path, 4, 0)
    src = tmp_path / "judged.duckdb"
    with st.connect(src) as store:
        judge_audit(store, tmp_path / "recorded", tmp_path / "registry",
                    out_dir=tmp_path / "out", workers=1)
    out = tmp_path / "growth.duckdb"
    assert bench_store_growth.main(["--source", str(src), "--out", str(out), "--chunks", "3",
                                    *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[:2] for ln in lines if ln.startswith(("extract", "judge"))] == [
        ["extract", "3"], ["judge", "1"], ["judge", "2"], ["judge", "3"]]
    assert lines[-1].startswith("done in ")
    con = duckdb.connect(str(out), read_only=True)
    con.execute("ATTACH ? AS src (READ_ONLY)", [str(src)])
    for table in ("raw_bundle", "raw_json", "eval_judgment", "eval_fact"):
        n = con.execute(f"SELECT count(*) FROM src.{table}").fetchall()[0][0]
        copied = con.execute(f"SELECT count(*), count(DISTINCT run_id) FROM {table}"
                             ).fetchall()[0]
        runs = con.execute(f"SELECT count(DISTINCT run_id) FROM src.{table}").fetchall()[0][0]
        assert n > 0 and copied == (3 * n, 3 * runs), table
    seqs = con.execute("SELECT min(bundle_seq), max(bundle_seq), count(DISTINCT bundle_seq)"
                       " FROM raw_bundle").fetchall()[0]
    assert seqs[2] == 3 * con.execute("SELECT count(*) FROM src.raw_bundle").fetchall()[0][0]
