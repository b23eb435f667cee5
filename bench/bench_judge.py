"""Benchmark the judge end to end on generated runs (not a test).

For each N: generate N recorded runs with ``rcaeval.synth.generate_runs``, then
  * floor: read every file of the runs and parse every JSON file with orjson, in one process;
  * judge: registry load -> rule tables + case_meta -> extraction -> SQL judge in chunks ->
    eval_* rows and judgment.json files, into a DuckDB file store.
Reports runs/s per phase, the ratio of the judge's wall time to the orjson floor, and the peak
RSS of every phase: this process (VmHWM, reset before each phase via /proc/self/clear_refs,
plus a 20 ms VmRSS sampler) and its child processes (extraction workers: the largest one and
the sum of those alive at once), so the figures show whether memory grows with N.

    .venv/bin/python bench/bench_judge.py --runs 1000 10000 --workers 2

As a workload of ``python -m bench`` (``judge:N``, ``rejudge:N``) it times the ``rcaeval judge``
command as a whole process against the floor (``--floor DIR``: this module reading and parsing
the same files in a process of its own).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

T = TypeVar("T")
SAMPLE_S = 0.02


def _status_mib(pid: int | str, key: str) -> int:
    """``key`` (VmRSS / VmHWM) of ``/proc/<pid>/status`` in MiB; 0 when unavailable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    return 0


def _cmdline(pid: int | str) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _children() -> list[str]:
    """Pids of this process's children (any thread may have started them), leaving out a
    child between fork and exec: it still shows this process's memory and command line."""
    own = _cmdline("self")
    pids: list[str] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children", encoding="ascii") as fh:
                pids.extend(p for p in fh.read().split() if _cmdline(p) != own)
        except OSError:
            continue
    return pids


def _reset_hwm() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


@dataclass
class PhasePeak:
    seconds: float = 0.0
    own_mib: int = 0
    kids_max_mib: int = 0
    """Largest single child (its VmHWM)."""
    kids_sum_mib: int = 0
    """Largest sum of the RSS of children alive at the same time."""


@dataclass
class MemSampler:
    """Samples this process's VmRSS and its children's VmRSS/VmHWM in a thread."""

    own: int = 0
    kids_max: int = 0
    kids_sum: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _sample(self) -> None:
        own = _status_mib("self", "VmRSS")
        kids = _children()
        total = sum(_status_mib(p, "VmRSS") for p in kids)
        biggest = max((_status_mib(p, "VmHWM") for p in kids), default=0)
        with self._lock:
            self.own = max(self.own, own)
            self.kids_sum = max(self.kids_sum, total)
            self.kids_max = max(self.kids_max, biggest)

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self._sample()

    def measure(self, fn: Callable[[], T]) -> tuple[T, PhasePeak]:
        """Run ``fn``; return its result and the phase's time and peaks."""
        exact = _reset_hwm()
        with self._lock:
            self.own = _status_mib("self", "VmRSS")
            self.kids_max = self.kids_sum = 0
        t0 = time.perf_counter()
        out = fn()
        secs = time.perf_counter() - t0
        self._sample()
        with self._lock:
            own = max(self.own, _status_mib("self", "VmHWM") if exact else 0)
            return out, PhasePeak(secs, own, self.kids_max, self.kids_sum)


def orjson_floor(root: Path) -> tuple[int, int]:
    """Read every file under ``root`` and parse the JSON ones; (files, bytes)."""
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
    return files, nbytes


def _fmt_peak(p: PhasePeak) -> str:
    kids = (f"  workers max {p.kids_max_mib:5d} MiB, sum {p.kids_sum_mib:5d} MiB"
            if p.kids_max_mib else "")
    return f"peak RSS main {p.own_mib:5d} MiB{kids}"


