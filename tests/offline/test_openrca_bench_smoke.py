"""bench/bench_openrca.py still runs (a few hundred rows; timings are never asserted)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_openrca.py"


def test_bench_runs_on_a_few_rows(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_openrca_smoke", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--rows", "400", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "rows: 400" in out and "rcaeval end to end" in out and "summary: rows 400" in out
