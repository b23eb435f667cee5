"""Comparing two release artifacts of the same window (docs/release.md "Comparing two
artifacts"): the active knowledge package against a shadow one, or staging against shadow.
Every gate metric side by side; the paired rates (one outcome per capture) also get the exact
McNemar test over the incidents both measurements analysed, read back from the capture
exports each artifact names in its provenance; a decision per metric and overall."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from rcaeval._paths import read_query
from rcaeval.errors import InputError
from rcaeval.release._captures import (
    build_window,
    capture_files,
    load_captures,
    open_connection,
    sha256_file,
)
from rcaeval.release._knowledge import measured_packages
from rcaeval.release._thresholds import GATE
from rcaeval.release._time import parse_timestamp
from rcaeval.stats import mcnemar_exact

PAIRED_METRICS: tuple[str, ...] = ("known_top1", "false_novel_rate", "abstention_rate",
                                   "novel_mechanism_recall_at_3")
"""Gate rates with one outcome per capture (queries/release/capture_outcomes.sql)."""
DEFAULT_ALPHA = 0.05
DECISIONS = ("promote", "block")


@dataclass(frozen=True)
class CompareRow:
    metric: str
    kind: str
    base: Any
    other: Any
    delta: float | None
    base_passes: bool
    other_passes: bool
    pairs: int | None = None       # incidents both measured (paired rates)
    base_only: int | None = None   # pairs in the base's numerator only (McNemar b)
    other_only: int | None = None  # pairs in the other's numerator only (McNemar c)
    p_value: float | None = None
    verdict: str = ""              # fails gate | worse | better | no difference | ...
    blocks: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Comparison:
    base_role: str
    other_role: str
    base_path: str
    other_path: str
    window: dict[str, Any]
    rows: list[CompareRow]
    packages: dict[str, list[str]]
    alpha: float
    notes: list[str] = field(default_factory=list)

    @property
    def decision(self) -> str:
        return "block" if any(r.blocks for r in self.rows) else "promote"

    @property
    def blocking(self) -> list[str]:
        return [r.metric for r in self.rows if r.blocks]

    def frame(self) -> pl.DataFrame:
        """One row per gate metric (the decision table)."""
        rows = [{**r.as_dict(), "base": _num(r.base), "other": _num(r.other)}
                for r in self.rows]
        return pl.DataFrame(rows, schema={
            "metric": pl.Utf8, "kind": pl.Utf8, "base": pl.Float64, "other": pl.Float64,
            "delta": pl.Float64, "base_passes": pl.Boolean, "other_passes": pl.Boolean,
            "pairs": pl.Int64, "base_only": pl.Int64, "other_only": pl.Int64,
            "p_value": pl.Float64, "verdict": pl.Utf8, "blocks": pl.Boolean}, orient="row")

    def as_dict(self) -> dict[str, Any]:
        return {"format": "release_compare/1", "decision": self.decision,
                "blocking": self.blocking, "base": {"role": self.base_role,
                                                    "artifact": self.base_path,
                                                    "packages": self.packages["base"]},
                "other": {"role": self.other_role, "artifact": self.other_path,
                          "packages": self.packages["other"]},
                "window": self.window, "alpha": self.alpha, "notes": self.notes,
                "rows": [r.as_dict() for r in self.rows]}


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def _source(doc: dict[str, Any], where: str) -> tuple[Path | None, Path | None, str]:
    """The capture export and review file an artifact was measured from, verified by
    checksum; (None, None, why) when they are not available here (paired tests skipped)."""
    inputs = (doc.get("provenance") or {}).get("inputs") or {}
    caps = inputs.get("captures") or []
    paths = [Path(str(c.get("path"))) for c in caps if isinstance(c, dict)]
    if not paths or any(not p.is_file() for p in paths):
        return None, None, f"{where}: its capture export is not readable here"
    for c, p in zip(caps, paths, strict=True):
        if sha256_file(p) != c.get("sha256"):
            raise InputError(f"refused: {p} changed since it was measured (sha256 differs "
                             "from provenance.inputs.captures)", file=where,
                             field="provenance.inputs.captures")
    source = paths[0] if len(paths) == 1 else paths[0].parent
    if sorted(map(str, capture_files(source))) != sorted(map(str, paths)):
        return None, None, f"{where}: its capture files are not one file or directory"
    reviews = [r for r in inputs.get("reviews") or [] if isinstance(r, dict)]
    review_path = None
    if reviews:
        review_path = Path(str(reviews[0].get("path")))
        if not review_path.is_file():
            return None, None, f"{where}: its reviews are not readable here"
        if sha256_file(review_path) != reviews[0].get("sha256"):
            raise InputError(f"refused: {review_path} changed since it was measured",
                             file=where, field="provenance.inputs.reviews")
    return source, review_path, ""


def capture_outcomes(doc: dict[str, Any], where: str) -> tuple[pl.DataFrame | None, str]:
    """Per-capture outcomes of the paired rates for the window an artifact measured (one row
    per incident and metric: the latest capture), or (None, why) when its inputs are not
    available. Refused when they do not reproduce the artifact's counts."""
    from rcaeval.release._metrics import _reviews_of

    source, reviews, why = _source(doc, where)
    if source is None:
        return None, why
    prov = doc["provenance"]
    labels, n_reviews, _inputs, _probs = _reviews_of(reviews)
    con: duckdb.DuckDBPyConnection = open_connection()
    try:
        load_captures(con, source, start=parse_timestamp(prov["window"]["start"]),
                      end=parse_timestamp(prov["window"]["end"]), stage=prov.get("stage"),
                      labels=labels if n_reviews else None)
        build_window(con)
        frame = pl.from_arrow(con.sql(read_query("release/capture_outcomes.sql"))
                              .to_arrow_table())
    finally:
        con.close()
    assert isinstance(frame, pl.DataFrame)
    for metric in PAIRED_METRICS:
        sub = frame.filter(pl.col("metric") == metric)
        entry = doc["metrics"][metric]
        got = (int(sub["success"].sum()), sub.height)
        if got != (entry.get("numerator"), entry.get("denominator")):
            raise InputError(f"refused: the captures it names give {metric} {got[0]}/{got[1]}, "
                             f"the artifact says {entry.get('numerator')}/"
                             f"{entry.get('denominator')}", file=where,
                             field=f"metrics.{metric}")
    latest = frame.sort(["captured_at", "capture_id"]).group_by(
        ["metric", "pair_key"], maintain_order=True).last()
    return latest.select("metric", "pair_key", "success"), ""


