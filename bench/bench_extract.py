"""Benchmark extraction: synthetic cases → raw tables; prints throughput and peak RSS.

    .venv/bin/python bench/bench_extract.py --cases 400 --points 2000 --workers 2
    .venv/bin/python -m bench.bench_extract --runs W/recorded   # e.g. `rcaeval synth runs`

With ``--runs DIR`` it extracts the case dirs under DIR (an audits root) instead, in chunks of
1,000, and also reports the CPU of the parent (Arrow from the workers, the inserts, commits)
and of the workers.

As the workload ``extract:N`` of ``python -m bench`` it runs N cases of 1,000 points with
``--json`` in a child process; the row's wall is the extraction alone.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

import rcaeval.store as st
from rcaeval.extract import discover_case_dirs, extract_cases


def _write(base: Path, rel: str, content: object) -> None:
    path = base / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content if isinstance(content, bytes) else orjson.dumps(content)
    path.write_bytes(data)


def make_case(base: Path, run_id: str, case_id: str, points: int) -> None:
    ts = [f"2026-10-03T14:{i // 60 % 60:02d}:{i % 60:02d}Z" for i in range(points)]
    _write(base, "manifest.json", {"run_id": run_id, "case_id": case_id, "status": "completed"})
    _write(base, "evidences/workspace_evidence_report.json",
           {"metadata": {"cluster_id": "prod-tidb-017"}, "channels": {}})
    _write(base, "evidences/metrics.json", {"series": [
        {"id": f"M-{s}", "name": "cpu", "labels": {"instance": f"tikv-{s}"},
         "points": [[t, float(i % 97)] for i, t in enumerate(ts)]} for s in range(4)]})
    _write(base, "evidences/queries.json", {"queries": [
        {"id": f"Q-{i}", "kind": "slow_query", "sql_text": "SELECT 1"} for i in range(50)]})
    _write(base, "evidences/logs.json", {"entries": [
        {"id": f"L-{i}", "ts": ts[i % len(ts)], "level": "ERROR", "message": "boom"}
        for i in range(points)]})
    _write(base, "logs/tikv-0.log", "\n".join(
        f"{t} ERROR [tikv] region {i} unavailable" for i, t in enumerate(ts)).encode())
    _write(base, "output.txt", b"## Root cause\nTiKV tikv-2 panicked. Fixed in v8.5.2.\n")


def workload(size: int, ctx: Any) -> list[Any]:
    from bench._core import Row, last_json, median, timed

    cmd = [sys.executable, "-m", "bench.bench_extract", "--cases", str(size), "--points",
           "1000", "--workers", str(ctx.jobs), "--json"]
    samples = [timed(cmd) for _ in range(ctx.repeat)]
    secs = median([last_json(s.out)["seconds"] for s in samples])
    return [Row("extract", size, secs, size / secs, "cases/s",
                max(s.peak_mib for s in samples), note="1,000 points per case")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=None,
                    help="cases per write batch (default 50, or 1,000 with --runs)")
    ap.add_argument("--runs", type=Path, default=None,
                    help="extract the case dirs under this audits root instead")
    ap.add_argument("--json", action="store_true", help="print one JSON line of figures")
    args = ap.parse_args(argv)
    if args.runs is not None:
        return _runs_main(args)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "audits"
        for i in range(args.cases):
            make_case(root / "bench-run" / f"case-{i:05d}", "bench-run", f"case-{i:05d}",
                      args.points)
        store = st.connect(Path(tmp) / "bench.duckdb")  # every migration applied
        con = store.con
        refs = discover_case_dirs(root)
        start = time.perf_counter()
        summary = extract_cases(con, refs, workers=args.workers,
                                batch_size=args.batch_size or 50, progress=False)
        elapsed = time.perf_counter() - start
        rows = sum(summary.rows.values())
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{summary.cases} cases, {rows} rows in {elapsed:.2f}s "
              f"({summary.cases / elapsed:.1f} cases/s, {rows / elapsed:,.0f} rows/s); "
              f"batches={summary.batches}; parent peak RSS {peak_mb:.0f} MiB")
        print(dict(summary.rows))
        if args.json:
            print(orjson.dumps({"cases": summary.cases, "rows": rows,
                                "seconds": elapsed}).decode())
        store.close()
    return 0


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _runs_main(args: argparse.Namespace) -> int:
    """Extract the case dirs under ``args.runs`` into a fresh store; CPU split parent/workers
    (the workers' CPU is counted once the pool has exited, at the end of extract_cases)."""
    refs = discover_case_dirs(args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        store = st.connect(Path(tmp) / "bench.duckdb")
        parent0, children0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        summary = extract_cases(store.con, refs, workers=args.workers,
                                batch_size=args.batch_size or 1000, progress=False)
        elapsed = time.perf_counter() - start
        parent = _cpu(resource.RUSAGE_SELF) - parent0
        workers = _cpu(resource.RUSAGE_CHILDREN) - children0
        store.close()
    rows = sum(summary.rows.values())
    n = max(summary.cases, 1)
    print(f"{summary.cases} case runs, {rows:,} rows: wall {elapsed:.2f}s, CPU parent "
          f"{parent:.2f}s + workers {workers:.2f}s = {parent + workers:.2f}s "
          f"({(parent + workers) / n * 1000:.2f} ms a run; parent {parent / n * 1000:.2f} ms)")
    if args.json:
        print(orjson.dumps({"cases": summary.cases, "rows": rows, "seconds": elapsed,
                            "cpu_parent": parent, "cpu_workers": workers}).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
