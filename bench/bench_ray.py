"""Benchmark the Ray executor's per-case overhead against the local executor.

Runs the sample suite's cases through each executor directly (no judging, no store: only
what the executor adds) with a replay agent (the agent costs ~nothing) and the example
command agent (a real subprocess), ``--jobs`` at a time, and prints per-case wall time and
the Ray executor's overhead per case. Ray runs on a local instance (``--cpus`` CPUs).

    .venv/bin/python bench/bench_ray.py --repeat 2 --jobs 1
"""

from __future__ import annotations

import argparse
import queue
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from rcaeval._paths import registry_dir
from rcaeval.registry import iter_suite_cases
from rcaeval.runner._case import to_run_case
from rcaeval.runner._executor import CaseJob, Resources, make_executor
from rcaeval.runner._sandbox import resolve_sandbox

AGENTS = {"replay": "replay:thorough",
          "example": f"command:{shlex.quote(sys.executable)} -m "
                     "rcaeval.examples.example_command_agent"}


def run_once(spec: str, agent: str, cases: list, jobs: int, tmp: Path, tag: str) -> float:
    """Seconds to run every case through executor ``spec`` (submit to last done)."""
    from rcaeval.runner._agents import parse_agent_spec

    events: queue.Queue = queue.Queue()
    job = CaseJob(run_id=f"bench-{tag}", agent_spec=agent, agent_env={},
                  audit_root=str(tmp / "audits"), timeout_s=300, turn_timeout_s=300,
                  max_infra_retries=0, expose_case_ids=False, case_ref_key=None,
                  tools="both", sandbox="none", network=True, explicit_timeout=False)
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    ex = make_executor(spec, job, events, jobs=jobs, ws_root=ws, workspace_root=None,
                       adapter=parse_agent_spec(agent), sandbox=resolve_sandbox("none"))
    t0 = time.perf_counter()
    try:
        for rc in cases:
            ex.submit(rc.case_id, rc, Resources())
        done = 0
        while done < len(cases):
            kind, *rest = events.get(timeout=600)
            if kind == "done":
                d = rest[0]
                assert d.execution is not None and d.execution.status == "completed", d
                done += 1
        return time.perf_counter() - t0
    finally:
        ex.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2, help="timed rounds per configuration")
    ap.add_argument("--jobs", type=int, default=1, help="cases in parallel")
    ap.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    ap.add_argument("--cases", type=int, default=0, help="first N sample cases (0: all)")
    args = ap.parse_args()

    import ray

    cases = [to_run_case(e.case) for e in iter_suite_cases(registry_dir(), "smoke") if e.case]
    cases = cases[: args.cases] if args.cases else cases
    tmp = Path(tempfile.mkdtemp(prefix="rcbench-", dir="/tmp"))
    t0 = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, _temp_dir=str(tmp / "r"),
             log_to_driver=False)
    print(f"ray.init (local instance, {args.cpus} CPUs): {time.perf_counter() - t0:.2f}s")
    try:
        print(f"{len(cases)} cases, --jobs {args.jobs}, best of {args.repeat} "
              "(first Ray round warms the worker pool, not timed)")
        print(f"{'agent':8} {'local s/case':>13} {'ray s/case':>11} {'overhead s/case':>16}")
        for name, agent in AGENTS.items():
            best: dict[str, float] = {}
            for spec in ("local", "ray"):
                rounds = []
                for i in range(args.repeat + (spec == "ray")):
                    out = tmp / f"{name}-{spec}-{i}"
                    out.mkdir()
                    secs = run_once(spec, agent, cases, args.jobs, out, f"{name}-{spec}-{i}")
                    shutil.rmtree(out, ignore_errors=True)
                    if not (spec == "ray" and i == 0):
                        rounds.append(secs)
                best[spec] = min(rounds) / len(cases)
            print(f"{name:8} {best['local']:13.3f} {best['ray']:11.3f} "
                  f"{best['ray'] - best['local']:16.3f}")
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
