"""Benchmark the judge end to end on generated runs (not a test).

For each N: generate N recorded runs with ``rcaeval.synth.generate_runs``, then
  * floor: read every file of the runs and parse every JSON file with orjson, in one process;
  * judge: registry load -> rule tables + case_meta -> extraction -> SQL judge -> eval_* rows
    and judgment.json files, into a DuckDB file store.
Reports runs/s per phase, peak RSS (this process and extraction workers) and the ratio of
the judge's wall time to the orjson floor.

    .venv/bin/python bench/bench_judge.py --runs 1000 10000 --workers 2
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import orjson


def _peak_rss_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, kids


def orjson_floor(root: Path) -> tuple[float, int, int]:
    """Seconds to read every file under ``root`` and parse the JSON ones; files, bytes."""
    t0 = time.perf_counter()
    files = nbytes = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            data = (Path(dirpath) / name).read_bytes()
            files += 1
            nbytes += len(data)
            if name.endswith(".json"):
                try:
                    orjson.loads(data)
                except orjson.JSONDecodeError:
                    pass
    return time.perf_counter() - t0, files, nbytes


def bench(n: int, seed: int, workers: int, keep: Path | None) -> dict[str, float]:
    import rcaeval.store as st
    from rcaeval.extract import discover_case_dirs, extract_cases
    from rcaeval.judge import CaseRules, judge_loaded, register_cases
    from rcaeval.registry import load_case
    from rcaeval.synth import generate_runs

    tmp_ctx = tempfile.TemporaryDirectory() if keep is None else None
    base = Path(tmp_ctx.name) if tmp_ctx else keep / f"n{n}"
    try:
        t0 = time.perf_counter()
        generate_runs(base, n, seed)
        gen_s = time.perf_counter() - t0
        recorded, registry = base / "recorded", base / "registry"

        floor_s, files, nbytes = orjson_floor(recorded)

        times: dict[str, float] = {}
        t = time.perf_counter()
        refs = discover_case_dirs(recorded)
        cases = {}
        for cid in sorted({r.case_id for r in refs}):
            merged = load_case(registry, cid)
            cases[cid] = CaseRules(cid, merged.case.model_dump(mode="json"),
                                   merged.judge.model_dump(mode="json"), merged.rules_hash)
        times["registry"] = time.perf_counter() - t
        db_path = base / "bench.duckdb"
        if db_path.exists():
            db_path.unlink()
        store = st.connect(db_path)
        try:
            pairs = [(r.run_id, r.case_id) for r in refs]
            t = time.perf_counter()
            register_cases(store, pairs, cases)
            times["rules"] = time.perf_counter() - t
            t = time.perf_counter()
            extract_cases(store.con, refs, workers=workers, progress=False)
            times["extract"] = time.perf_counter() - t
            t = time.perf_counter()
            frame = judge_loaded(store, pairs, out_dir=base / "judgments")
            times["judge_sql+write"] = time.perf_counter() - t
        finally:
            store.close()
        total = sum(times.values())
        own, kids = _peak_rss_mb()
        verdicts = dict(frame.group_by("verdict").len().iter_rows())
        print(f"\n== {len(refs)} runs ({files} files, {nbytes / 2**20:.1f} MiB; generated in "
              f"{gen_s:.1f}s) verdicts {verdicts}")
        for phase, secs in times.items():
            print(f"  {phase:<16} {secs:8.2f}s  {len(refs) / secs if secs else 0:10.1f} runs/s")
        print(f"  {'judge total':<16} {total:8.2f}s  {len(refs) / total:10.1f} runs/s")
        print(f"  {'orjson floor':<16} {floor_s:8.2f}s  {len(refs) / floor_s:10.1f} runs/s")
        print(f"  ratio judge/floor {total / floor_s:8.1f}x")
        print(f"  peak RSS: this process {own:.0f} MiB, largest worker {kids:.0f} MiB")
        return {"runs": len(refs), "total_s": total, "floor_s": floor_s, **times}
    finally:
        if tmp_ctx:
            tmp_ctx.cleanup()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the generated runs and store under this dir")
    args = ap.parse_args(argv)
    for n in args.runs:
        bench(n, args.seed, args.workers, args.keep)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
