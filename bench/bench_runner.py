"""Workloads of ``python -m bench`` around a run (not a test):

* ``runner:N`` -- ``rcaeval run`` of N replay cases with ``--jobs 2`` (the replay agent copies
  a generated recording into each workspace, so what is timed is the runner: workspaces,
  audits, judging, the store, reports). Above one suite's worth of cases the cases are
  repeated (``--repeat``). The row's floor is ``rcaeval judge`` over the same recordings, so
  ``(wall - floor) / N`` is the runner's own cost per case.
* ``report:N`` -- rendering the regression report (``rcaeval notebook regression``) of a run
  of N judged cases against a baseline run of the same cases (both judged once, cached).

A run id of the generator (``rcaeval synth runs``) holds whole scenario variants (13 x
``--variants`` cases, up to ``MAX_VARIANTS`` variants), so ``report:10000`` renders a run of
10,010 cases.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from bench._core import Ctx, Row, row_from, timed
from rcaeval.synth._bench import MAX_VARIANTS
from rcaeval.synth._template import load_scenarios

PY = sys.executable


def max_cases() -> int:
    """Distinct cases the generator can put in one run (scenarios x ``MAX_VARIANTS``)."""
    return len(load_scenarios()) * MAX_VARIANTS


def _generated(ctx: Ctx, name: str, runs: int, cases: int) -> Path:
    """``runs`` generated runs over ``cases`` distinct cases (one run id per ``cases``)."""
    from rcaeval.synth import generate_runs

    base = ctx.work / name
    done = base / ".complete"
    if not done.exists():
        variants = math.ceil(cases / len(load_scenarios()))
        generate_runs(base, runs, ctx.seed, variants=variants)
        done.write_text("ok\n", encoding="utf-8")
    return base


def _case_ids(run_dir: Path, n: int) -> list[str]:
    return sorted(p.name for p in run_dir.iterdir() if p.is_dir())[:n]


def workload(size: int, ctx: Ctx) -> list[Row]:
    top = max_cases()
    repeat = math.ceil(size / top)
    cases = math.ceil(size / repeat)
    base = _generated(ctx, f"runner-{cases}-s{ctx.seed}", cases, cases)
    rec = base / "recorded" / "bench-00000"
    ids = _case_ids(rec, cases)
    runs, floors = [], []
    for i in range(ctx.repeat):
        db = base / f"run-{i}.duckdb"
        cmd = [PY, "-m", "rcaeval", "run", "--suite", "bench", "--agent", f"replay:{rec}",
               "--registry", str(base / "registry"), "--db", str(db), "--audit-root",
               str(base / f"audits-{i}"), "--jobs", str(ctx.jobs), "--no-progress",
               "--repeat", str(repeat)]
        for cid in ids:
            cmd += ["--case", cid]
        runs.append(timed(cmd, check=False))
        jdb = base / f"judge-{i}.duckdb"
        floors.append(timed([PY, "-m", "rcaeval", "judge", str(rec), "--registry",
                             str(base / "registry"), "--db", str(jdb), "--out",
                             str(base / f"judged-{i}"), "--no-progress", "--workers",
                             str(ctx.jobs)]))
    bad = {s.code for s in runs} - {0, 4, 7}
    if bad:
        raise RuntimeError(f"rcaeval run exited {bad}:\n{runs[-1].out[-3000:]}")
    total = cases * repeat
    row = row_from("runner", total, "cases/s", runs, [f for f in floors],
                   f"floor: rcaeval judge of the {cases} recordings"
                   + (f" (x{repeat} repeats in the run)" if repeat > 1 else ""),
                   units=total)
    if row.floor is not None:
        per_case = (row.wall - row.floor * repeat) / total * 1000
        row.note = f"runner's own cost {per_case:.0f} ms/case (wall - judge floor)"
        row.extra["overhead_ms_per_case"] = per_case
    return [row]


def report_workload(size: int, ctx: Ctx) -> list[Row]:
    top = max_cases()
    per = len(load_scenarios())
    cases = per * math.ceil(min(size, top) / per)  # a run id holds every generated variant
    base = _generated(ctx, f"report-{cases}-s{ctx.seed}", 2 * cases, cases)
    db = base / "store.duckdb"
    if not (base / ".judged").exists():
        db.unlink(missing_ok=True)
        timed([PY, "-m", "rcaeval", "judge", str(base / "recorded"), "--registry",
               str(base / "registry"), "--db", str(db), "--no-files", "--no-progress",
               "--workers", str(ctx.jobs)])
        (base / ".judged").write_text("ok\n", encoding="utf-8")
    cmd = [PY, "-m", "rcaeval", "notebook", "regression", "bench-00001", "--baseline-run",
           "bench-00000", "--db", str(db), "--registry", str(base / "registry"), "--out",
           str(base / "regression.html")]
    runs = [timed(cmd) for _ in range(ctx.repeat)]
    html = (base / "regression.html").stat().st_size
    note = f"notebook regression, HTML {html / 2**20:.1f} MiB" + (
        f"; asked {size:,} cases: a run holds whole scenario variants ({per} per variant)"
        if size != cases else "")
    row = row_from("report", cases, "cases/s", runs, note=note)
    row.extra["html_bytes"] = html
    return [row]


def main(argv: list[str] | None = None) -> Any:
    from bench.__main__ import main as bench_main

    return bench_main(["runner", "report", *(argv or [])])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
