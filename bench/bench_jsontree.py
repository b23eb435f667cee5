"""Would DuckDB's ``json_tree`` build ``raw_json`` cheaper than Python does? Measures both.

    .venv/bin/python -m bench.bench_jsontree --runs DIR/recorded      # generated runs
    .venv/bin/python -m bench.bench_jsontree --sizes 10,100,1000,10000

Not a test. Two measurements, median CPU seconds of 5 repeats in this one process (DuckDB
on one thread):

  sizes  json_tree's cost per row against the size of the document it walks: the columns a
         ``raw_json`` row needs (``fullkey``, ``path``, ``atom``) over ``{"a": [{"k": i,
         "v": "i"}, ...]}`` documents of N members, ~100,000 rows per size.
  runs   every JSON document of the run dirs under DIR (``rcaeval synth runs`` output, or any
         audits root), flattened into ``raw_json`` rows three ways: extraction's own code
         (orjson parse, ``json_rows`` with the bulk containers elided, Arrow columns);
         ``json_tree`` over the file texts as read (every value walked, then elided rows
         dropped); and ``json_tree`` over texts with the elided containers emptied first
         (orjson re-dumps them), which walks only the rows kept. Rows per way are printed:
         the first and third agree by construction, the second walks more.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from rcaeval.extract._case import EVIDENCE_KINDS
from rcaeval.extract._jsonflat import bulk_paths, json_columns, json_rows

_TREE = Path(__file__).resolve().parent / "sql" / "json_tree_rows.sql"


def _con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET threads = 1")  # CPU seconds of this process = DuckDB's
    return con


REPEAT = 5
"""Each figure is the median CPU time of this many repeats (the machine is shared)."""


def _median_cpu(step: Any) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(REPEAT):
        t0 = time.process_time()
        out = step()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def _tree_cpu(con: duckdb.DuckDBPyConnection, texts: list[str]) -> tuple[float, int]:
    con.register("bench_docs", pa.table({"doc": range(len(texts)), "text": texts}))
    query = _TREE.read_text(encoding="utf-8")
    cpu, rows = _median_cpu(lambda: con.sql(query).to_arrow_table().num_rows)
    con.unregister("bench_docs")
    return cpu, rows


def sizes(ns: list[int]) -> list[dict[str, Any]]:
    con = _con()
    out = []
    for n in ns:
        doc = orjson.dumps({"a": [{"k": i, "v": str(i)} for i in range(n)]}).decode()
        cpu, rows = _tree_cpu(con, [doc] * max(1, 100_000 // (3 * n + 2)))
        out.append({"members": n, "rows": rows, "cpu_s": round(cpu, 3),
                    "us_per_row": round(cpu / rows * 1e6, 2)})
    return out


def _emptied(obj: Any, elide: frozenset[str]) -> Any:
    """``obj`` with each elided container (bulk_paths' three forms) replaced by an empty one."""
    if not elide:
        return obj
    out = dict(obj)
    if "$.entries" in elide:
        out["entries"] = []
    if "$.seals" in elide:
        out["seals"] = {}
    if isinstance(out.get("series"), list):
        out["series"] = [dict(s, points=[]) if f"$.series[{i}].points" in elide else s
                         for i, s in enumerate(out["series"])]
    return out


def runs(root: Path) -> dict[str, Any]:
    paths = sorted(p for p in root.rglob("*.json") if p.is_file() and not p.is_symlink())
    raw = [p.read_bytes() for p in paths]

    def python() -> int:
        rows = 0
        for p, data in zip(paths, raw, strict=True):
            obj = orjson.loads(data)
            flat = json_rows(obj, elide=bulk_paths(EVIDENCE_KINDS.get(p.name, "x"), obj))
            json_columns(flat)
            rows += len(flat) // 8
        return rows

    def emptied() -> list[str]:
        texts = []
        for p, data in zip(paths, raw, strict=True):
            obj = orjson.loads(data)
            elide = bulk_paths(EVIDENCE_KINDS.get(p.name, "x"), obj)
            texts.append(orjson.dumps(_emptied(obj, elide)).decode("utf-8"))
        return texts

    py_cpu, py_rows = _median_cpu(python)
    con = _con()
    whole_cpu, whole_rows = _tree_cpu(con, [d.decode("utf-8") for d in raw])
    prep, texts = _median_cpu(emptied)
    kept_cpu, kept_rows = _tree_cpu(con, texts)
    return {"documents": len(paths), "bytes": sum(map(len, raw)),
            "python": {"rows": py_rows, "cpu_s": round(py_cpu, 3)},
            "json_tree, every value": {"rows": whole_rows, "cpu_s": round(whole_cpu, 3)},
            "json_tree, elided emptied": {"rows": kept_rows,
                                          "cpu_s": round(kept_cpu + prep, 3),
                                          "of which orjson re-dump": round(prep, 3)}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=Path, help="a dir of run dirs (e.g. synth runs' recorded/)")
    ap.add_argument("--sizes", default="", help="comma-separated member counts")
    args = ap.parse_args(argv)
    if args.sizes:
        for row in sizes([int(x) for x in args.sizes.split(",")]):
            print(orjson.dumps(row).decode())
    if args.runs:
        print(orjson.dumps(runs(args.runs), option=orjson.OPT_INDENT_2).decode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
