"""`python -m bench` (bench/__main__.py) runs its workloads end to end at tiny sizes, so the
entry point and the workload modules cannot rot. Timings are printed, never asserted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

REPO = Path(__file__).resolve().parents[2]


def _bench(tmp_path: Path, *args: str) -> tuple[str, list[dict]]:
    env = {k: v for k, v in os.environ.items() if k != "OPENRCA_SRC"}
    out = tmp_path / "rows.json"
    r = subprocess.run([sys.executable, "-m", "bench", *args, "--repeat", "1", "--work",
                        str(tmp_path / "work"), "--json", str(out)],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=540)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout, orjson.loads(out.read_bytes())


def test_list_names_every_workload() -> None:
    r = subprocess.run([sys.executable, "-m", "bench", "--list"], cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    names = [line.split()[0] for line in r.stdout.splitlines()]
    assert names == ["judge", "rejudge", "runner", "harness", "release", "openrca", "report",
                     "extract", "gen", "corpus", "toolstart"]


def test_unknown_workload_is_refused() -> None:
    r = subprocess.run([sys.executable, "-m", "bench", "nope:3"], cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "unknown workload 'nope'" in r.stderr


def test_light_workloads_print_a_table(tmp_path: Path) -> None:
    out, rows = _bench(tmp_path, "harness:20", "release:200", "openrca:100")
    assert [(r["workload"], r["size"]) for r in rows] == [
        ("harness", 20), ("release", 200), ("openrca", 100)]
    assert "machine:" in out and "wall median s" in out and "peak RSS MiB" in out
    by = {r["workload"]: r for r in rows}
    for r in rows:
        assert r["wall_s"] > 0 and r["rate"] > 0 and r["peak_rss_mib"] > 0
    # floors: the DuckDB scan for release, orjson for the harness; no OpenRCA code given
    assert by["release"]["floor_s"] > 0 and by["release"]["ratio"] > 0
    # CPU seconds of the timed child processes, and their ratio, beside the wall times
    assert "CPU ratio" in out
    assert by["release"]["cpu_s"] > 0 and by["release"]["floor_cpu_s"] > 0
    assert by["release"]["cpu_ratio"] == pytest.approx(
        by["release"]["cpu_s"] / by["release"]["floor_cpu_s"])
    assert by["harness"]["floor_s"] > 0 and by["harness"]["p95_ms"] >= by["harness"]["p50_ms"]
    assert by["openrca"]["floor_s"] is None and "not given" in by["openrca"]["note"]
    # the release window was generated once and is reused
    assert (tmp_path / "work" / "release-200-s7" / ".complete").is_file()


@pytest.mark.slow
def test_judge_workloads_run_end_to_end(tmp_path: Path) -> None:
    out, rows = _bench(tmp_path, "judge:6", "rejudge:6", "runner:3", "report:4", "extract:2",
                       "gen:2")
    assert [r["workload"] for r in rows] == ["judge", "rejudge", "runner", "report", "extract",
                                             "gen"]
    by = {r["workload"]: r for r in rows}
    assert by["judge"]["floor_s"] > 0 and by["rejudge"]["floor_s"] > 0
    assert by["runner"]["size"] == 3 and "overhead_ms_per_case" in by["runner"]
    assert by["report"]["size"] == 13  # whole variants: 13 scenarios


@pytest.mark.slow
def test_corpus_and_toolstart_workloads_run(tmp_path: Path) -> None:
    _, rows = _bench(tmp_path, "corpus:3", "toolstart:1")
    assert [(r["workload"], r["size"]) for r in rows] == [
        ("corpus import", 3), ("corpus validate", 3), ("toolstart first", 1), ("toolstart", 1),
        ("toolstart+search", 1)]
    for r in rows:
        assert r["wall_s"] > 0 and r["floor_s"] > 0 and r["peak_rss_mib"] > 0
    assert len(list((tmp_path / "work" / "corpus-3-registry" / "cases").iterdir())) == 3
