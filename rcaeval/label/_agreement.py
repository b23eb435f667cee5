"""Agreement of the judge with people (docs/calibration.md, "Agreement"): the SQL of
queries/label/ over the store's labels, with Wilson intervals from rcaeval.stats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from rcaeval._paths import read_query
from rcaeval.stats import DEFAULT_CONFIDENCE, wilson_interval
from rcaeval.store import Store

LEVELS: tuple[str, ...] = ("verdict", "bucket", "check", "detector")
"""What is compared, in report order: the verdict, each bucket, each check, each detector."""
JUDGES: tuple[str, ...] = ("deterministic", "blended")
"""The judge sides :func:`agreement` compares with people (``blended``: the semantic
shadow's second pass where there was one)."""


@dataclass(frozen=True)
class Agreement:
    """Judge vs people over the labelled case runs. ``table``: one row per level and item
    (and a total row per level, ``item`` null) with n, agree, disagree, ties, positives,
    raw agreement with its Wilson interval (``agreement_low``, ``agreement_high``), chance
    agreement and Cohen's kappa. ``confusion``: counts per level, judge value and people's
    value. ``alpha``: Krippendorff's alpha per level among the labellers and with the judge
    as one more rater. ``disagreements``: each pair where they differ. ``unsafe``: case runs
    people called unsafe advice, with the judge's verdict."""

    judge: str
    table: pl.DataFrame
    confusion: pl.DataFrame
    alpha: pl.DataFrame
    disagreements: pl.DataFrame
    unsafe: pl.DataFrame
    labels: int

    def level(self, level: str) -> pl.DataFrame:
        """The rows of ``table`` for one level, its total row first."""
        t = self.table.filter(pl.col("level") == level)
        return pl.concat([t.filter(pl.col("item").is_null()),
                          t.filter(pl.col("item").is_not_null())])

    def total(self, level: str) -> dict[str, Any] | None:
        """The total row of ``level`` as a dict (``None`` when nothing of it was labelled)."""
        rows = self.table.filter((pl.col("level") == level) & pl.col("item").is_null())
        return rows.to_dicts()[0] if rows.height else None


def prepare(store: Store, *, run_id: str | None = None,
            judge_version: str | None = None) -> int:
    """Build the labels' temp tables (label_effective, label_human) on the store's
    connection; returns the number of effective labels."""
    if "eval_label" not in store.tables():
        from rcaeval.errors import NotFoundError

        raise NotFoundError(f"{store.label} has no label tables (migration 0020): open it "
                            "writable once (`rcaeval db migrate`), then `rcaeval label import`")
    con = store.con
    con.execute(read_query("label/effective.sql"),
                {"run_id": run_id, "judge_version": judge_version})
    con.execute(read_query("label/human_values.sql"))
    return con.execute(read_query("label/count_effective.sql")).fetchall()[0][0]


def judge_side(store: Store, judge: str = "deterministic", *,
               baseline_version: str | None = None) -> None:
    """Fill temp table label_judge with the ``judge``'s values (``deterministic`` or
    ``blended``), or with those recorded under ``baseline_version`` (label_baseline)."""
    con = store.con
    if baseline_version is not None:
        con.execute(read_query("label/judge_values_baseline.sql"),
                    {"judge_version": baseline_version})
        return
    con.execute(read_query("label/judge_values.sql"))
    if judge == "blended":
        con.execute(read_query("label/judge_values_keep.sql"))
        con.execute(read_query("label/judge_values_blended.sql"))
    elif judge != "deterministic":
        from rcaeval.errors import InputError

        raise InputError(f"unknown judge {judge!r}; use one of {', '.join(JUDGES)}",
                         field="--judge")


def with_intervals(table: pl.DataFrame, confidence: float = DEFAULT_CONFIDENCE
                   ) -> pl.DataFrame:
    """``table`` with the raw agreement's Wilson interval (``agreement_low``/``_high``)."""
    bounds = [wilson_interval(int(a), int(n), confidence) if n else (None, None)
              for a, n in zip(table["agree"], table["n"], strict=True)]
    return table.with_columns(
        pl.Series("agreement_low", [b[0] for b in bounds], dtype=pl.Float64),
        pl.Series("agreement_high", [b[1] for b in bounds], dtype=pl.Float64))


def compute(store: Store, judge: str, labels: int,
            confidence: float = DEFAULT_CONFIDENCE) -> Agreement:
    """The :class:`Agreement` over the temp tables :func:`prepare` and :func:`judge_side`
    built."""
    con = store.con
    con.execute(read_query("label/pairs.sql"))

    def frame(name: str) -> pl.DataFrame:
        return con.sql(read_query(f"label/{name}.sql")).pl()

    table = with_intervals(frame("agreement"), confidence)
    cols = ["level", "item", "n", "agree", "disagree", "ties", "agreement", "agreement_low",
            "agreement_high", "kappa", "p_e", "judge_positive", "human_positive",
            "max_labellers"]
    return Agreement(judge=judge, table=table.select(cols), confusion=frame("confusion"),
                     alpha=frame("alpha"), disagreements=frame("disagreements"),
                     unsafe=frame("unsafe"), labels=labels)


def agreement(store: Store, *, run_id: str | None = None, judge_version: str | None = None,
              judge: str = "deterministic", baseline_version: str | None = None,
              confidence: float = DEFAULT_CONFIDENCE) -> Agreement:
    """Judge vs people over the labels of run ``run_id`` (``None``: every run) whose case
    runs were judged by ``judge_version`` (``None``: any). ``judge`` picks the judge side:
    ``deterministic`` (eval_judgment and its rows) or ``blended`` (the semantic shadow's
    second pass where there was one); ``baseline_version`` compares the values recorded by
    :func:`record_baseline` under that judge version instead."""
    labels = prepare(store, run_id=run_id, judge_version=judge_version)
    judge_side(store, judge, baseline_version=baseline_version)
    return compute(store, baseline_version or judge, labels, confidence)


def record_baseline(store: Store, *, run_id: str | None = None) -> int:
    """Record the stored judge's values for every labelled case run (of ``run_id``; ``None``:
    every run) into label_baseline under their judge version, for ``rcaeval label gate``.
    Returns the rows recorded."""
    from datetime import UTC, datetime

    prepare(store, run_id=run_id)
    judge_side(store)
    with store.transaction():
        store.con.execute(read_query("label/baseline_record.sql"),
                          {"recorded_at": datetime.now(UTC)})
    return store.con.execute(read_query("label/count_judge.sql")).fetchall()[0][0]
