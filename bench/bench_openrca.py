"""Benchmark OpenRCA scoring: the archived runs in data/external/openrca repeated to N rows.

    .venv/bin/python bench/bench_openrca.py --rows 50000
    .venv/bin/python bench/bench_openrca.py --rows 50000 --openrca /path/to/OpenRCA

Times, best of ``--repeat``:

* ``rcaeval scoring``: parse the scoring points and the predictions and score every row, in
  memory, the like-for-like counterpart of calling OpenRCA's ``evaluate`` on every row;
* ``rcaeval end to end``: ``score_openrca`` from the two CSV files to the scores CSV and the
  summary (CSV reading and validation, query parsing, scoring, the SQL metrics, writing);
* with ``--openrca``: OpenRCA's own ``evaluate(prediction, scoring_points)`` called on every row
  in the same process, and a check that both give the same score on every row.

``--openrca`` is a checkout of github.com/microsoft/OpenRCA, its ``main/evaluate.py``, or a bare
git directory of it (``main/evaluate.py`` is read from HEAD). Its code is loaded from there at
run time and never copied into this repository. (OpenRCA's ``file_evaluate`` wrapper is not
timed: it needs pandas and grows its report with one ``pd.concat`` per row, which is
quadratic; the per-row ``evaluate`` is the fair comparison.)

As the workload ``openrca:N`` of ``python -m bench`` (``--openrca PATH`` or ``$OPENRCA_SRC``)
each repeat is one child process running ours, then OpenRCA's, so the two alternate.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import polars as pl

from rcaeval.offline import score_openrca
from rcaeval.offline._openrca import Query, score_frame
from rcaeval.offline._openrca_rules import parse_points_column
from rcaeval.offline._tables import Table

DATA = Path(__file__).resolve().parents[1] / "data" / "external" / "openrca"


def _rows() -> list[tuple[str, str, str, str, str]]:
    """(task_index, instruction, scoring_points, prediction) of every archived row."""
    out = []
    for system in ("Bank", "Telecom"):
        with (DATA / system / "query.csv").open(newline="", encoding="utf-8") as fh:
            query = {r["row_id"]: r for r in csv.DictReader(fh)}
        with (DATA / system / "predictions.csv").open(newline="", encoding="utf-8") as fh:
            preds = {r["row_id"]: r["prediction"] for r in csv.DictReader(fh)}
        for rid, q in query.items():
            out.append((q["task_index"], q["instruction"], q["scoring_points"], preds[rid],
                        system))
    return out


def write_inputs(n: int, tmp: Path) -> tuple[Path, Path, list[tuple[str, str]]]:
    base = _rows()
    rows = [base[i % len(base)] for i in range(n)]
    query, preds = tmp / "query.csv", tmp / "predictions.csv"
    with query.open("w", newline="", encoding="utf-8") as fq, \
            preds.open("w", newline="", encoding="utf-8") as fp:
        wq, wp = csv.writer(fq), csv.writer(fp)
        wq.writerow(["row_id", "task_index", "instruction", "scoring_points"])
        wp.writerow(["row_id", "prediction"])
        for i, (task, instr, points, pred, _) in enumerate(rows):
            wq.writerow([i, task, instr, points])
            wp.writerow([i, pred])
    return query, preds, [(r[3], r[2]) for r in rows]


def load_openrca(path: Path, tmp: Path) -> ModuleType:
    """OpenRCA's evaluate module from a checkout, the file itself, or a bare git dir."""
    if path.is_file():
        source = path
    elif (path / "main" / "evaluate.py").is_file():
        source = path / "main" / "evaluate.py"
    else:
        text = subprocess.run(["git", "--git-dir", str(path), "show", "HEAD:main/evaluate.py"],
                              check=True, capture_output=True, text=True).stdout
        source = tmp / "openrca_evaluate.py"
        source.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("openrca_evaluate", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def workload(size: int, ctx: Any) -> list[Any]:
    """``openrca:N``: rcaeval end to end (CSV in -> scores + summary) against OpenRCA's own
    ``evaluate`` per row, side by side in each child process."""
    import os

    from bench._core import Row, last_json, median, timed

    src = ctx.options.get("openrca") or os.environ.get("OPENRCA_SRC")
    cmd = [sys.executable, "-m", "bench.bench_openrca", "--rows", str(size), "--repeat", "1",
           "--json"] + (["--openrca", str(src)] if src else [])
    samples = [timed(cmd) for _ in range(ctx.repeat)]
    docs = [last_json(s.out) for s in samples]
    e2e = median([d["end_to_end_s"] for d in docs])
    score = median([d["scoring_s"] for d in docs])
    theirs = median([d["openrca_s"] for d in docs]) if src else None
    note = f"scoring alone {score:.3f} s" + (
        f"; rows scored differently: {max(d['differ'] for d in docs)}" if src else
        "; OpenRCA evaluator not given (--openrca PATH or $OPENRCA_SRC): no floor")
    return [Row("openrca", size, e2e, size / e2e, "rows/s", max(s.peak_mib for s in samples),
                theirs, "floor: OpenRCA's evaluate() per row, same process" if src else "",
                note, {"scoring_s": score})]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--openrca", type=Path, default=None,
                    help="OpenRCA checkout, its main/evaluate.py, or a bare git dir of it")
    ap.add_argument("--json", action="store_true", help="print one JSON line of figures")
    args = ap.parse_args(argv)
    figures: dict[str, Any] = {"rows": args.rows}
    with tempfile.TemporaryDirectory(prefix="bench_openrca_") as tmp_s:
        tmp = Path(tmp_s)
        query, preds, pairs = write_inputs(args.rows, tmp)
        print(f"rows: {args.rows} (the {len(_rows())} archived Bank + Telecom rows repeated); "
              f"python {sys.version.split()[0]}")
        texts = pl.Series([p for p, _ in pairs], dtype=pl.Utf8)
        points = pl.Series([sp for _, sp in pairs], dtype=pl.Utf8)

        def in_memory() -> pl.DataFrame:
            comps, reasons, times = parse_points_column(points.to_list())
            parsed = Query(Table(query, pl.DataFrame()), list(range(len(pairs))),
                           ["task"] * len(pairs), comps, reasons, times)
            return score_frame(parsed, texts)

        t_score, scores = best_of(args.repeat, in_memory)
        figures["scoring_s"] = t_score
        print(f"rcaeval scoring (parse + score, in memory): {t_score:8.3f} s  "
              f"{args.rows / t_score:10.0f} rows/s")
        out = tmp / "scores.csv"
        t_e2e, result = best_of(args.repeat, lambda: score_openrca(query, preds, out))
        figures["end_to_end_s"] = t_e2e
        print(f"rcaeval end to end (CSV in -> CSV + summary): {t_e2e:6.3f} s  "
              f"{args.rows / t_e2e:10.0f} rows/s")
        s = result.summary
        print(f"  summary: rows {s.rows}, strict {s.strict.hits}, partial {s.partial.hits}, "
              f"mean {s.mean:.4f}")
        if args.openrca is not None:
            evaluate = load_openrca(args.openrca, tmp).evaluate
            t_up, theirs = best_of(args.repeat,
                                   lambda: [evaluate(p, sp)[2] for p, sp in pairs])
            print(f"OpenRCA evaluate() per row:                  {t_up:8.3f} s  "
                  f"{args.rows / t_up:10.0f} rows/s")
            ours = scores["score"].to_list()
            diff = sum(1 for a, b in zip(ours, theirs, strict=True) if a != b)
            figures.update(openrca_s=t_up, differ=diff)
            print(f"speed-up: scoring {t_up / t_score:.2f}x, end to end {t_up / t_e2e:.2f}x; "
                  f"rows whose score differs: {diff}")
            if diff:
                return 1
        if args.json:
            import orjson

            print(orjson.dumps(figures).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
