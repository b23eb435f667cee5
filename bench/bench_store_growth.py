"""How a judge's memory grows with the store, without judging (not a test).

Replays the raw and eval rows of a judged store (``--source``, e.g. 1,000 generated runs judged
by ``rcaeval judge``) into a fresh store file ``--chunks`` times, shaped as a bulk judge writes
them: first every extraction batch's raw rows (one transaction and one checkpoint each), then
per judging chunk what the judge does with the store between its SQL passes: copy the chunk's
raw rows into TEMP tables by ``bundle_seq`` range (as judge/chunk_input.sql does), delete the
chunk's keys from the eval tables and insert its eval rows in one transaction (as the judge's
[write] phase does), drop the TEMP tables, checkpoint and give cached blocks back
(``rcaeval.store.release_cache``). Each copy gets its own run ids and ``bundle_seq`` range.

It prints the process's resident memory (and its high-water mark) after every step, so what
grows with the store (row group metadata, a checkpoint's vacuum merge) shows without the
judge's own memory on top:

    .venv/bin/python -m bench.bench_store_growth --source S.duckdb --chunks 100 \\
        [--plain-checkpoint] [--row-group-size N] [--no-vacuum] [--no-delete]

``--plain-checkpoint`` checkpoints with a bare ``CHECKPOINT`` under the store's own memory
limit (1GB, as ``rcaeval judge``) instead of ``rcaeval.store.checkpoint``'s lower one;
``--row-group-size`` attaches the store file with DuckDB's ``ROW_GROUP_SIZE`` option (default:
DuckDB's 122,880 rows); ``--no-vacuum`` checkpoints with ``max_vacuum_tasks = 0``;
``--no-delete`` inserts a chunk's eval rows without deleting its keys first.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import duckdb

import rcaeval.store as st

RAW_LEAD = "raw_"
EVAL_TABLES = ("eval_fact", "eval_check", "eval_detector_hit", "eval_bucket",
               "eval_trajectory_tool", "eval_trajectory", "eval_judgment", "eval_case_runs")


def _rss_mib() -> tuple[int, int]:
    rss = 0
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                rss = int(line.split()[1]) // 1024
    return rss, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _tables(con: duckdb.DuckDBPyConnection) -> tuple[list[str], list[str]]:
    names = [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = 'src'"
        " ORDER BY table_name").fetchall()]
    raw = [t for t in names if t.startswith(RAW_LEAD)]
    return raw, [t for t in EVAL_TABLES if t in names]


def _copy(con: duckdb.DuckDBPyConnection, table: str, i: int, span: int) -> None:
    cols = [r[0] for r in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = 'src'"
        " AND table_name = ? ORDER BY column_index", [table]).fetchall()]
    sel = ", ".join(
        f"run_id || '-c{i}'" if c == "run_id"
        else f"bundle_seq + {i * span}" if c == "bundle_seq" else f'"{c}"' for c in cols)
    con.execute(f'INSERT INTO "{table}" SELECT {sel} FROM src."{table}"')


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("/tmp/store-growth.duckdb"))
    ap.add_argument("--chunks", type=int, default=100)
    ap.add_argument("--row-group-size", type=int, default=None)
    ap.add_argument("--no-vacuum", action="store_true")
    ap.add_argument("--plain-checkpoint", action="store_true")
    ap.add_argument("--no-delete", action="store_true")
    args = ap.parse_args(argv)
    for p in (args.out, Path(f"{args.out}.wal")):
        p.unlink(missing_ok=True)
    if args.row_group_size:  # the file attached with its row group size, then migrated
        con = duckdb.connect(":memory:growth")
        con.execute(f"ATTACH ? AS growth (ROW_GROUP_SIZE {args.row_group_size})",
                    [str(args.out)])
        con.execute("USE growth")
        con.execute(f"SET temp_directory = '{args.out}.tmp'")
    else:
        con = duckdb.connect(str(args.out))
    st.pin_utc(con)
    con.execute("SET memory_limit = '1GB'")
    con.execute("ATTACH ? AS src (READ_ONLY)", [str(args.source)])

    def checkpoint() -> None:
        if args.plain_checkpoint:
            con.execute("CHECKPOINT")
        else:
            st.checkpoint(con)
    raw, evals = _tables(con)
    span = con.execute("SELECT max(bundle_seq) + 1 FROM src.raw_bundle").fetchall()[0][0]
    if args.no_vacuum:
        con.execute("SET max_vacuum_tasks = 0")
    start = time.perf_counter()
    for t in raw + evals:  # empty copies of the source's tables
        con.execute(f'DROP TABLE IF EXISTS "{t}"')
        con.execute(f'CREATE TABLE "{t}" AS FROM src."{t}" LIMIT 0')
    print(f"row_group_size {args.row_group_size or 'default'}, "
          f"vacuum {'off' if args.no_vacuum else 'on'}, "
          f"checkpoint {'plain' if args.plain_checkpoint else 'rcaeval.store.checkpoint'}, "
          f"{args.chunks} chunks of {span} case runs")
    for i in range(args.chunks):  # extraction: every batch's raw rows
        with st.transaction(con):
            for t in raw:
                _copy(con, t, i, span)
        checkpoint()
        st.release_cache(con)
        if i % 10 == 9 or i == args.chunks - 1:
            print("extract {:3d}  rss {:5d}  hwm {:5d}".format(i + 1, *_rss_mib()), flush=True)
    with st.checkpoints_deferred(con):
        for i in range(args.chunks):  # judging: per chunk, its raw rows in, its eval rows out
            lo, hi = i * span, (i + 1) * span - 1
            for t in raw:
                con.execute(f'CREATE OR REPLACE TEMP TABLE "j_{t}" AS SELECT * FROM "{t}"'
                            f" WHERE bundle_seq BETWEEN {lo} AND {hi}")
            with st.transaction(con):
                if not args.no_delete:  # as judge/delete_scope.sql: the chunk's keys first
                    con.execute("CREATE OR REPLACE TEMP TABLE j_keys AS SELECT run_id || "
                                f"'-c{i}' AS run_id, case_id FROM src.eval_judgment")
                    for t in evals:
                        con.execute(f'DELETE FROM "{t}" WHERE (run_id, case_id) IN'
                                    " (SELECT run_id, case_id FROM j_keys)")
                for t in evals:
                    _copy(con, t, i, span)
            for t in raw:
                con.execute(f'DROP TABLE "j_{t}"')
            checkpoint()
            st.release_cache(con)
            print("judge   {:3d}  rss {:5d}  hwm {:5d}".format(i + 1, *_rss_mib()), flush=True)
    groups = con.execute("SELECT count(*) FROM (SELECT DISTINCT row_group_id"
                         " FROM pragma_storage_info('eval_judgment'))").fetchall()
    print(f"done in {time.perf_counter() - start:.0f} s; eval_judgment row groups {groups}; "
          "rss %d hwm %d" % _rss_mib())
    con.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
