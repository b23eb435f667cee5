"""Benchmark release metrics over a large generated capture window (not a test).

Generates N captures with the sample generator (``rcaeval.release._sample``; Parquet, nested
columns as JSON text, zstd) plus their reviews, then computes every release gate metric with
``rcaeval release metrics`` in a child process (so its peak RSS is the measurement's own, read
from ``getrusage(RUSAGE_CHILDREN)``), and checks the gate on the artifact.

    .venv/bin/python bench/bench_release.py --n 1000000 [--memory-limit 4GB] [--keep DIR]

As the workload ``release:N`` of ``python -m bench`` it times ``rcaeval release metrics`` as a
whole process against the floor, one DuckDB scan of the same columns of the same Parquet file
(bench/sql/release_floor.sql, ``--floor FILE``). Windows above 1,000,000 captures are the
1,000,000 window repeated with new capture ids (bench/sql/release_replicate.sql).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from rcaeval.release._sample import SampleSpec, write_sample

SQL = Path(__file__).resolve().parent / "sql"
WINDOW = "2026-11-01..2026-11-28"
GENERATED_MAX = 1_000_000


def spec(n: int, seed: int) -> SampleSpec:
    return SampleSpec(n=n, seed=seed, days=28, outage_tests=max(12, n // 50_000))


def window_files(size: int, ctx: Any) -> tuple[Path, Path]:
    """(captures Parquet, reviews JSONL) of a ``size`` window under the work dir, made once."""
    import duckdb

    base = ctx.work / f"release-{size}-s7"
    cap, rev = base / "bench-window.parquet", base / "bench-window.reviews.jsonl"
    done = base / ".complete"
    if done.exists():
        return cap, rev
    if size > GENERATED_MAX and size % GENERATED_MAX == 0:
        src, src_rev = window_files(GENERATED_MAX, ctx)
        base.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect()
        rel = con.sql((SQL / "release_replicate.sql").read_text(encoding="utf-8"),
                      params={"src": str(src), "k": size // GENERATED_MAX})
        rel.write_parquet(str(cap), compression="zstd")
        con.close()
        rev.write_bytes(src_rev.read_bytes())
    else:
        write_sample(base, spec(size, 7), name="bench-window")
    done.write_text("ok\n", encoding="utf-8")
    return cap, rev


def workload(size: int, ctx: Any) -> list[Any]:
    """``release:N``: ``rcaeval release metrics`` over N captures against one DuckDB scan."""
    from bench._core import repeat_pair, row_from

    cap, rev = window_files(size, ctx)
    out = cap.parent / "M.json"
    cmd = [sys.executable, "-m", "rcaeval", "release", "metrics", "--captures", str(cap),
           "--reviews", str(rev), "--window", WINDOW, "--out", str(out)]
    floor = [sys.executable, "-m", "bench.bench_release", "--floor", str(cap)]
    runs, floors = repeat_pair(ctx.repeat, cmd, floor)
    return [row_from("release", size, "captures/s", runs, floors,
                     "floor: one DuckDB scan of the same columns (JSON parsed once)")]


def floor_main(path: Path) -> int:
    import duckdb

    t0 = time.perf_counter()
    con = duckdb.connect()
    row = con.execute((SQL / "release_floor.sql").read_text(encoding="utf-8"),
                      {"files": [str(path)]}).fetchone()
    print(orjson.dumps({"captures": row[0] if row else 0,
                        "seconds": time.perf_counter() - t0}).decode())
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--memory-limit", default=None, help="DuckDB memory limit, e.g. 4GB")
    ap.add_argument("--keep", type=Path, default=None, help="Write the window here and keep it")
    ap.add_argument("--floor", type=Path, default=None,
                    help="only the floor: one DuckDB scan of this Parquet file")
    args = ap.parse_args(argv)
    if args.floor is not None:
        return floor_main(args.floor)

    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_release_"))
    t0 = time.perf_counter()
    info = write_sample(work, spec(args.n, args.seed), name="bench-window")
    gen_s = time.perf_counter() - t0
    size_mb = Path(info["captures"]).stat().st_size / 2**20
    print(f"generated {info['n_captures']:,} captures ({size_mb:.0f} MiB Parquet) and "
          f"{info['n_reviews']:,} reviews in {gen_s:.1f} s")

    out = work / "M.json"
    cmd = [sys.executable, "-m", "rcaeval", "release", "metrics", "--captures",
           info["captures"], "--reviews", info["reviews"], "--window",
           WINDOW, "--out", str(out)]
    if args.memory_limit:
        cmd += ["--memory-limit", args.memory_limit]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        return proc.returncode
    doc = orjson.loads(out.read_bytes())
    pop = doc["provenance"]["population"]["captures"]
    print(f"release metrics: {pop['in_window']:,} captures in {wall:.1f} s "
          f"({pop['in_window'] / wall:,.0f} captures/s), peak RSS {peak_mib:,.0f} MiB "
          f"(python process incl. DuckDB)")
    for name, e in doc["metrics"].items():
        print(f"  {name:42s} {e['value']!s:>22}  n={e.get('sample_size')}")
    gate = subprocess.run([sys.executable, "-m", "rcaeval", "release", "gate", str(out)],
                          capture_output=True, text=True)
    print(f"gate exit code {gate.returncode}")
    if args.keep is None:
        for p in sorted(work.iterdir()):
            p.unlink()
        work.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
