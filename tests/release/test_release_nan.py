"""Non-finite numbers in captures. JSONL cannot carry them (a bare NaN/Infinity token or
1e999 is invalid JSON there), but a Parquet capture's JSON text can: DuckDB reads NaN,
Infinity and 1e999 (= inf) as doubles and sorts NaN above every number, so one NaN latency
made the activation p95 NaN. Such a capture is invalid, naming the field; the metric reads
only finite latencies."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_kit import capture  # noqa: E402

import rcaeval.release as rel  # noqa: E402

WIN = "2026-11-01..2026-11-07"
BAD = ["NaN", "Infinity", "-Infinity", "1e999"]
MARK_LAT, MARK_SCORE = 12345.5, 777.25


def _parquet(tmp_path: Path, tokens: list[str]) -> Path:
    rows = []
    for i, tok in enumerate(tokens):
        c = capture(f"c{i}")
        c["knowledge_activations"] = [{"knowledge_id": "k", "admissible": True,
                                       "latency_seconds": MARK_LAT}]
        c["response"]["hypotheses"] = [{"family": "oom_kill", "score": MARK_SCORE}]
        rows.append({k: (orjson.dumps(v).decode().replace(str(MARK_LAT), tok)
                         .replace(str(MARK_SCORE), tok)
                         if isinstance(v, dict | list) else v) for k, v in c.items()})
    path = tmp_path / "c.parquet"
    pl.DataFrame(rows).write_parquet(path)
    return path


def test_non_finite_latency_and_score_are_named_problems(tmp_path: Path) -> None:
    path = _parquet(tmp_path, [*BAD, "2.5"])
    m = rel.measure(path, WIN)
    got = {(p["line"], p["field"]) for p in m.problems}
    want = {(i + 1, f) for i in range(len(BAD))
            for f in ("knowledge_activations[0].latency_seconds",
                      "response.hypotheses[0].score")}
    assert got == want
    assert all("finite" in p["message"] for p in m.problems)
    with pytest.warns(UserWarning, match="left out"):
        frame = rel.metrics(path, WIN)
    p95 = frame.filter(pl.col("metric") == "activation_p95_seconds").row(0, named=True)
    assert (p95["value"], p95["denominator"]) == (2.5, 1)


@pytest.mark.parametrize("token", BAD)
def test_jsonl_cannot_carry_them(tmp_path: Path, token: str) -> None:
    c = capture("c0")
    c["knowledge_activations"] = [{"knowledge_id": "k", "admissible": True,
                                   "latency_seconds": MARK_LAT}]
    path = tmp_path / "c.jsonl"
    path.write_text(orjson.dumps(c).decode().replace(str(MARK_LAT), token) + "\n", "utf-8")
    m = rel.measure(path, WIN)
    assert [(p["line"], p["field"]) for p in m.problems] == [(1, "(line)")]
