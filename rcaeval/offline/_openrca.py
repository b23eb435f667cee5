"""OpenRCA scoring of whole files: read an OpenRCA query file and a predictions file, score
every row by OpenRCA's rules (:mod:`rcaeval.offline._openrca_rules`), write the per-row scores
and summarise them through the named SQL metrics ``openrca_*`` (``queries/metrics/``).

    from rcaeval.offline import score_openrca
    result = score_openrca("query.csv", "predictions.csv", out="scores.csv")
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from rcaeval.errors import InputError
from rcaeval.metrics import compute_metrics
from rcaeval.offline._openrca_rules import (
    MAX_ROOT_CAUSES,
    parse_points_column,
    parse_predictions_column,
    row_hits,
    time_hit,
)
from rcaeval.offline._tables import Table, read_csv_table
from rcaeval.stats import NoInfoBaseline, no_information_baseline, wilson_interval

QUERY_COLUMNS = ("row_id", "task_index", "instruction", "scoring_points")
"""Columns an OpenRCA query file must have."""
PREDICTION_COLUMNS = ("row_id", "prediction")
"""Columns an OpenRCA predictions file must have."""
CRITERIA = ("component", "reason", "time")
"""The three OpenRCA criteria, in the order of the per-criterion output columns."""
SUMMARY_METRICS = ("openrca_strict", "openrca_partial", "openrca_mean")
"""Named metrics (queries/metrics/) that make up the summary."""

SCORE_SCHEMA: dict[str, Any] = {
    "row_id": pl.Int64,
    "task_index": pl.Utf8,
    "score": pl.Float64,
    "hits": pl.Int64,
    "criteria": pl.Int64,
    "component_hits": pl.Int64,
    "component_criteria": pl.Int64,
    "reason_hits": pl.Int64,
    "reason_criteria": pl.Int64,
    "time_hits": pl.Int64,
    "time_criteria": pl.Int64,
    "predicted_root_causes": pl.Int64,
    "expected_root_causes": pl.Int64,
}
"""Columns of the per-row scores (SCORES.csv)."""


@dataclass(frozen=True)
class Query:
    """A parsed OpenRCA query file: one entry per row, in file order."""

    table: Table
    row_ids: list[int]
    task_index: list[str]
    components: list[list[str]]
    reasons: list[list[str]]
    times: list[list[str]]


def read_query(path: Path) -> Query:
    """An OpenRCA query file (row_id, task_index, instruction, scoring_points). Errors name
    the file, line and field."""
    table = read_csv_table(Path(path), QUERY_COLUMNS, only_required=True)
    ids = table.int_column("row_id")
    table.unique(ids, "row_id")
    tasks = table.text_column("task_index", allow_empty=False).str.strip_chars()
    comps, reasons, times = parse_points_column(table.text_column("scoring_points").to_list())
    for i, (c, r, t) in enumerate(zip(comps, reasons, times, strict=True)):
        n = max(len(c), len(r), len(t))
        if n == 0:
            raise table.error(i, "scoring_points", "no OpenRCA scoring point found (expected "
                              "lines such as 'The only predicted root cause component is X')")
        if n > MAX_ROOT_CAUSES:
            raise table.error(i, "scoring_points", f"{n} root causes; at most "
                              f"{MAX_ROOT_CAUSES} are supported")
    return Query(table, ids.to_list(), tasks.to_list(), comps, reasons, times)


def read_predictions(path: Path, query: Query) -> pl.Series:
    """The prediction texts of an OpenRCA predictions file (row_id, prediction), in the order
    of ``query``'s rows: every query row needs a prediction and every prediction a query row.
    An empty prediction names no root cause and scores 0."""
    table = read_csv_table(Path(path), PREDICTION_COLUMNS, only_required=True)
    ids = table.int_column("row_id")
    table.unique(ids, "row_id")
    texts = table.text_column("prediction")
    frame = pl.DataFrame({"row_id": ids, "prediction": texts,
                          "pred_index": pl.int_range(len(ids), eager=True)})
    order = pl.DataFrame({"row_id": pl.Series(query.row_ids, dtype=pl.Int64),
                          "query_index": pl.int_range(len(query.row_ids), eager=True)})
    joined = order.join(frame, on="row_id", how="left", maintain_order="left")
    missing = joined.filter(pl.col("pred_index").is_null())
    qfile = query.table.path
    if missing.height:
        ids_text = ", ".join(str(x) for x in missing["row_id"].head(5).to_list())
        more = f" and {missing.height - 5} more" if missing.height > 5 else ""
        line = query.table.lines[int(missing["query_index"][0])]
        raise InputError(f"{missing.height} row_id(s) of the query file {qfile} have no "
                         f"prediction: {ids_text}{more} (first on query line {line})",
                         file=str(path), field="row_id")
    if frame.height != order.height:
        extra = frame.join(order, on="row_id", how="anti").sort("pred_index")
        raise table.error(int(extra["pred_index"][0]), "row_id",
                          f"row_id {extra['row_id'][0]} is not in the query file {qfile} "
                          f"({extra.height} such row(s))")
    return joined["prediction"]


def score_frame(query: Query, predictions: pl.Series) -> pl.DataFrame:
    """Per-row scores (:data:`SCORE_SCHEMA`) of a parsed query and its aligned predictions."""
    preds = parse_predictions_column(predictions.to_list())
    c_hits: list[int] = []
    r_hits: list[int] = []
    t_hits: list[int] = []
    for comps, reasons, times, p in zip(query.components, query.reasons, query.times, preds,
                                        strict=True):
        nc, nr, nt = len(comps), len(reasons), len(times)
        if len(p) == 1 and nc <= 1 and nr <= 1 and nt <= 1:
            # the common single-root-cause row, inline (row_hits gives the same)
            when, comp, reason = p[0]
            c_hits.append(1 if nc and comp == comps[0] else 0)
            r_hits.append(1 if nr and reason == reasons[0] else 0)
            t_hits.append(time_hit(times[0], when) if nt else 0)
        else:
            c, r, t = row_hits(comps, reasons, times, p)
            c_hits.append(c)
            r_hits.append(r)
            t_hits.append(t)
    c_crit = [len(x) for x in query.components]
    r_crit = [len(x) for x in query.reasons]
    t_crit = [len(x) for x in query.times]
    hits = [c + r + t for c, r, t in zip(c_hits, r_hits, t_hits, strict=True)]
    criteria = [c + r + t for c, r, t in zip(c_crit, r_crit, t_crit, strict=True)]
    cols = {
        "row_id": query.row_ids,
        "task_index": query.task_index,
        "score": [_rounded(h, n) for h, n in zip(hits, criteria, strict=True)],
        "hits": hits,
        "criteria": criteria,
        "component_hits": c_hits,
        "component_criteria": c_crit,
        "reason_hits": r_hits,
        "reason_criteria": r_crit,
        "time_hits": t_hits,
        "time_criteria": t_crit,
        "predicted_root_causes": [len(p) for p in preds],
        "expected_root_causes": [max(c, r, t) for c, r, t in zip(c_crit, r_crit, t_crit,
                                                                  strict=True)],
    }
    return pl.DataFrame(cols, schema=SCORE_SCHEMA)


@lru_cache(maxsize=4096)
def _rounded(hits: int, criteria: int) -> float:
    """OpenRCA's score: Python's ``round(hits / criteria, 2)`` (kept as Python's rounding of
    the binary value, e.g. 1/8 -> 0.12)."""
    return round(hits / criteria, 2)


# --- summary ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    """``hits`` of ``n`` with its Wilson interval (95%)."""

    hits: int
    n: int

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None

    @property
    def interval(self) -> tuple[float | None, float | None]:
        return wilson_interval(self.hits, self.n)

    def as_dict(self) -> dict[str, Any]:
        lo, hi = self.interval
        return {"hits": self.hits, "n": self.n, "rate": self.value, "ci_low": lo,
                "ci_high": hi}


@dataclass(frozen=True)
class CriterionSummary:
    """How often one criterion was hit, beside the no-information baseline (always answering
    the most frequent ground-truth label; none for time)."""

    criterion: str
    accuracy: Rate
    baseline: NoInfoBaseline | None

    def as_dict(self) -> dict[str, Any]:
        base = None
        if self.baseline is not None:
            lo, hi = wilson_interval(self.baseline.hits, self.baseline.n)
            base = {"label": self.baseline.label, "hits": self.baseline.hits,
                    "n": self.baseline.n, "rate": self.baseline.rate, "ci_low": lo,
                    "ci_high": hi}
        return {"criterion": self.criterion, **self.accuracy.as_dict(), "baseline": base}


@dataclass(frozen=True)
class OpenRCASummary:
    """Rows, strict (score = 1), partial (0 < score < 1) and mean score, as OpenRCA reports
    them, plus per-criterion accuracy with its no-information baseline."""

    rows: int
    strict: Rate
    partial: Rate
    mean: float | None
    criteria: tuple[CriterionSummary, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "strict": self.strict.as_dict(),
                "partial": self.partial.as_dict(), "mean": self.mean,
                "criteria": [c.as_dict() for c in self.criteria]}


def summarise(scores: pl.DataFrame, query: Query | None = None) -> OpenRCASummary:
    """The summary of per-row ``scores`` (:data:`SCORE_SCHEMA`), through the named metrics.
    With ``query`` (the rows scored), each label criterion carries its no-information
    baseline over the ground-truth root causes."""
    con = duckdb.connect()
    try:
        con.register("openrca_scores", scores.to_arrow())
        m = {r["metric"]: r for r in compute_metrics(con, SUMMARY_METRICS).iter_rows(named=True)}
        per: list[CriterionSummary] = []
        for name in CRITERIA:
            got = compute_metrics(con, ["openrca_criterion_accuracy"],
                                  params={"criterion": name}).row(0, named=True)
            base = None
            if query is not None and name != "time":
                lists = query.components if name == "component" else query.reasons
                base = no_information_baseline(x for labels in lists for x in labels)
            per.append(CriterionSummary(name, Rate(int(got["numerator"] or 0),
                                                   got["denominator"] or 0), base))
    finally:
        con.close()
    rows = m["openrca_strict"]["denominator"] or 0
    return OpenRCASummary(
        rows=rows,
        strict=Rate(int(m["openrca_strict"]["numerator"] or 0), rows),
        partial=Rate(int(m["openrca_partial"]["numerator"] or 0), rows),
        mean=m["openrca_mean"]["value"],
        criteria=tuple(per),
    )


@dataclass(frozen=True)
class OpenRCAResult:
    """Per-row scores (:data:`SCORE_SCHEMA`, query file order) and their summary."""

    scores: pl.DataFrame
    summary: OpenRCASummary

    def write_csv(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.scores.write_csv(path)


def score_openrca(query: Path, predictions: Path, out: Path | None = None) -> OpenRCAResult:
    """Score the OpenRCA predictions file against the query file (rows matched by
    ``row_id``; every query row needs a prediction and every prediction a query row), write
    the per-row scores to ``out`` when given, and summarise."""
    parsed = read_query(Path(query))
    scores = score_frame(parsed, read_predictions(Path(predictions), parsed))
    result = OpenRCAResult(scores, summarise(scores, parsed))
    if out is not None:
        result.write_csv(Path(out))
    return result
# --- text ------------------------------------------------------------------------------


def pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.2%}"


def ci_text(hits: int, n: int) -> str:
    lo, hi = wilson_interval(hits, n)
    return "-" if lo is None or hi is None else f"[{lo:.2%}, {hi:.2%}]"


def render_summary(summary: OpenRCASummary) -> str:
    """The summary as plain aligned text (what ``rcaeval offline openrca`` prints)."""
    s = summary
    lines = [
        f"rows     {s.rows:>6}",
        f"strict   {s.strict.hits:>6}  {pct(s.strict.value):>7}  95% CI "
        f"{ci_text(s.strict.hits, s.rows)}   (score = 1)",
        f"partial  {s.partial.hits:>6}  {pct(s.partial.value):>7}  95% CI "
        f"{ci_text(s.partial.hits, s.rows)}   (0 < score < 1)",
        f"mean     {'-' if s.mean is None else f'{s.mean:.4f}':>6}           (mean rounded score)",
        "",
        f"{'criterion':<10} {'hit':>11} {'accuracy':>8} {'95% CI':<18}  no-information "
        "baseline (always the most frequent label)",
    ]
    for c in s.criteria:
        a = c.accuracy
        row = (f"{c.criterion:<10} {f'{a.hits}/{a.n}':>11} {pct(a.value):>8} "
               f"{ci_text(a.hits, a.n):<18}  ")
        b = c.baseline
        if b is None or b.label is None:
            row += "-"
        else:
            row += (f"{b.hits}/{b.n} {pct(b.rate)} {ci_text(b.hits, b.n)} "
                    f"answering {b.label!r}")
        lines.append(row.rstrip())
    return "\n".join(lines)
