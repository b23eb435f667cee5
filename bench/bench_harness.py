"""Benchmark the runtime harness: per-report latency of ``check()`` and batch throughput.

    .venv/bin/python bench/bench_harness.py [--n 2000] [--seed 7]

Responses are varied deterministically from data/harness/samples.jsonl (evidence dropped,
origins flipped, ids dangling, actions unguarded, labels raised, lists grown), so every
status and repair path is exercised. Not a test: it prints figures, it asserts nothing.

As the workload ``harness:N`` of ``python -m bench`` it runs with ``--json`` in a child process:
p50/p95 of ``check()`` per report, ``check_batch()`` throughput, and the floor (``orjson``
parsing the same payloads).
"""

from __future__ import annotations

import argparse
import copy
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rcaeval.harness import HarnessConfig, check, check_batch  # noqa: E402

SAMPLES = REPO / "data" / "harness" / "samples.jsonl"


def _vary(base: dict[str, Any], rng: random.Random, i: int) -> dict[str, Any]:
    r = copy.deepcopy(base)
    r["incident_id"] = f"bench-{i}"  # distinct analysis hashes
    ev = r.setdefault("evidence", [])
    for _ in range(rng.randint(0, 12)):  # grow: real reports carry many artifacts
        ev.append({"source": rng.choice(["logs", "prometheus", "k8s_events", "traces"]),
                   "origin": rng.choice(["current_run", "current_run", "historical"]),
                   "supports": rng.sample(["oom_kill", "bad_config_rollout", "disk_full"], 1),
                   "summary": "x" * rng.randint(10, 200)})
    if ev and rng.random() < 0.2:
        rng.choice(ev)["origin"] = "historical"
    if ev and rng.random() < 0.15:
        rng.choice(ev)["usable"] = False
    if rng.random() < 0.2:
        r.setdefault("root_cause", {})["confidence"] = "high"
    if rng.random() < 0.2:
        r.setdefault("actions", []).append({"text": "Restart the service"})
    if rng.random() < 0.1:
        r.setdefault("claims", []).append(
            {"text": "extra", "material": True, "evidence_ids": ["ghost"]})
    if rng.random() < 0.1:
        r["alert"]["type"] = "KubePodNotReady"
    if rng.random() < 0.1:
        r["novel"] = True
    return r


def _pct(sorted_ms: list[float], p: float) -> float:
    k = max(0, min(len(sorted_ms) - 1, round(p / 100 * (len(sorted_ms) - 1))))
    return sorted_ms[k]


def workload(size: int, ctx: Any) -> list[Any]:
    """``harness:N``: N responses; the row's wall is ``check_batch()`` over all of them."""
    from bench._core import Row, last_json, median, timed

    cmd = [sys.executable, "-m", "bench.bench_harness", "--n", str(size), "--seed", "7",
           "--json"]
    samples = [timed(cmd) for _ in range(ctx.repeat)]
    docs = [last_json(s.out) for s in samples]
    batch = median([d["batch_s"] for d in docs])
    p50 = median([d["p50_ms"] for d in docs])
    p95 = median([d["p95_ms"] for d in docs])
    return [Row("harness", size, batch, size / batch, "responses/s",
                max(s.peak_mib for s in samples), median([d["floor_s"] for d in docs]),
                "floor: orjson.loads of every payload",
                f"check() p50 {p50:.3f} ms, p95 {p95:.3f} ms",
                {"p50_ms": p50, "p95_ms": p95})]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print one JSON line of figures")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    bases = [orjson.loads(x)["response"] for x in SAMPLES.read_bytes().splitlines() if x.strip()]
    responses = [_vary(bases[i % len(bases)], rng, i) for i in range(args.n)]
    payloads = [orjson.dumps(r) for r in responses]
    cfg = HarnessConfig()

    for p in payloads[:50]:  # warm-up (imports, pydantic caches)
        check(p, cfg)
    times: list[float] = []
    statuses: Counter[str] = Counter()
    for p in payloads:
        t0 = time.perf_counter_ns()
        res = check(p, cfg)  # from JSON bytes, as a service receives it
        times.append((time.perf_counter_ns() - t0) / 1e6)
        statuses[res.status] += 1
    times.sort()

    t0 = time.perf_counter()
    batch = check_batch(responses, cfg)
    batch_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for p in payloads:
        orjson.loads(p)
    floor_s = time.perf_counter() - t0
    if args.json:
        print(orjson.dumps({"n": len(payloads), "p50_ms": _pct(times, 50),
                            "p95_ms": _pct(times, 95), "p99_ms": _pct(times, 99),
                            "batch_s": batch_s, "floor_s": floor_s,
                            "statuses": dict(statuses)}).decode())
        return

    print("command: .venv/bin/python bench/bench_harness.py "
          f"--n {args.n} --seed {args.seed}")
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{len(payloads)} responses, mean size {statistics.mean(map(len, payloads)):.0f} B")
    print(f"check() per report: p50 {_pct(times, 50):.3f} ms  p95 {_pct(times, 95):.3f} ms  "
          f"p99 {_pct(times, 99):.3f} ms  max {times[-1]:.3f} ms")
    print(f"statuses: {dict(sorted(statuses.items()))}")
    print(f"check_batch(): {batch.results.height} responses in {batch_s:.2f} s = "
          f"{batch.results.height / batch_s:.0f} responses/s "
          f"({batch.checks.height} check rows, {batch.repairs.height} repair rows)")


if __name__ == "__main__":
    main()
