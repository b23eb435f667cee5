"""Benchmark release metrics over a large generated capture window (not a test).

Generates N captures with the sample generator (``rcaeval.release._sample``; Parquet, nested
columns as JSON text, zstd) plus their reviews, then computes every release gate metric with
``rcaeval release metrics`` in a child process (so its peak RSS is the measurement's own, read
from ``getrusage(RUSAGE_CHILDREN)``), and checks the gate on the artifact.

    .venv/bin/python bench/bench_release.py --n 1000000 [--memory-limit 4GB] [--keep DIR]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from rcaeval.release._sample import SampleSpec, write_sample


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--memory-limit", default=None, help="DuckDB memory limit, e.g. 4GB")
    ap.add_argument("--keep", type=Path, default=None, help="Write the window here and keep it")
    args = ap.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_release_"))
    t0 = time.perf_counter()
    info = write_sample(work, SampleSpec(n=args.n, seed=args.seed, days=28,
                                         outage_tests=max(12, args.n // 50_000)),
                        name="bench-window")
    gen_s = time.perf_counter() - t0
    size_mb = Path(info["captures"]).stat().st_size / 2**20
    print(f"generated {info['n_captures']:,} captures ({size_mb:.0f} MiB Parquet) and "
          f"{info['n_reviews']:,} reviews in {gen_s:.1f} s")

    out = work / "M.json"
    cmd = [sys.executable, "-m", "rcaeval", "release", "metrics", "--captures",
           info["captures"], "--reviews", info["reviews"], "--window",
           "2026-11-01..2026-11-28", "--out", str(out)]
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