def bench(n: int, seed: int, workers: int, keep: Path | None, sampler: MemSampler, *,
          chunk_size: int | None, memory_limit: str | None,
          threads: int | None, rejudge: bool = True) -> dict[str, Any]:
    import rcaeval.store as st
    from rcaeval.extract import discover_case_dirs, extract_cases
    from rcaeval.judge import CaseRules, judge_loaded, register_cases, rejudge_store
    from rcaeval.registry import load_case
    from rcaeval.synth import generate_runs

    tmp_ctx = tempfile.TemporaryDirectory() if keep is None else None
    base = Path(tmp_ctx.name) if tmp_ctx else keep / f"n{n}"
    try:
        _, gen = sampler.measure(lambda: generate_runs(base, n, seed))
        recorded, registry = base / "recorded", base / "registry"
        (files, nbytes), floor = sampler.measure(lambda: orjson_floor(recorded))

        phases: dict[str, PhasePeak] = {}

        def load_registry() -> tuple[list[Any], dict[str, Any]]:
            refs = discover_case_dirs(recorded)
            cases = {}
            for cid in sorted({r.case_id for r in refs}):
                merged = load_case(registry, cid)
                cases[cid] = CaseRules(cid, merged.case.model_dump(mode="json"),
                                       merged.judge.model_dump(mode="json"), merged.rules_hash)
            return refs, cases

        (refs, cases), phases["registry"] = sampler.measure(load_registry)
        db_path = base / "bench.duckdb"
        for stale in (db_path, db_path.with_suffix(".duckdb.wal")):
            stale.unlink(missing_ok=True)
        store = st.connect(db_path, memory_limit=memory_limit, threads=threads)
        try:
            limit, n_threads = store.con.execute(
                "SELECT current_setting('memory_limit'), current_setting('threads')"
            ).fetchall()[0]
            pairs = [(r.run_id, r.case_id) for r in refs]
            _, phases["rules"] = sampler.measure(lambda: register_cases(store, pairs, cases))
            _, phases["extract"] = sampler.measure(
                lambda: extract_cases(store.con, refs, workers=workers, progress=False))
            frame, phases["judge_sql+write"] = sampler.measure(
                lambda: judge_loaded(store, pairs, out_dir=base / "judgments",
                                     chunk_size=chunk_size))
            rejudged = None
            if rejudge:
                _, rejudged = sampler.measure(
                    lambda: rejudge_store(store, registry, out_dir=base / "rejudged",
                                          chunk_size=chunk_size))
        finally:
            store.close()
        total = sum(p.seconds for p in phases.values())
        verdicts = dict(frame.group_by("verdict").len().sort("verdict").iter_rows())
        print(f"\n== {len(refs)} runs ({files} files, {nbytes / 2**20:.1f} MiB; generated in "
              f"{gen.seconds:.1f}s) verdicts {verdicts}")
        print(f"   DuckDB memory_limit {limit}, threads {n_threads}; extraction workers "
              f"{workers}; judge chunk_size {chunk_size}")
        for phase, p in phases.items():
            rate = len(refs) / p.seconds if p.seconds else 0
            print(f"  {phase:<16} {p.seconds:8.2f}s  {rate:10.1f} runs/s   {_fmt_peak(p)}")
        print(f"  {'judge total':<16} {total:8.2f}s  {len(refs) / total:10.1f} runs/s   "
              f"peak RSS main {max(p.own_mib for p in phases.values()):5d} MiB")
        print(f"  {'orjson floor':<16} {floor.seconds:8.2f}s  "
              f"{len(refs) / floor.seconds:10.1f} runs/s   {_fmt_peak(floor)}")
        print(f"  ratio judge/floor {total / floor.seconds:8.1f}x")
        if rejudged is not None:
            print(f"  {'re-judge':<16} {rejudged.seconds:8.2f}s  "
                  f"{len(refs) / rejudged.seconds:10.1f} runs/s   {_fmt_peak(rejudged)}   "
                  f"{rejudged.seconds / total:.2f} of the full judge")
        print(f"  (generation {gen.seconds:.1f}s, {_fmt_peak(gen)})")
        return {"runs": len(refs), "total_s": total, "floor_s": floor.seconds,
                "rejudge_s": rejudged.seconds if rejudged is not None else None,
                **{k: p.seconds for k, p in phases.items()},
                **{f"{k}_peak_mib": p.own_mib for k, p in phases.items()}}
    finally:
        if tmp_ctx:
            tmp_ctx.cleanup()


def generated_runs(size: int, ctx: Any) -> Path:
    """``size`` runs from ``rcaeval synth runs`` under the work dir (made once per size and
    seed, reused after)."""
    from rcaeval.synth import generate_runs

    base = ctx.work / f"runs-{size}-s{ctx.seed}"
    done = base / ".complete"
    if not done.exists():
        generate_runs(base, size, ctx.seed)
        done.write_text("ok\n", encoding="utf-8")
    return base


