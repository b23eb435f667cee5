"""Shared pieces of the benchmark entry point (``python -m bench``): timing a child process
(wall time, CPU seconds and its own peak RSS from ``wait4``), medians over repeats, the result
row and the table it prints. Not a test: nothing here asserts a time."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable


@dataclass
class Sample:
    """One finished child process: wall seconds, its peak RSS (MiB), exit code, output, and
    its CPU seconds (user + system, its waited-for descendants included)."""

    wall: float
    peak_mib: float
    code: int
    out: str
    cpu: float | None = None


@dataclass
class Ctx:
    """What every workload gets: repeats, the work dir (generated inputs are cached there by
    size and seed, so a second call reuses them), the seed and extra options."""

    repeat: int
    work: Path
    seed: int = 0
    jobs: int = 2
    options: dict[str, Any] = field(default_factory=dict)

    def dir(self, name: str) -> Path:
        path = self.work / name
        path.mkdir(parents=True, exist_ok=True)
        return path


@dataclass
class Row:
    """One line of the table. ``ratio`` is wall / floor wall (None: no floor); ``cpu`` /
    ``floor_cpu`` are CPU-second medians when the workload timed child processes (on a
    shared machine they compare better than wall times)."""

    workload: str
    size: int
    wall: float
    rate: float
    unit: str
    peak_mib: float
    floor: float | None = None
    floor_name: str = ""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    cpu: float | None = None
    floor_cpu: float | None = None

    @property
    def ratio(self) -> float | None:
        return self.wall / self.floor if self.floor else None

    @property
    def cpu_ratio(self) -> float | None:
        return self.cpu / self.floor_cpu if self.cpu and self.floor_cpu else None

    def as_dict(self) -> dict[str, Any]:
        return {"workload": self.workload, "size": self.size, "wall_s": self.wall,
                "rate": self.rate, "unit": self.unit, "peak_rss_mib": self.peak_mib,
                "floor_s": self.floor, "floor": self.floor_name, "ratio": self.ratio,
                "cpu_s": self.cpu, "floor_cpu_s": self.floor_cpu, "cpu_ratio": self.cpu_ratio,
                "note": self.note, **self.extra}


def timed(cmd: Sequence[str], *, cwd: Path | None = None,
          env: dict[str, str] | None = None, check: bool = True) -> Sample:
    """Run ``cmd`` to the end; its wall time, peak RSS (``ru_maxrss`` of that child alone,
    via ``wait4``: the largest of it and its waited-for descendants) and CPU seconds (user +
    system of it and its waited-for descendants, from the same ``wait4``)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=full_env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{text[-4000:]}")
    return Sample(wall, usage.ru_maxrss / 1024, proc.returncode, text,
                  usage.ru_utime + usage.ru_stime)


def last_json(text: str) -> dict[str, Any]:
    """The last line of ``text`` that is a JSON object (what a workload child prints)."""
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return orjson.loads(line)
    raise RuntimeError(f"no JSON result line in output:\n{text[-2000:]}")


def median(xs: Sequence[float]) -> float:
    return float(statistics.median(xs))


def repeat_pair(repeat: int, a: Sequence[str], b: Sequence[str] | None,
                **kw: Any) -> tuple[list[Sample], list[Sample]]:
    """Run ``a`` and ``b`` in turn (A B A B ...) ``repeat`` times each, so a drift of the
    machine's speed hits both alike."""
    sa: list[Sample] = []
    sb: list[Sample] = []
    for _ in range(repeat):
        sa.append(timed(a, **kw))
        if b is not None:
            sb.append(timed(b, **kw))
    return sa, sb


def row_from(workload: str, size: int, unit: str, runs: list[Sample],
             floors: list[Sample] | None = None, floor_name: str = "", note: str = "",
             units: int | None = None) -> Row:
    wall = median([s.wall for s in runs])
    floor = median([s.wall for s in floors]) if floors else None
    cpus = [s.cpu for s in runs if s.cpu is not None]
    floor_cpus = [s.cpu for s in floors or () if s.cpu is not None]
    return Row(workload, size, wall, (units if units is not None else size) / wall, unit,
               max(s.peak_mib for s in runs), floor, floor_name, note,
               cpu=median(cpus) if cpus else None,
               floor_cpu=median(floor_cpus) if floor_cpus else None)


def _fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _fmt_rate(r: Row) -> str:
    v = r.rate
    num = f"{v:,.0f}" if v >= 100 else f"{v:,.2f}"
    return f"{num} {r.unit}"


def table(rows: list[Row]) -> str:
    head = ("workload", "size", "wall median s", "rate", "peak RSS MiB", "floor s",
            "ratio", "CPU s", "floor CPU s", "CPU ratio", "floor / note")
    body = [(r.workload, f"{r.size:,}", _fmt_s(r.wall), _fmt_rate(r), f"{r.peak_mib:,.0f}",
             _fmt_s(r.floor), "-" if r.ratio is None else f"{r.ratio:.2f}x",
             _fmt_s(r.cpu), _fmt_s(r.floor_cpu),
             "-" if r.cpu_ratio is None else f"{r.cpu_ratio:.2f}x",
             "; ".join(x for x in (r.floor_name, r.note) if x)) for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    for b in body:
        lines.append("  ".join(
            (c.rjust(w) if 1 <= i <= 9 else c.ljust(w))
            for i, (c, w) in enumerate(zip(b, widths, strict=True))).rstrip())
    return "\n".join(lines)
