"""RCAEval-style ranked candidate lists: AC@k and Avg@k beside the chance baseline.

A system answers each case with a ranked list of candidate root causes (services or
components, most likely first). AC@k is the share of cases whose true root cause is among the
first k; Avg@k the mean of AC@1..AC@k. The chance baseline is what a uniformly random ranking
of the case's candidates scores (the truth is in the first k with probability
min(k, C) / C for C candidates); lift = the system's figure / chance. The figures are the
named SQL metrics ``ranked_*`` in ``queries/metrics/``. Formats: docs/offline.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from rcaeval.errors import InputError
from rcaeval.metrics import compute_metrics
from rcaeval.offline._tables import Record, read_records, unique_key
from rcaeval.stats import NoInfoBaseline, no_information_baseline, wilson_interval

TRUTH_COLUMNS = ("case_id", "root_cause")
"""Required columns (CSV) or keys (JSONL) of a truth file; ``candidates`` is optional."""
RANKS_CSV_COLUMNS = ("case_id", "rank", "candidate")
"""Required columns of a ranks CSV file (one row per ranked candidate)."""
RANKS_JSONL_KEYS = ("case_id", "ranks")
"""Required keys of a ranks JSONL object (one object per case, ``ranks`` a list)."""
DEFAULT_MAX_K = 5

CASE_SCHEMA: dict[str, Any] = {
    "case_id": pl.Utf8,
    "root_cause": pl.Utf8,
    "truth_rank": pl.Int64,
    "listed": pl.Int64,
    "candidates": pl.Int64,
    "correct": pl.Boolean,
}
"""Per-case output: the truth's 1-based rank (null when not listed), the list length, the
number of candidates the chance baseline uses, and ``correct`` (the truth ranked first)."""


def _text(rec: Record, key: str, path: Path) -> str:
    value = rec.values.get(key)
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise InputError(f"must be text, got {value!r}", file=str(path), line=rec.line,
                         field=key)
    text = str(value).strip()
    if not text:
        raise InputError("must not be empty", file=str(path), line=rec.line, field=key)
    return text


def _positive_int(rec: Record, key: str, path: Path) -> int:
    value = rec.values.get(key)
    if isinstance(value, str) and value.strip().isdigit() and value.strip().isascii():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"must be a positive integer, got {value!r}", file=str(path),
                         line=rec.line, field=key)
    return value


def read_truth(path: Path) -> dict[str, tuple[str, int | None, int]]:
    """``case_id -> (root_cause, candidates or None, line)`` of a truth file."""
    path = Path(path)
    seen: dict[Any, int] = {}
    out: dict[str, tuple[str, int | None, int]] = {}
    for rec in read_records(path, TRUTH_COLUMNS):
        case = _text(rec, "case_id", path)
        unique_key(seen, case, rec, "case_id", path)
        raw = rec.values.get("candidates")
        cands = None if raw is None or raw == "" else _positive_int(rec, "candidates", path)
        out[case] = (_text(rec, "root_cause", path), cands, rec.line)
    return out


def read_ranks(path: Path) -> dict[str, tuple[list[str], int]]:
    """``case_id -> (ranked candidates, line)`` of a ranks file: JSONL (one object per case,
    ``{"case_id": ..., "ranks": [...]}``) or CSV (``case_id, rank, candidate``, one row per
    candidate; ranks of a case must be 1, 2, ... without gaps, in any row order)."""
    path = Path(path)
    out: dict[str, tuple[list[str], int]] = {}
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        seen: dict[Any, int] = {}
        for rec in read_records(path, RANKS_JSONL_KEYS):
            case = _text(rec, "case_id", path)
            unique_key(seen, case, rec, "case_id", path)
            ranks = rec.values["ranks"]
            if not isinstance(ranks, list):
                raise InputError(f"must be a list of candidates, got {ranks!r}",
                                 file=str(path), line=rec.line, field="ranks")
            items = [_text(Record(rec.line, {"ranks": r}), "ranks", path) for r in ranks]
            _no_repeats(items, path, rec.line)
            out[case] = (items, rec.line)
        return out
    by_case: dict[str, dict[int, tuple[str, int]]] = {}
    for rec in read_records(path, RANKS_CSV_COLUMNS):
        case = _text(rec, "case_id", path)
        rank = _positive_int(rec, "rank", path)
        slots = by_case.setdefault(case, {})
        if rank in slots:
            raise InputError(f"case {case!r} has rank {rank} twice (first on line "
                             f"{slots[rank][1]})", file=str(path), line=rec.line, field="rank")
        slots[rank] = (_text(rec, "candidate", path), rec.line)
    for case, slots in by_case.items():
        first_line = min(line for _, line in slots.values())
        if sorted(slots) != list(range(1, len(slots) + 1)):
            gap = next(k for k in range(1, len(slots) + 2) if k not in slots)
            raise InputError(f"case {case!r} has ranks {sorted(slots)[:8]} but no rank {gap} "
                             "(ranks must run 1, 2, ... without gaps)", file=str(path),
                             line=first_line, field="rank")
        items = [slots[k][0] for k in sorted(slots)]
        _no_repeats(items, path, first_line)
        out[case] = (items, first_line)
    return out


def _no_repeats(items: list[str], path: Path, line: int) -> None:
    seen: set[str] = set()
    for item in items:
        if item in seen:
            raise InputError(f"candidate {item!r} is ranked twice", file=str(path), line=line,
                             field="candidate")
        seen.add(item)


def rank_cases(truth_path: Path, ranks_path: Path) -> pl.DataFrame:
    """One row per case of the truth file (:data:`CASE_SCHEMA`), in truth-file order. Every
    truth case needs a ranked list and every ranked list a truth case."""
    truth, ranks = read_truth(Path(truth_path)), read_ranks(Path(ranks_path))
    missing = [c for c in truth if c not in ranks]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise InputError(f"{len(missing)} case(s) of the truth file {truth_path} have no ranked "
                         f"list: {', '.join(missing[:5])}{more} (first on truth line "
                         f"{truth[missing[0]][2]}); give an empty list to score a miss",
                         file=str(ranks_path), field="case_id")
    extra = sorted((line, c) for c, (_, line) in ranks.items() if c not in truth)
    if extra:
        line, case = extra[0]
        raise InputError(f"case {case!r} is not in the truth file {truth_path} ({len(extra)} "
                         "such case(s))", file=str(ranks_path), line=line, field="case_id")
    rows: dict[str, list[Any]] = {k: [] for k in CASE_SCHEMA}
    for case, (root, cands, line) in truth.items():
        listed = ranks[case][0]
        rank = listed.index(root) + 1 if root in listed else None
        if cands is not None and cands < len(listed):
            raise InputError(f"candidates is {cands} but case {case!r} ranks {len(listed)}",
                             file=str(truth_path), line=line, field="candidates")
        n = cands if cands is not None else len(listed)
        if n == 0:
            raise InputError(f"case {case!r} ranks no candidate, so the chance baseline needs "
                             "its number of candidates: fill the candidates column",
                             file=str(truth_path), line=line, field="candidates")
        for key, value in (("case_id", case), ("root_cause", root), ("truth_rank", rank),
                           ("listed", len(listed)), ("candidates", n),
                           ("correct", rank == 1)):
            rows[key].append(value)
    return pl.DataFrame(rows, schema=CASE_SCHEMA)


@dataclass(frozen=True)
class RankedResult:
    """Per-case ranks (:data:`CASE_SCHEMA`), the table by k and the no-information baseline
    (always answering the most frequent root cause, as a top-1 answer)."""

    cases: pl.DataFrame
    by_k: pl.DataFrame
    baseline: NoInfoBaseline

    def as_dict(self) -> dict[str, Any]:
        lo, hi = wilson_interval(self.baseline.hits, self.baseline.n)
        return {"cases": self.cases.height, "by_k": self.by_k.to_dicts(),
                "no_information_baseline": {"label": self.baseline.label,
                                            "hits": self.baseline.hits, "n": self.baseline.n,
                                            "rate": self.baseline.rate, "ci_low": lo,
                                            "ci_high": hi}}


def summarise_ranked(cases: pl.DataFrame, max_k: int = DEFAULT_MAX_K) -> pl.DataFrame:
    """AC@k (with Wilson interval), Avg@k, their chance baselines and lifts for k = 1..max_k,
    through the named metrics over ``cases`` registered as ``ranked_cases``."""
    if max_k < 1:
        raise ValueError(f"max_k must be >= 1, got {max_k}")
    con = duckdb.connect()
    rows = []
    try:
        con.register("ranked_cases", cases.to_arrow())
        names = ["ranked_ac_at_k", "ranked_avg_at_k", "ranked_chance_ac_at_k",
                 "ranked_chance_avg_at_k"]
        for k in range(1, max_k + 1):
            m = {r["metric"]: r for r in compute_metrics(con, names, params={"k": k})
                 .iter_rows(named=True)}
            ac, avg = m["ranked_ac_at_k"], m["ranked_avg_at_k"]["value"]
            c_ac = m["ranked_chance_ac_at_k"]["value"]
            c_avg = m["ranked_chance_avg_at_k"]["value"]
            rows.append({
                "k": k, "cases": ac["denominator"] or 0, "hits": int(ac["numerator"] or 0),
                "ac": ac["value"], "ci_low": ac["ci_low"], "ci_high": ac["ci_high"],
                "chance_ac": c_ac, "lift_ac": _ratio(ac["value"], c_ac),
                "avg": avg, "chance_avg": c_avg, "lift_avg": _ratio(avg, c_avg),
            })
    finally:
        con.close()
    return pl.DataFrame(rows, schema={"k": pl.Int64, "cases": pl.Int64, "hits": pl.Int64,
                                      "ac": pl.Float64, "ci_low": pl.Float64,
                                      "ci_high": pl.Float64, "chance_ac": pl.Float64,
                                      "lift_ac": pl.Float64, "avg": pl.Float64,
                                      "chance_avg": pl.Float64, "lift_avg": pl.Float64})


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def score_ranked(truth: Path, ranks: Path, out: Path | None = None,
                 max_k: int = DEFAULT_MAX_K) -> RankedResult:
    """Score ranked candidate lists against the truth file; write per-case ranks to ``out``
    when given."""
    cases = rank_cases(Path(truth), Path(ranks))
    result = RankedResult(cases, summarise_ranked(cases, max_k),
                          no_information_baseline(cases["root_cause"].to_list()))
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        cases.write_csv(Path(out))
    return result


def _f(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def render_ranked(result: RankedResult) -> str:
    """The table by k as plain aligned text (what ``rcaeval offline ranked`` prints)."""
    lines = [f"cases {result.cases.height}",
             f"{'k':>2} {'AC@k':>7} {'95% CI':<18} {'chance':>7} {'lift':>6}   "
             f"{'Avg@k':>7} {'chance':>7} {'lift':>6}"]
    for r in result.by_k.iter_rows(named=True):
        ci = ("-" if r["ci_low"] is None
              else f"[{r['ci_low']:.2%}, {r['ci_high']:.2%}]")
        lines.append(f"{r['k']:>2} {_f(r['ac'], '.2%'):>7} {ci:<18} "
                     f"{_f(r['chance_ac'], '.2%'):>7} {_f(r['lift_ac'], '.2f'):>6}   "
                     f"{_f(r['avg'], '.2%'):>7} {_f(r['chance_avg'], '.2%'):>7} "
                     f"{_f(r['lift_avg'], '.2f'):>6}")
    b = result.baseline
    if b.label is not None:
        lo, hi = wilson_interval(b.hits, b.n)
        lines.append(f"\nno-information baseline: always answering {b.label!r} is right on "
                     f"{b.hits}/{b.n} = {_f(b.rate, '.2%')} [{lo:.2%}, {hi:.2%}] (compare "
                     "AC@1)")
    return "\n".join(lines)