def _judge_cmd(base: Path, db: Path, out: Path, workers: int, extra: list[str]) -> list[str]:
    import sys

    return [sys.executable, "-m", "rcaeval", "judge", str(base / "recorded"), "--registry",
            str(base / "registry"), "--db", str(db), "--out", str(out), "--no-progress",
            "--workers", str(workers), *extra]


def _fresh(*paths: Path) -> None:
    import shutil

    for p in paths:
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink(missing_ok=True)
        Path(str(p) + ".wal").unlink(missing_ok=True)


def workload(size: int, ctx: Any) -> list[Any]:
    """``judge:N``: ``rcaeval judge`` over N generated runs (a fresh store each repeat)
    against the floor, one process reading every file and parsing the JSON ones."""
    import sys

    from bench._core import row_from, timed

    base = generated_runs(size, ctx)
    db, out = base / "bench.duckdb", base / "judgments"
    floor_cmd = [sys.executable, "-m", "bench.bench_judge", "--floor", str(base / "recorded")]
    runs, floors = [], []
    for _ in range(ctx.repeat):
        _fresh(db, out)
        runs.append(timed(_judge_cmd(base, db, out, ctx.jobs, [])))
        floors.append(timed(floor_cmd))
    return [row_from("judge", size, "runs/s", runs, floors, "floor: read + orjson.loads "
                     "every bundle file, one process")]


def rejudge_workload(size: int, ctx: Any) -> list[Any]:
    """``rejudge:N``: judge N runs once, then time judging them again from the same store
    (``--from-store`` when the judge has it; else a second plain ``rcaeval judge`` into the
    store that already holds them, which is what exists) against one full judge."""
    import subprocess
    import sys

    from bench._core import row_from, timed

    base = generated_runs(size, ctx)
    db, out = base / "rejudge.duckdb", base / "rejudge-judgments"
    help_text = subprocess.run([sys.executable, "-m", "rcaeval", "judge", "--help"],
                               capture_output=True, text=True).stdout
    from_store = "--from-store" in help_text
    note = ("rcaeval judge --from-store (SQL stages only)" if from_store else
            "no re-judge mode yet: a second full `rcaeval judge` into the same store")
    fulls, again = [], []
    for _ in range(ctx.repeat):
        _fresh(db, out)
        fulls.append(timed(_judge_cmd(base, db, out, ctx.jobs, [])))
        cmd = _judge_cmd(base, db, out, ctx.jobs, ["--from-store"] if from_store else [])
        if from_store:
            cmd.remove(str(base / "recorded"))
        again.append(timed(cmd))
    return [row_from("rejudge", size, "runs/s", again, fulls, "floor: a full judge", note)]


def floor_main(root: Path) -> int:
    t0 = time.perf_counter()
    files, nbytes = orjson_floor(root)
    print(orjson.dumps({"files": files, "bytes": nbytes,
                        "seconds": time.perf_counter() - t0}).decode())
    return 0


def main(argv: list[str] | None = None) -> int:
    from rcaeval.judge import BULK_MEMORY_LIMIT, DEFAULT_CHUNK_SIZE
    from rcaeval.store import resolve_memory_limit

    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE,
                    help="cases per SQL judge pass (0: all in one pass)")
    ap.add_argument("--memory-limit", default=resolve_memory_limit() or BULK_MEMORY_LIMIT,
                    help="DuckDB memory_limit, as `rcaeval judge` sets it (default: "
                    "$RCAEVAL_DB_MEMORY_LIMIT, else %(default)s; 'none' for DuckDB's 80%% of "
                    "RAM)")
    ap.add_argument("--threads", type=int, default=None, help="DuckDB threads")
    ap.add_argument("--no-rejudge", action="store_true",
                    help="skip re-judging from the store after the full judge")
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the generated runs and store under this dir")
    ap.add_argument("--floor", type=Path, default=None,
                    help="only the floor: read and parse every file under this dir")
    args = ap.parse_args(argv)
    if args.floor is not None:
        return floor_main(args.floor)
    sampler = MemSampler()
    sampler.start()
    try:
        for n in args.runs:
            bench(n, args.seed, args.workers, args.keep, sampler,
                  chunk_size=args.chunk_size or None,
                  memory_limit=None if args.memory_limit == "none" else args.memory_limit,
                  threads=args.threads, rejudge=not args.no_rejudge)
    finally:
        sampler.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
