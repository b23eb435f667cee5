"""Profile the SQL judge manifest line by manifest line (not a test).

Judges N generated runs into a DuckDB file store (``rcaeval.synth.generate_runs``, then
``judge_audit``), then re-judges them from the store (``rejudge_store``: the SQL phases only,
as ``rcaeval judge --from-store`` does) with every manifest line's wall and CPU time
accumulated (``rcaeval.judge._manifest.timed_lines``), and prints the lines sorted by CPU:

    .venv/bin/python -m bench.bench_judge_phases --runs 1000
    .venv/bin/python -m bench.bench_judge_phases --dir /tmp/g1k      # runs already generated
    .venv/bin/python -m bench.bench_judge_phases --runs 300 --chunk-size 100 --top 15

A ``!step`` line's time includes everything its step does (Python, the SQL it runs, reading
frames back); the second table splits the steps' files run through ``run_file``. ``outside the
manifest`` is the rest of the re-judge: loading the registry and its rule tables, packets,
judgment.json files, commits, checkpoints between chunks. CPU is the process's
(``time.process_time``: DuckDB's threads included). Lines whose files only define views and
macros do not appear: the judge made them on the same connection, and a judging pass runs
them once per connection (docs/judge.md, "The manifest").
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Cost:
    calls: int = 0
    wall: float = 0.0
    cpu: float = 0.0


@dataclass
class Profile:
    """What one re-judge cost: per manifest line, per step file, and in total."""

    runs: int
    lines: dict[tuple[str, str], Cost]
    files: dict[tuple[str, str, str], Cost]
    wall: float
    cpu: float

    def add(self, phase: str, line: str, file: str | None, wall: float, cpu: float) -> None:
        cost = self.lines[(phase, line)] if file is None else self.files[(phase, line, file)]
        cost.calls += 1
        cost.wall += wall
        cost.cpu += cpu


def _short(line: str, width: int = 58) -> str:
    return line if len(line) <= width else line[: width - 3] + "..."


def table(profile: Profile, top: int | None = None) -> str:
    """The report: manifest lines by CPU, then the steps' files, then the totals."""
    n = max(profile.runs, 1)
    out = [f"{'phase':<15} {'line':<58} {'calls':>6} {'wall ms':>9} {'cpu ms':>9} "
           f"{'cpu ms/run':>10}"]
    rows = sorted(profile.lines.items(), key=lambda kv: -kv[1].cpu)
    for (phase, line), c in rows[:top]:
        out.append(f"{phase:<15} {_short(line):<58} {c.calls:>6} {c.wall * 1e3:>9.1f} "
                   f"{c.cpu * 1e3:>9.1f} {c.cpu * 1e3 / n:>10.3f}")
    if profile.files:
        out.append("")
        out.append(f"{'step files (inside the step lines above)':<74} {'calls':>6} "
                   f"{'wall ms':>9} {'cpu ms':>9} {'cpu ms/run':>10}")
        for (phase, line, file), c in sorted(profile.files.items(),
                                             key=lambda kv: -kv[1].cpu)[:top]:
            step = line.split()[0]
            label = _short(f"{phase} {step} {file}", 74)
            out.append(f"{label:<74} {c.calls:>6} {c.wall * 1e3:>9.1f} {c.cpu * 1e3:>9.1f} "
                       f"{c.cpu * 1e3 / n:>10.3f}")
    in_wall = sum(c.wall for c in profile.lines.values())
    in_cpu = sum(c.cpu for c in profile.lines.values())
    out.append("")
    for label, wall, cpu in (("manifest lines", in_wall, in_cpu),
                             ("outside the manifest", profile.wall - in_wall,
                              profile.cpu - in_cpu),
                             ("re-judge total", profile.wall, profile.cpu)):
        out.append(f"{label:<81} {wall * 1e3:>9.1f} {cpu * 1e3:>9.1f} "
                   f"{cpu * 1e3 / n:>10.3f}")
    return "\n".join(out)


def profile_rejudge(store: Any, registry: Path, out_dir: Path, *,
                    chunk_size: int | None) -> Profile:
    """Re-judge everything ``store`` holds with every manifest line timed."""
    from rcaeval.judge import rejudge_store
    from rcaeval.judge._manifest import timed_lines

    prof = Profile(0, defaultdict(Cost), defaultdict(Cost), 0.0, 0.0)
    w0, c0 = time.perf_counter(), time.process_time()
    with timed_lines(prof.add):
        frame = rejudge_store(store, registry, out_dir=out_dir, chunk_size=chunk_size)
    prof.wall, prof.cpu = time.perf_counter() - w0, time.process_time() - c0
    prof.runs = frame.height
    return prof


def run(base: Path, *, chunk_size: int | None, workers: int,
        memory_limit: str | None) -> Profile:
    """Judge ``base``/recorded against ``base``/registry into a fresh store under ``base``,
    then profile the re-judge."""
    import rcaeval.store as st
    from rcaeval.judge import BULK_MEMORY_LIMIT, judge_audit

    db = base / "phases.duckdb"
    for stale in (db, db.with_suffix(".duckdb.wal")):
        stale.unlink(missing_ok=True)
    store = st.connect(db, memory_limit=memory_limit or BULK_MEMORY_LIMIT)
    try:
        judge_audit(store, base / "recorded", base / "registry", out_dir=base / "judged",
                    chunk_size=chunk_size, workers=workers)
        return profile_rejudge(store, base / "registry", base / "rejudged",
                               chunk_size=chunk_size)
    finally:
        store.close()
        for stale in (db, db.with_suffix(".duckdb.wal")):
            stale.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> None:
    from rcaeval.judge import DEFAULT_CHUNK_SIZE

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000, help="generated runs (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", type=Path, default=None,
                    help="runs already generated (DIR/recorded, DIR/registry: rcaeval synth "
                         "runs --out DIR); --runs and --seed are then ignored")
    ap.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE)
    ap.add_argument("--workers", type=int, default=2, help="extraction workers")
    ap.add_argument("--memory-limit", default=None,
                    help="DuckDB memory_limit (default: rcaeval judge's, 1GB)")
    ap.add_argument("--top", type=int, default=None, help="print only the N costliest lines")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        base = args.dir
        if base is None:
            from rcaeval.synth import generate_runs

            base = Path(tmp)
            generate_runs(base, args.runs, args.seed)
        prof = run(base, chunk_size=args.chunk_size, workers=args.workers,
                   memory_limit=args.memory_limit)
    print(f"re-judge from the store: {prof.runs} case runs, chunks of {args.chunk_size}; "
          f"lines sorted by CPU")
    print(table(prof, args.top))


if __name__ == "__main__":
    main()
