"""Benchmark `rcaeval.synth.generate_runs`: throughput, disk use and peak memory.

    .venv/bin/python bench/gen_runs.py --n 1000 [--out DIR] [--seed 0] [--variants 8]

Not a test. Writes to a temporary directory (removed afterwards) unless --out is given.
As the workload ``gen:N`` of ``python -m bench`` it times ``rcaeval synth runs --n N``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rcaeval.synth import generate_runs


def workload(size: int, ctx: Any) -> list[Any]:
    """``gen:N``: ``rcaeval synth runs --n N`` into a fresh dir each repeat."""
    import sys

    from bench._core import row_from, timed

    out = ctx.work / f"gen-{size}"
    runs = []
    for _ in range(ctx.repeat):
        if out.exists():
            shutil.rmtree(out)
        runs.append(timed([sys.executable, "-m", "rcaeval", "synth", "runs", "--n", str(size),
                           "--out", str(out), "--seed", str(ctx.seed)]))
    shutil.rmtree(out, ignore_errors=True)
    return [row_from("gen", size, "runs/s", runs)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--variants", type=int, default=8)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="rcaeval-gen-"))
    t0 = time.perf_counter()
    summary = generate_runs(out, args.n, args.seed, variants=args.variants)
    dt = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"runs={summary.n_runs} run_ids={summary.run_ids} cases={summary.cases} "
          f"seconds={dt:.2f} runs_per_s={summary.n_runs / dt:.0f} "
          f"bytes_per_run={size / max(summary.n_runs, 1):.0f} peak_rss_mb={rss_mb:.0f}")
    if args.out is None:
        shutil.rmtree(out)


if __name__ == "__main__":
    main()
