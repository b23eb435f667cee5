"""Chart data aggregated in DuckDB (queries/charts/*.sql): counts and rates per group, so the
charts draw a handful of aggregated rows instead of raw judgments."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

from rcaeval._paths import read_query
from rcaeval._vocab import VERDICTS
from rcaeval.store import Connectable


def _run_ids(run_ids: str | Iterable[str]) -> list[str]:
    return [run_ids] if isinstance(run_ids, str) else list(run_ids)


def _frame(con: Connectable, name: str, run_ids: str | Iterable[str]) -> pl.DataFrame:
    db = getattr(con, "con", con)  # a Store or a DuckDB connection
    return db.sql(read_query(f"charts/{name}.sql"), params={"run_ids": _run_ids(run_ids)}).pl()


def verdict_counts(con: Connectable, run_ids: str | Iterable[str],
                   by: Sequence[str] = ("case_type",)) -> pl.DataFrame:
    """Cases per verdict for ``run_ids`` grouped by ``by`` (any of ``run_id``, ``agent_name``,
    ``case_type``):
    one row per group, one integer column per verdict (pass, fail, invalid; 0 when none) and
    ``total``. ``by=()`` gives a single row over all the runs' cases."""
    df = _frame(con, "verdicts", run_ids)
    keys = list(by)
    wide = [pl.col("cases").filter(pl.col("verdict") == v).sum().cast(pl.Int64).alias(v)
            for v in VERDICTS]
    if keys:
        out = df.group_by(keys).agg(*wide).sort(keys)
    else:
        out = df.select(*wide)
    return out.with_columns(pl.sum_horizontal(list(VERDICTS)).cast(pl.Int64).alias("total"))


def verdict_long(con: Connectable, run_ids: str | Iterable[str]) -> pl.DataFrame:
    """Cases per (run, agent name, case type, verdict): the long form :func:`verdict_chart`
    draws."""
    return _frame(con, "verdicts", run_ids)


def bucket_pass_rates(con: Connectable, run_ids: str | Iterable[str],
                      by: Sequence[str] = ("bucket",)) -> pl.DataFrame:
    """Bucket pass rates for ``run_ids`` grouped by ``by`` (any of ``run_id``, ``agent_name``,
    ``case_type``, ``bucket``): ``cases``, ``passed`` (bucket status ``pass``) and
    ``pass_rate`` (0..1)."""
    df = _frame(con, "bucket_rates", run_ids)
    keys = list(by)
    out = (df.group_by(keys).agg(pl.col("cases").sum().cast(pl.Int64),
                                 pl.col("passed").sum().cast(pl.Int64))
           if keys else df.select(pl.col("cases").sum().cast(pl.Int64),
                                  pl.col("passed").sum().cast(pl.Int64)))
    out = out.with_columns((pl.col("passed") / pl.col("cases")).alias("pass_rate"))
    return out.sort(keys) if keys else out


def case_scores(con: Connectable, run_ids: str | Iterable[str]) -> pl.DataFrame:
    """One row per (run, case): ``agent_name``, ``case_type``, ``verdict`` and ``score``."""
    return _frame(con, "scores", run_ids)


def paired_cases(con: Connectable, run_a: str, run_b: str) -> pl.DataFrame:
    """The cases judged in both runs, paired (queries/charts/paired.sql): ``verdict_a/_b``,
    ``score_a/_b``, ``score_delta`` (b - a), ``pass_a/_b``. Feed ``pass_a``/``pass_b`` to
    :func:`rcaeval.stats.mcnemar_paired`."""
    db = getattr(con, "con", con)
    return db.sql(read_query("charts/paired.sql"),
                  params={"run_a": run_a, "run_b": run_b}).pl()
