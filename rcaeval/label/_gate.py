"""The judge regression gate (docs/calibration.md, "The judge gate"): judge the labelled case
runs again with the current registry and judge, in a scratch copy of the store, and compare
their agreement with people against what a recorded judge version achieved."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rcaeval._paths import read_query
from rcaeval.errors import NotFoundError
from rcaeval.label._agreement import Agreement, compute, judge_side, prepare
from rcaeval.stats import DEFAULT_CONFIDENCE
from rcaeval.store import Store

MIN_PAIRS = 5
"""A row (level total or item) takes part in the gate only with at least this many labelled
pairs on the baseline side: below it the baseline's interval is too wide to mean anything."""


@dataclass(frozen=True)
class GateResult:
    """``rows``: every compared level total and item with the baseline's raw agreement and
    its lower Wilson bound, the current raw agreement, and ``dropped`` (current below the
    bound). ``failed`` when any row dropped."""

    baseline_version: str
    current: Agreement
    baseline: Agreement
    rows: pl.DataFrame

    @property
    def failed(self) -> bool:
        return bool(self.rows["dropped"].any()) if self.rows.height else False


def _versions(store: Store) -> list[str]:
    return store.con.sql(read_query("label/baseline_versions.sql")).pl()[
        "judge_version"].to_list()


def gate(store: Store, baseline_version: str, *, registry: str | Path | None = None,
         run_id: str | None = None, min_pairs: int = MIN_PAIRS,
         confidence: float = DEFAULT_CONFIDENCE) -> GateResult:
    """Judge the labelled case runs of ``store`` (of ``run_id``; ``None``: every run) again
    against ``registry`` with this rcaeval's judge, in a scratch copy (the store is not
    changed), and compare with the values recorded under ``baseline_version``
    (:func:`rcaeval.label.record_baseline`). A level total or item with at least
    ``min_pairs`` baseline pairs drops when the current raw agreement is below the lower
    Wilson bound (at ``confidence``) of the baseline's raw agreement on the same case runs."""
    from rcaeval.judge import rejudge_store
    from rcaeval.store import connect

    if baseline_version not in _versions(store):
        known = ", ".join(_versions(store)) or "none"
        raise NotFoundError(f"no baseline recorded for judge {baseline_version!r} (recorded: "
                            f"{known}); record one with `rcaeval label baseline`")
    labels = prepare(store, run_id=run_id)
    if not labels:
        raise NotFoundError("no labels to gate on" + (f" in run {run_id!r}" if run_id else "")
                            + " (import a sheet with `rcaeval label import`)")
    judge_side(store, baseline_version=baseline_version)
    base = compute(store, baseline_version, labels, confidence)
    runs = store.con.sql(read_query("label/labelled_runs.sql")).pl()["run_id"].to_list()
    with tempfile.TemporaryDirectory(prefix="rcaeval-label-gate-") as tmp:
        store.export_parquet(Path(tmp) / "parquet")
        with connect(Path(tmp) / "scratch.duckdb") as scratch:
            scratch.import_parquet(Path(tmp) / "parquet", mode="replace")
            # one pass over every run costs about what one run does (rules load once)
            rejudge_store(scratch, registry, run_id=runs[0] if len(runs) == 1 else None,
                          write_files=False)
            prepare(scratch, run_id=run_id)
            judge_side(scratch)
            scratch.con.execute(read_query("label/judge_restrict.sql"),
                                {"judge_version": baseline_version})
            cur = compute(scratch, "current", labels, confidence)
    keys = ["level", "item"]
    b = base.table.select(*keys, pl.col("n").alias("baseline_n"),
                          pl.col("agreement").alias("baseline_agreement"),
                          pl.col("agreement_low").alias("baseline_low"))
    c = cur.table.select(*keys, pl.col("n").alias("current_n"),
                         pl.col("agreement").alias("current_agreement"))
    rows = (b.join(c, on=keys, how="inner", nulls_equal=True)
            .filter(pl.col("baseline_n") >= min_pairs)
            .with_columns((pl.col("current_agreement") < pl.col("baseline_low"))
                          .alias("dropped"))
            .sort("dropped", descending=True, maintain_order=True))
    return GateResult(baseline_version=baseline_version, current=cur, baseline=base,
                      rows=rows)
