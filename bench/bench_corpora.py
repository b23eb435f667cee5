"""Benchmark corpus imports and tool start-up at scale (docs/benchmarks.md).

    .venv/bin/python -m bench corpus:1000          # import + validate a 1,000-task registry
    .venv/bin/python -m bench toolstart:1024       # tool server start-up on 1,024 MB of logs

``corpus:N`` generates an OpenRCA-format dataset (Bank layout, N tasks, one per half hour
over as many dates as it takes; 5 components x 3 KPIs a minute and a log line a minute per
component in each task's half hour) and times ``rcaeval import openrca`` into a fresh registry
and then ``rcaeval validate`` of it, each as a whole child process. Floor: one process
reading every telemetry CSV row with Python's csv module (the input work of the import).

``toolstart:MB`` generates one case whose ``incident/logs/`` holds MB megabytes of log lines
(plus a small metrics.json) and times ``load_case_data`` - what ``rcaeval tools serve`` does
before it answers the first request - in a child process: the first start (which builds the
log index of a log dir of 32 MiB or more, rcaeval/tools/_logindex.py), later starts (which
reuse it), and a later start followed by two searches. The index goes to a fresh cache dir
under the work dir. Floor: reading the same files' bytes.
"""

from __future__ import annotations

import csv
import random
import shutil
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

CST = timezone(timedelta(hours=8))
COMPONENTS = ["apache01", "Tomcat01", "Tomcat02", "Mysql02", "Redis01"]
KPIS = ["OSLinux-CPU_CPU_CPUCpuUtil", "OSLinux-OSLinux_MEMORY_MEMORY_MEMUsedMemPerc",
        "OSLinux-OSLinux_LOCALDISK_LOCALDISK-sdb_DSKRead"]
REASONS = ["high CPU usage", "high memory usage", "high disk I/O read usage"]


def make_openrca(root: Path, tasks: int, seed: int = 0) -> Path:
    """An OpenRCA Bank-layout dataset of ``tasks`` tasks under ``root`` (returned)."""
    sysdir = root / "Bank"
    if (sysdir / "query.csv").is_file():
        return root
    rnd = random.Random(seed)
    start = datetime(2021, 3, 4, 0, 0, tzinfo=CST)
    faults = []
    for i in range(tasks):
        slot = start + timedelta(minutes=30 * i)
        t = slot + timedelta(minutes=5 + rnd.randrange(20))
        faults.append((t, COMPONENTS[i % 5], i % 3))
    (sysdir / "telemetry").mkdir(parents=True, exist_ok=True)
    with (sysdir / "record.csv").open("w", newline="") as rf, \
            (sysdir / "query.csv").open("w", newline="") as qf:
        rw, qw = csv.writer(rf), csv.writer(qf)
        rw.writerow(["level", "component", "timestamp", "datetime", "reason"])
        qw.writerow(["task_index", "instruction", "scoring_points"])
        for t, comp, k in faults:
            dt = t.strftime("%Y-%m-%d %H:%M:%S")
            rw.writerow(["pod", comp, int(t.timestamp()), dt, REASONS[k]])
            a = t.replace(minute=t.minute - t.minute % 30, second=0)
            qw.writerow(["task_6", f"Between {a:%H:%M} and {a + timedelta(minutes=30):%H:%M} "
                         f"on {t:%B %d, %Y}, one failure occurred. Identify the root cause "
                         "component and reason.",
                         f"The only predicted root cause component is {comp}\n"
                         f"The only predicted root cause reason is {REASONS[k]}\n"])
    by_day: dict[str, list[tuple[datetime, str, int]]] = {}
    for f in faults:
        by_day.setdefault(f[0].strftime("%Y_%m_%d"), []).append(f)
    for day, group in by_day.items():
        d = sysdir / "telemetry" / day
        (d / "metric").mkdir(parents=True, exist_ok=True)
        (d / "log").mkdir(parents=True, exist_ok=True)
        with (d / "metric" / "metric_container.csv").open("w", newline="") as mf, \
                (d / "log" / "log_service.csv").open("w", newline="") as lf:
            mw, lw = csv.writer(mf), csv.writer(lf)
            mw.writerow(["timestamp", "cmdb_id", "kpi_name", "value"])
            lw.writerow(["log_id", "timestamp", "cmdb_id", "log_name", "value"])
            for t, comp, k in group:
                a = t.replace(minute=t.minute - t.minute % 30, second=0)
                for m in range(30):
                    ts = int((a + timedelta(minutes=m)).timestamp())
                    hot = ts >= t.timestamp()
                    for c in COMPONENTS:
                        for j, kpi in enumerate(KPIS):
                            v = 95.0 if hot and c == comp and j == k else 20 + rnd.random()
                            mw.writerow([ts, c, kpi, round(v, 3)])
                        msg = (f"ERROR {c} request failed" if hot and c == comp else
                               f"{ts}.5: [GC (Allocation Failure) 12345K->678K]")
                        lw.writerow([f"{rnd.getrandbits(48):012x}", ts, c, "gc", msg])
    return root