def compare(base: dict[str, Any], other: dict[str, Any], *, base_role: str = "active",
            other_role: str = "shadow", alpha: float = DEFAULT_ALPHA,
            paired: bool = True) -> Comparison:
    """Compare two loaded artifacts (:func:`load_artifact`) of the same window: ``other``
    (the shadow package) against ``base`` (the active package, or staging). A row blocks
    when ``other`` fails the metric's gate threshold, or is significantly worse (exact
    McNemar p < ``alpha`` over the paired incidents) on a paired rate."""
    from rcaeval.release._gate import _metric_row

    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be strictly between 0 and 1, got {alpha!r}",
                         field="alpha")
    bw, ow = base["provenance"]["window"], other["provenance"]["window"]
    where_b = str(base.get("_source", base_role))
    where_o = str(other.get("_source", other_role))
    if (parse_timestamp(bw["start"]), parse_timestamp(bw["end"])) != (
            parse_timestamp(ow["start"]), parse_timestamp(ow["end"])):
        raise InputError(f"refused: the artifacts measured different windows ({bw['start']}.."
                         f"{bw['end']} and {ow['start']}..{ow['end']}); compare measurements "
                         "of the same window", file=where_o, field="provenance.window")
    notes: list[str] = []
    pairs: dict[str, pl.DataFrame] = {}
    if paired:
        b_out, why_b = capture_outcomes(base, where_b)
        o_out, why_o = capture_outcomes(other, where_o)
        if b_out is None or o_out is None:
            notes.append("paired tests skipped: " + "; ".join(w for w in (why_b, why_o) if w))
        else:
            joined = b_out.join(o_out, on=["metric", "pair_key"], suffix="_other")
            pairs = {m: joined.filter(pl.col("metric") == m) for m in PAIRED_METRICS}
    b_pk, o_pk = measured_packages(base["provenance"].get("knowledge")), measured_packages(
        other["provenance"].get("knowledge"))
    if b_pk[0] and b_pk[0] == o_pk[0]:
        notes.append(f"both artifacts measured package {', '.join(b_pk[0])}")
    rows = []
    for t in GATE:
        be, oe = base["metrics"][t.metric], other["metrics"][t.metric]
        b_row, o_row = _metric_row(t, be, False), _metric_row(t, oe, False)
        bv, ov = be.get("value"), oe.get("value")
        delta = (None if bv is None or ov is None or isinstance(bv, bool)
                 else float(ov) - float(bv))
        kw: dict[str, Any] = {}
        verdict, blocks = "", False
        if t.metric in pairs:
            j = pairs[t.metric]
            b_only = j.filter(pl.col("success") & ~pl.col("success_other")).height
            o_only = j.filter(~pl.col("success") & pl.col("success_other")).height
            p = mcnemar_exact(b_only, o_only)
            kw = {"pairs": j.height, "base_only": b_only, "other_only": o_only, "p_value": p}
            higher_better = t.op == ">="
            other_worse = (b_only > o_only) if higher_better else (o_only > b_only)
            if p < alpha:
                verdict, blocks = ("worse", True) if other_worse else ("better", False)
            else:
                verdict = "no difference"
        if not o_row.passed:
            verdict, blocks = "fails gate", True
        elif not verdict:
            verdict = "passes (unpaired)" if t.metric in PAIRED_METRICS else "passes"
        rows.append(CompareRow(t.metric, str(be.get("kind")), bv, ov, delta, b_row.passed,
                               o_row.passed, verdict=verdict, blocks=blocks, **kw))
    return Comparison(base_role, other_role, where_b, where_o,
                      {"start": bw["start"], "end": bw["end"]}, rows,
                      {"base": b_pk[0], "other": o_pk[0]}, alpha, notes)
