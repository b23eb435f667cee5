"""Writes the corpus fixtures under tests/corpora/data/ in the public corpora's exact layouts
(OpenRCA: Bank's query.csv / record.csv / telemetry/<date>/{metric,log,trace}/*.csv; RCAEval:
RE2-OB/<service>_<fault>/<n>/{metrics.csv,logs.csv,traces.csv,inject_time.txt}). The files are
committed; run this only to change them: python tests/corpora/corpora_kit.py"""

from __future__ import annotations

import csv
import random
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).parent / "data"
CST = timezone(timedelta(hours=8))
COMPONENTS = ["apache01", "Tomcat01", "Tomcat02", "Mysql02", "Redis01"]
KPIS = ["OSLinux-CPU_CPU_CPUCpuUtil", "OSLinux-OSLinux_MEMORY_MEMORY_MEMUsedMemPerc",
        "OSLinux-OSLinux_NETWORK_NETWORK_TCP-FIN-WAIT",
        "OSLinux-OSLinux_LOCALDISK_LOCALDISK-sdb_DSKRead"]
FAULT_KPI = {"high CPU usage": 0, "high memory usage": 1, "network latency": 2,
             "high disk I/O read usage": 3, "JVM Out of Memory (OOM) Heap": 1}
# (task_index, component, reason, CST datetime)
TASKS = [
    ("task_1", "Tomcat01", "high CPU usage", "2021-03-04 14:57:00"),
    ("task_3", "Mysql02", "high memory usage", "2021-03-04 16:12:00"),
    ("task_6", "Redis01", "network latency", "2021-03-04 17:40:00"),
    ("task_7", "apache01", "high disk I/O read usage", "2021-03-04 19:05:00"),
    ("task_4", "Tomcat02", "JVM Out of Memory (OOM) Heap", "2021-03-05 10:20:00"),
]
TEXT = {
    "task_1": ("On {day}, within the time range of {a} to {b}, a single failure was detected in "
               "the system. The exact time when the root cause occurred is unknown. Please "
               "identify the specific occurrence time of the root cause."),
    "task_3": ("Between {a} and {b} on {day}, the system experienced one failure. Please "
               "identify the root cause component."),
    "task_6": ("During {a} to {b} on {day}, one failure occurred. Identify the root cause "
               "component and the root cause reason."),
    "task_7": ("On {day} from {a} to {b}, one failure happened. Determine the root cause "
               "component, the exact occurrence time and the root cause reason."),
    "task_4": ("Within {a} to {b} on {day}, a failure was observed. Find when the root cause "
               "occurred and its reason."),
}
POINTS = {
    "time": "The only root cause occurrence time is within 1 minutes (i.e., <=1min) of {dt}",
    "reason": "The only predicted root cause reason is {reason}",
    "component": "The only predicted root cause component is {component}",
}
ASKS = {"task_1": ["time"], "task_3": ["component"], "task_6": ["component", "reason"],
        "task_7": ["component", "time", "reason"], "task_4": ["time", "reason"]}


def cst(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=CST)