def make_big_case(root: Path, megabytes: int) -> Path:
    """A case dir whose incident logs hold about ``megabytes`` MB of lines."""
    case = root / f"case-{megabytes}mb"
    if (case / "case.yaml").is_file():
        return case
    logs = case / "incident" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (case / "incident" / "metrics.json").write_text(
        '{"series": [{"id": "M-cpu-a", "name": "cpu", "labels": {"instance": "a"}, '
        '"points": [["2026-10-03T14:00:00Z", 1.0]]}]}\n')
    (case / "case.yaml").write_text(
        "case_id: big\ntitle: big\ncase_type: known\nprompt: {text: find it}\n"
        "environment: {cluster_id: c1}\ntime_window: {start: '2026-10-03T00:00:00Z', "
        "end: '2026-10-04T00:00:00Z'}\n")
    line = ("2026-10-03T14:{m:02d}:{s:02d}.{ms:03d}Z {lvl} [tikv] [raft.rs:1234] "
            "[\"region heartbeat\"] [region-id={r}] [store-id=5] [peer=7]\n")
    per_file = max(1, megabytes // 8) * 1024 * 1024
    written, n, f = 0, 0, 0
    target = megabytes * 1024 * 1024
    while written < target:
        path = logs / f"tikv-{f}.log"
        with path.open("w") as fh:
            size = 0
            while size < per_file and written + size < target:
                text = line.format(m=n // 60000 % 60, s=n // 1000 % 60, ms=n % 1000,
                                   lvl="ERROR" if n % 97 == 0 else "INFO", r=n % 100000)
                fh.write(text)
                size += len(text)
                n += 1
        written += size
        f += 1
    return case


def _floor_csv(dataset: str) -> None:
    n = 0
    for path in sorted(Path(dataset).rglob("*.csv")):
        with path.open(newline="") as fh:
            for _ in csv.reader(fh):
                n += 1
    print(n)


def _floor_bytes(case: str) -> None:
    print(sum(len(p.read_bytes()) for p in Path(case).rglob("*") if p.is_file()))


def corpus_workload(size: int, ctx: Any) -> list[Any]:
    from bench._core import PY, Row, median, timed

    ds = make_openrca(ctx.dir(f"corpus-{size}-{ctx.seed}"), size, ctx.seed)
    reg = ctx.work / f"corpus-{size}-registry"
    imports, validates, floors = [], [], []
    for _ in range(ctx.repeat):
        shutil.rmtree(reg, ignore_errors=True)
        imports.append(timed([PY, "-m", "rcaeval", "import", "openrca", str(ds), "--system",
                              "Bank", "--out", str(reg)]))
        validates.append(timed([PY, "-m", "rcaeval", "validate", "--registry", str(reg)]))
        floors.append(timed([PY, "-m", "bench.bench_corpora", "floor-csv", str(ds)]))
    fl = median([s.wall for s in floors])
    rows = []
    for name, runs in (("corpus import", imports), ("corpus validate", validates)):
        wall = median([s.wall for s in runs])
        rows.append(Row(name, size, wall, size / wall, "cases/s",
                        max(s.peak_mib for s in runs), fl, "csv.reader over every row",
                        cpu=median([s.cpu or 0.0 for s in runs]),
                        floor_cpu=median([s.cpu or 0.0 for s in floors])))
    return rows


_START = ("import sys; from rcaeval.tools import load_case_data; "
          "d = load_case_data(sys.argv[1]); d.data_range(); print(len(d.log_store))")
_SEARCH = ("import sys, tempfile; from rcaeval.tools import IncidentTools, load_case_data; "
           "t = IncidentTools(load_case_data(sys.argv[1]), tempfile.mkdtemp()); "
           "print(t.search_logs(pattern='region-id=4242[^0-9]')['total'], "
           "t.search_logs(min_level='ERROR', start='2026-10-03T14:30:00Z')['total'])")


def toolstart_workload(size: int, ctx: Any) -> list[Any]:
    """The tools' start-up on ``size`` MB of logs: the first start (builds the log index when
    the logs are at least RCAEVAL_LOG_INDEX_MIN_BYTES), later starts (reuse it), and a start
    plus two searches (a pattern over every line, a level and time filter)."""
    from bench._core import PY, Row, median, timed

    case = make_big_case(ctx.dir("toolstart"), size)
    cache = ctx.work / f"toolstart-cache-{size}"
    shutil.rmtree(cache, ignore_errors=True)
    env = {"RCAEVAL_CACHE_DIR": str(cache)}
    cold = timed([PY, "-c", _START, str(case)], env=env)
    runs, searches, floors, imports = [], [], [], []
    for _ in range(ctx.repeat):
        runs.append(timed([PY, "-c", _START, str(case)], env=env))
        searches.append(timed([PY, "-c", _SEARCH, str(case)], env=env))
        floors.append(timed([PY, "-m", "bench.bench_corpora", "floor-bytes", str(case)]))
        imports.append(timed([PY, "-c", "import rcaeval.tools, duckdb"]))
    rows = []
    for name, sample, floor, floor_name, note in (
            ("toolstart first", [cold], floors, "reading the files' bytes",
             "first start: parses every line (builds the index)"),
            ("toolstart", runs, imports, "importing rcaeval.tools and duckdb",
             "later starts: load_case_data + data_range"),
            ("toolstart+search", searches, imports, "importing rcaeval.tools and duckdb",
             "a later start, then a pattern search over every line and a level + time "
             "search")):
        wall = median([s.wall for s in sample])
        rows.append(Row(name, size, wall, size / wall, "MB/s",
                        max(s.peak_mib for s in sample), median([s.wall for s in floor]),
                        floor_name, note=note, cpu=median([s.cpu or 0.0 for s in sample]),
                        floor_cpu=median([s.cpu or 0.0 for s in floor])))
    return rows


if __name__ == "__main__":
    cmd, arg = sys.argv[1], sys.argv[2]
    {"floor-csv": _floor_csv, "floor-bytes": _floor_bytes}[cmd](arg)
