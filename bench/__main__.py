"""Benchmarks of rcaeval: one entry point over seeded, generated workloads (not a test).

    .venv/bin/python -m bench --quick                    # a set that ends in a few minutes
    .venv/bin/python -m bench judge:1000 release:1000000 openrca:50000 --repeat 3
    .venv/bin/python -m bench --list                     # the workloads and their sizes

Each ``NAME[:SIZE]`` times the workload's command as a whole child process ``--repeat``
times (at least 3 for a quoted figure) and prints one row: wall median, rate, peak RSS (the
child's own, from ``wait4``) and the ratio to the workload's floor, the cheapest program that
does the same input work (see bench/RESULTS.md). Generated inputs are cached under
``--work`` by size and seed, so a second call reuses them. ``--json FILE`` also writes the
rows as JSON. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson

from bench import (
    bench_corpora,
    bench_extract,
    bench_harness,
    bench_judge,
    bench_openrca,
    bench_release,
    bench_runner,
    gen_runs,
)
from bench._core import Ctx, Row, table


@dataclass(frozen=True)
class Workload:
    name: str
    run: Callable[[int, Ctx], list[Row]]
    sizes: tuple[int, ...]
    """The sizes the issue asks for (what ``NAME`` alone runs)."""
    quick: int
    """The size of the ``--quick`` set."""
    what: str


WORKLOADS: dict[str, Workload] = {w.name: w for w in (
    Workload("judge", bench_judge.workload, (1_000, 10_000, 100_000), 200,
             "rcaeval judge over N generated runs vs reading + parsing their files"),
    Workload("rejudge", bench_judge.rejudge_workload, (1_000, 10_000), 200,
             "judging N runs again from the store vs a full judge"),
    Workload("runner", bench_runner.workload, (1_000,), 20,
             "rcaeval run of N replay cases, --jobs 2: overhead per case"),
    Workload("harness", bench_harness.workload, (100_000,), 1_000,
             "check() p50/p95 and check_batch() throughput over N responses"),
    Workload("release", bench_release.workload, (1_000_000, 10_000_000), 50_000,
             "rcaeval release metrics over N Parquet captures vs one DuckDB scan"),
    Workload("openrca", bench_openrca.workload, (50_000,), 5_000,
             "OpenRCA scoring of N rows vs OpenRCA's own evaluate()"),
    Workload("report", bench_runner.report_workload, (10_000,), 100,
             "rendering the regression report for a run of N cases"),
    Workload("extract", bench_extract.workload, (400,), 20,
             "extraction of N synthetic cases (1,000 points each)"),
    Workload("gen", gen_runs.workload, (10_000,), 200,
             "rcaeval synth runs --n N"),
    Workload("corpus", bench_corpora.corpus_workload, (1_000,), 20,
             "rcaeval import openrca + validate of an N-task OpenRCA-format dataset"),
    Workload("toolstart", bench_corpora.toolstart_workload, (35, 1_024), 8,
             "incident tools start-up (load_case_data) on a case with N MB of logs"),
)}
QUICK = ("judge", "rejudge", "runner", "harness", "release", "openrca", "report")


def parse_spec(spec: str, quick: bool) -> list[tuple[Workload, int]]:
    name, _, size = spec.partition(":")
    if name not in WORKLOADS:
        raise SystemExit(f"unknown workload {name!r}; one of {', '.join(WORKLOADS)}")
    w = WORKLOADS[name]
    if size:
        try:
            n = int(size.replace("_", "").replace(",", ""))
        except ValueError:
            raise SystemExit(f"{spec}: size must be an integer") from None
        if n < 1:
            raise SystemExit(f"{spec}: size must be >= 1")
        return [(w, n)]
    return [(w, w.quick)] if quick else [(w, n) for n in w.sizes]


def machine() -> str:
    mem = ""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            kib = int(fh.readline().split()[1])
        mem = f", {kib / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.machine()}, {os.cpu_count()} CPUs{mem}, Python "
            f"{platform.python_version()}, load average {load:.1f} at start")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench",
                                 description=(__doc__ or "").splitlines()[0])
    ap.add_argument("workloads", nargs="*", metavar="NAME[:SIZE]",
                    help="workloads to run (default with --quick: the quick set)")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes of every main workload (a few minutes)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    ap.add_argument("--work", type=Path, default=None,
                    help="cache dir for generated inputs (default: a temporary dir, removed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="workers / --jobs of the workloads")
    ap.add_argument("--openrca", type=Path, default=None,
                    help="OpenRCA checkout (or main/evaluate.py, or a bare git dir) for "
                    "openrca's side-by-side floor (default: $OPENRCA_SRC)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    args = ap.parse_args(argv)
    if args.list:
        for w in WORKLOADS.values():
            sizes = ", ".join(f"{n:,}" for n in w.sizes)
            print(f"{w.name:<9} sizes {sizes:<22} quick {w.quick:<7,} {w.what}")
        return 0
    if args.repeat < 1:
        raise SystemExit("--repeat must be >= 1")
    specs = args.workloads or (list(QUICK) if args.quick else [])
    if not specs:
        ap.error("name workloads (NAME[:SIZE]) or give --quick; --list shows them")
    plan = [item for spec in specs for item in parse_spec(spec, args.quick)]
    work = args.work or Path(tempfile.mkdtemp(prefix="rcaeval-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    ctx = Ctx(repeat=args.repeat, work=work, seed=args.seed, jobs=args.jobs,
              options={"openrca": args.openrca})
    print(f"machine: {machine()}")
    print(f"command: python -m bench {' '.join(argv if argv is not None else sys.argv[1:])}")
    rows: list[Row] = []
    try:
        for w, n in plan:
            print(f"... {w.name}:{n} ({args.repeat} runs)", flush=True)
            got = w.run(n, ctx)
            rows.extend(got)
            print(table(got).splitlines()[-1], flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print(table(rows))
    if args.json:
        args.json.write_bytes(orjson.dumps([r.as_dict() for r in rows],
                                           option=orjson.OPT_INDENT_2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