def openrca() -> None:
    root = HERE / "openrca" / "Bank"
    shutil.rmtree(root, ignore_errors=True)
    (root / "telemetry").mkdir(parents=True)
    rnd = random.Random(7)
    with (root / "record.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["level", "component", "timestamp", "datetime", "reason"])
        for _, comp, reason, dt in TASKS:
            w.writerow(["pod", comp, int(cst(dt).timestamp()), dt, reason])
    with (root / "query.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["task_index", "instruction", "scoring_points"])
        for task, comp, reason, dt in TASKS:
            t = cst(dt)
            a = t.replace(minute=t.minute - t.minute % 30, second=0)
            b = a + timedelta(minutes=30)
            text = TEXT[task].format(day=t.strftime("%B %-d, %Y"), a=a.strftime("%H:%M"),
                                     b=b.strftime("%H:%M"))
            pts = "".join(POINTS[k].format(dt=dt, reason=reason, component=comp) + "\n"
                          for k in ASKS[task])
            w.writerow([task, text, pts])
    days: dict[str, list[tuple[str, str, datetime]]] = {}
    for _, comp, reason, dt in TASKS:
        days.setdefault(cst(dt).strftime("%Y_%m_%d"), []).append((comp, reason, cst(dt)))
    for day, faults in days.items():
        d = root / "telemetry" / day
        for sub in ("metric", "log", "trace"):
            (d / sub).mkdir(parents=True)
        first = min(t for _, _, t in faults)
        start = first.replace(minute=0, second=0) - timedelta(minutes=30)
        end = max(t for _, _, t in faults).replace(minute=0, second=0) + timedelta(hours=1)
        minutes = int((end - start).total_seconds() // 60)
        with (d / "metric" / "metric_container.csv").open("w", newline="") as mf, \
                (d / "metric" / "metric_app.csv").open("w", newline="") as af, \
                (d / "log" / "log_service.csv").open("w", newline="") as lf, \
                (d / "trace" / "trace_span.csv").open("w", newline="") as tf:
            mw, aw, lw, tw = csv.writer(mf), csv.writer(af), csv.writer(lf), csv.writer(tf)
            mw.writerow(["timestamp", "cmdb_id", "kpi_name", "value"])
            aw.writerow(["timestamp", "rr", "sr", "cnt", "mrt", "tc"])
            lw.writerow(["log_id", "timestamp", "cmdb_id", "log_name", "value"])
            tw.writerow(["timestamp", "cmdb_id", "parent_id", "span_id", "trace_id",
                         "duration"])
            for m in range(minutes):
                t = start + timedelta(minutes=m)
                ts = int(t.timestamp())
                active = [(c, r) for c, r, ft in faults if ft <= t < ft + timedelta(minutes=8)]
                for comp in COMPONENTS:
                    for k, kpi in enumerate(KPIS):
                        v = 20.0 + rnd.random() * 5
                        if any(c == comp and FAULT_KPI[r] == k for c, r in active):
                            v = 95.0 + rnd.random() * 3
                        mw.writerow([ts, comp, kpi, round(v, 4)])
                aw.writerow([ts, 100.0, 100.0 if not active else 91.5,
                             22 + rnd.randrange(5), round(50 + rnd.random() * 10, 2),
                             "ServiceTest1"])
                for comp in COMPONENTS:
                    if m % 5 == 0:
                        lw.writerow([f"{rnd.getrandbits(64):016x}", ts + 1, comp, "gc",
                                     f"{ts % 100000}.580: [GC (Allocation Failure) "
                                     "ParNew: 2462269K->12345K, 0.0198 secs]"])
                    if any(c == comp for c, _ in active) and m % 2 == 0:
                        lw.writerow([f"{rnd.getrandbits(64):016x}", ts + 2, comp, "catalina",
                                     f"ERROR {comp} request handling failed: upstream "
                                     "timeout after 3000 ms"])
                tw.writerow([ts * 1000 + 628, "dockerA2", f"{rnd.getrandbits(40):x}-parent",
                             f"{rnd.getrandbits(64)}", f"gw01{ts}", 19 + rnd.randrange(10)])


def rcaeval() -> None:
    root = HERE / "rcaeval" / "RE2-OB"
    shutil.rmtree(root, ignore_errors=True)
    services = ["frontend", "cartservice", "checkoutservice", "currencyservice"]
    cases = [("cartservice", "cpu", 1, 1700000600), ("currencyservice", "mem", 1, 1700100600)]
    rnd = random.Random(11)
    for svc, fault, n, inject in cases:
        d = root / f"{svc}_{fault}" / str(n)
        d.mkdir(parents=True)
        (d / "inject_time.txt").write_text(f"{inject}\n")
        metric = {"cpu": "cpu", "mem": "mem"}[fault]
        with (d / "metrics.csv").open("w", newline="") as mf:
            w = csv.writer(mf)
            cols = [f"{s}_{m}" for s in services for m in ("cpu", "mem", "latency-90")]
            w.writerow(["time", *cols])
            for t in range(inject - 600, inject + 600, 10):
                row = []
                for c in cols:
                    s, _, m = c.partition("_")
                    v = 0.2 + rnd.random() * 0.05
                    if s == svc and m == metric and t >= inject:
                        v = 0.9 + rnd.random() * 0.05
                    row.append(round(v, 5))
                w.writerow([t, *row])
        with (d / "logs.csv").open("w", newline="") as lf:
            w = csv.writer(lf)
            w.writerow(["time", "timestamp", "container_name", "message", "level", "req_path",
                        "error"])
            for t in range(inject - 600, inject + 600, 30):
                for s in services:
                    msg, lvl = f"{s} served request in {rnd.randrange(5, 40)}ms", "info"
                    if s == svc and t >= inject:
                        msg, lvl = f"{s} request failed: deadline exceeded", "error"
                    w.writerow([t, t * 1_000_000_000, s, msg, lvl, "/cart", ""])
        with (d / "traces.csv").open("w", newline="") as tf:
            w = csv.writer(tf)
            w.writerow(["time", "traceID", "spanID", "serviceName", "methodName",
                        "operationName", "startTimeMillis", "startTime", "duration",
                        "statusCode", "parentSpanID"])
            for t in range(inject - 600, inject + 600, 60):
                tid = f"{rnd.getrandbits(64):016x}"
                w.writerow([t, tid, f"{rnd.getrandbits(32):08x}", "frontend", "GET", "/cart",
                            t * 1000, t * 1_000_000, 12000, 200, ""])


if __name__ == "__main__":
    openrca()
    rcaeval()
