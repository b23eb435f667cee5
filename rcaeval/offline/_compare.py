"""Compare two systems scored on the same rows: the exact paired McNemar test.

Each input is a per-row file (CSV or JSONL) with an id column (``row_id`` or ``case_id``) and
either ``correct`` (true/false, 1/0) or ``score`` (correct when score >= ``min_score``,
default 1: OpenRCA's strict accuracy). Both files must hold exactly the same ids; rows are
paired by id, not by position. ``rcaeval offline openrca --out`` and ``rcaeval offline ranked
--out`` write such files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError
from rcaeval.offline._tables import Record, csv_header, read_records, unique_key
from rcaeval.stats import McNemarResult, mcnemar_paired, wilson_interval

ID_COLUMNS = ("row_id", "case_id")
"""Id columns a compared file may use (the first one present is used)."""
_TRUE = {"true", "1", "yes", "t", "y"}
_FALSE = {"false", "0", "no", "f", "n"}


def _header(path: Path) -> tuple[str, ...]:
    """Column names: the CSV header, or the keys of the first JSONL object."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        for rec in read_records(path, ()):
            return tuple(rec.values)
        return ()
    return tuple(csv_header(path, ()))


def _correct(rec: Record, column: str, min_score: float, path: Path) -> bool:
    value = rec.values.get(column)
    if column == "correct":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower() if value is not None else ""
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise InputError(f"must be true/false or 1/0, got {value!r}", file=str(path),
                         line=rec.line, field=column)
    try:
        score = float(value) if not isinstance(value, bool) and value is not None else None
    except ValueError:
        score = None
    if score is None or not math.isfinite(score):
        raise InputError(f"must be a finite number, got {value!r}", file=str(path),
                         line=rec.line, field=column)
    return score >= min_score


def read_correct(path: Path, min_score: float = 1.0) -> tuple[str, str, dict[str, bool]]:
    """``(id column, value column, id -> correct)`` of one per-row file."""
    path = Path(path)
    names = _header(path)
    id_col = next((c for c in ID_COLUMNS if c in names), None)
    if id_col is None:
        raise InputError(f"needs an id column ({' or '.join(ID_COLUMNS)}); found "
                         f"{', '.join(names) or 'none'}", file=str(path), line=1,
                         field=ID_COLUMNS[0])
    value_col = "correct" if "correct" in names else "score" if "score" in names else None
    if value_col is None:
        raise InputError("needs a 'correct' or a 'score' column", file=str(path), line=1,
                         field="correct")
    seen: dict[Any, int] = {}
    out: dict[str, bool] = {}
    for rec in read_records(path, (id_col, value_col)):
        raw = rec.values.get(id_col)
        key = str(raw).strip() if raw is not None and not isinstance(raw, bool) else ""
        if not key:
            raise InputError("must not be empty", file=str(path), line=rec.line, field=id_col)
        unique_key(seen, key, rec, id_col, path)
        out[key] = _correct(rec, value_col, min_score, path)
    return id_col, value_col, out


@dataclass(frozen=True)
class Comparison:
    """Two systems on the same rows: how many each got right and the McNemar test (``b``:
    only A right, ``c``: only B right)."""

    a: Path
    b: Path
    rows: int
    a_correct: int
    b_correct: int
    test: McNemarResult

    def as_dict(self) -> dict[str, Any]:
        a_lo, a_hi = wilson_interval(self.a_correct, self.rows)
        b_lo, b_hi = wilson_interval(self.b_correct, self.rows)
        return {"a": str(self.a), "b": str(self.b), "rows": self.rows,
                "a_correct": self.a_correct, "a_ci": [a_lo, a_hi],
                "b_correct": self.b_correct, "b_ci": [b_lo, b_hi],
                "both": self.test.both, "neither": self.test.neither,
                "only_a": self.test.b, "only_b": self.test.c, "p_value": self.test.p_value}


def compare_files(a: Path, b: Path, min_score: float = 1.0) -> Comparison:
    """Pair the rows of two per-row files by id and run the exact McNemar test."""
    if isinstance(min_score, bool) or not isinstance(min_score, int | float) or not (
            math.isfinite(min_score)):
        # NaN would make every row wrong (score >= NaN is false), inf every row but inf
        raise InputError(f"must be a finite number, got {min_score!r}", field="--min-score")
    a, b = Path(a), Path(b)
    a_id, _, ra = read_correct(a, min_score)
    b_id, _, rb = read_correct(b, min_score)
    only_a = [k for k in ra if k not in rb]
    only_b = [k for k in rb if k not in ra]
    if only_a or only_b:
        where, ids, field = (b, only_a, b_id) if only_a else (a, only_b, a_id)
        other = a if where == b else b
        raise InputError(f"{len(ids)} id(s) of {other} are missing here: "
                         f"{', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}; both files "
                         "must score the same rows", file=str(where), field=field)
    keys = list(ra)
    test = mcnemar_paired([ra[k] for k in keys], [rb[k] for k in keys])
    return Comparison(a, b, len(keys), sum(ra.values()), sum(rb.values()), test)


def render_comparison(c: Comparison) -> str:
    """The 2x2 table and the p-value as plain text (what ``rcaeval offline compare`` prints)."""
    t = c.test

    def rate(k: int) -> str:
        lo, hi = wilson_interval(k, c.rows)
        return "-" if lo is None else f"{k / c.rows:.2%} [{lo:.2%}, {hi:.2%}]"

    return "\n".join([
        f"rows        {c.rows}",
        f"A correct   {c.a_correct:>6}  {rate(c.a_correct)}   ({c.a})",
        f"B correct   {c.b_correct:>6}  {rate(c.b_correct)}   ({c.b})",
        f"both        {t.both:>6}",
        f"neither     {t.neither:>6}",
        f"only A (b)  {t.b:>6}",
        f"only B (c)  {t.c:>6}",
        f"exact McNemar p = {t.p_value:.4g} (two-sided, {t.discordant} discordant rows)",
    ])
