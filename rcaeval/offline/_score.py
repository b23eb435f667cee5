"""`rcaeval offline score`: the per-case-type metrics over a fixture file, the ``--min-top1``
threshold and the known-family Top-1 no-regress rule against a stored baseline."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl

from rcaeval._inputs import read_input
from rcaeval._paths import read_query
from rcaeval.errors import InputError, NotFoundError
from rcaeval.metrics import compute_metrics, metric_registry
from rcaeval.offline._fixture import CASE_TYPES, FixtureError, FixtureSet, read_fixtures
from rcaeval.offline._fixture_tables import load_fixture_tables
from rcaeval.stats import McNemarResult, NoInfoBaseline, mcnemar_paired, no_information_baseline

BASELINE_FORMAT = "rcaeval.offline_baseline/1"
TOP1_METRIC = "offline_known_top1"
CASE_COLUMNS = (
    "case_id", "line", "case_type", "expected_family", "top1_family", "top1_hit", "top3_hit",
    "outcome", "outcome_ok", "grounded", "calibrated", "has_plan", "forced_familiar",
    "causal_order", "competing", "discriminating", "missing_reported", "safe_fallback",
)


OPEN_WORLD_METRIC = "offline_open_world_unsupported_high_confidence"
"""The zero-tolerance open-world rule of ``offline score`` (docs/offline.md)."""


def score_metric_names() -> list[str]:
    """The metrics `offline score` reports: every registered ``offline_*`` metric, grouped by
    case type (known, compositional, novel, tool_degraded), then the rest."""
    def key(name: str) -> tuple[int, str]:
        kinds = [i for i, t in enumerate(CASE_TYPES) if name.startswith(f"offline_{t}_")]
        return (kinds[0] if kinds else len(CASE_TYPES), name)
    return sorted((n for n in metric_registry() if n.startswith("offline_")), key=key)


@dataclass(slots=True)
class OfflineScore:
    """Scores of one fixture file. ``failures`` empty and ``errors`` empty = the run passes."""

    fixtures: str
    metrics: pl.DataFrame
    cases: pl.DataFrame
    errors: list[FixtureError]
    known_top1: tuple[int, int]
    failures: list[str] = field(default_factory=list)
    regressed_cases: list[str] = field(default_factory=list)
    baseline: dict[str, Any] | None = None
    no_information: NoInfoBaseline | None = None
    """Known Top-1 of always answering the most frequent expected family."""
    versus_baseline: McNemarResult | None = None
    """Exact paired McNemar test of known Top-1 against the baseline, over the known cases
    both score (b: Top-1 in the baseline only, c: Top-1 now only)."""

    @property
    def ok(self) -> bool:
        return not self.failures and not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {
            "fixtures": self.fixtures, "ok": self.ok,
            "known_top1": {"correct": self.known_top1[0], "total": self.known_top1[1]},
            "failures": list(self.failures), "regressed_cases": list(self.regressed_cases),
            "no_information": None if self.no_information is None else {
                "family": self.no_information.label, "hits": self.no_information.hits,
                "n": self.no_information.n},
            "versus_baseline": None if self.versus_baseline is None else {
                "baseline_only": self.versus_baseline.b, "now_only": self.versus_baseline.c,
                "both": self.versus_baseline.both, "neither": self.versus_baseline.neither,
                "p_value": self.versus_baseline.p_value},
            "errors": [e.as_dict() for e in self.errors],
            "metrics": self.metrics.to_dicts(), "cases": self.cases.to_dicts(),
        }


def _as_set(fixtures: FixtureSet | str | Path) -> FixtureSet:
    """A fixture file, or a ``capture/1`` export (graded directly, rcaeval/offline/_captures.py)."""
    if isinstance(fixtures, FixtureSet):
        return fixtures
    from rcaeval.offline._captures import is_capture_export, read_capture_fixtures

    return read_capture_fixtures(fixtures) if is_capture_export(fixtures) \
        else read_fixtures(fixtures)


def evaluate(
    fixtures: FixtureSet | str | Path, names: list[str],
    con: duckdb.DuckDBPyConnection | None = None,
) -> tuple[FixtureSet, pl.DataFrame, pl.DataFrame]:
    """Load ``fixtures`` into ``con`` (default: a fresh in-memory DuckDB) and compute the
    named metrics; returns the fixture set, the metrics frame and the per-case frame."""
    fs = _as_set(fixtures)
    own = con is None
    con = con or duckdb.connect()
    try:
        load_fixture_tables(con, fs)
        metrics = compute_metrics(con, names)
        cases = con.sql(read_query("offline/cases.sql")).pl()
    finally:
        if own:
            con.close()
    return fs, metrics, cases


def score_fixtures(
    fixtures: FixtureSet | str | Path, *, min_top1: float | None = None,
    baseline: str | Path | dict[str, Any] | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
    max_open_world_high_confidence: int = 0,
) -> OfflineScore:
    """Score a fixture file: every ``offline_*`` metric with its Wilson interval, then the
    rules — known Top-1 below ``min_top1``, fewer correct known cases than ``baseline``
    records, or more than ``max_open_world_high_confidence`` (default 0: zero tolerance)
    unsupported high-confidence conclusions on open-world cases — each add a failure."""
    if min_top1 is not None and not 0.0 <= min_top1 <= 1.0:
        raise InputError(f"--min-top1 must be within [0, 1], got {min_top1}", field="min_top1")
    if (isinstance(max_open_world_high_confidence, bool)
            or not isinstance(max_open_world_high_confidence, int)
            or max_open_world_high_confidence < 0):
        raise InputError("--max-open-world-high-confidence must be a non-negative integer, "
                         f"got {max_open_world_high_confidence!r}",
                         field="max_open_world_high_confidence")
    base = read_baseline(baseline) if isinstance(baseline, str | Path) else baseline
    fs, metrics, cases = evaluate(fixtures, score_metric_names(), con)
    top = metrics.filter(pl.col("metric") == TOP1_METRIC).row(0, named=True)
    correct, total = int(top["numerator"] or 0), int(top["denominator"] or 0)
    out = OfflineScore(fs.path, metrics, cases.select(CASE_COLUMNS), fs.errors,
                       (correct, total), baseline=base)
    if min_top1 is not None:
        if total == 0:
            out.failures.append(f"known Top-1: no known case to score (--min-top1 {min_top1:g})")
        elif correct / total < min_top1:
            out.failures.append(f"known Top-1 {correct}/{total} = {correct / total:.3f} is "
                                f"below --min-top1 {min_top1:g}")
    ow = metrics.filter(pl.col("metric") == OPEN_WORLD_METRIC).row(0, named=True)
    unsupported = int(ow["numerator"] or 0)
    if unsupported > max_open_world_high_confidence:
        out.failures.append(
            f"open-world cases: {unsupported} unsupported high-confidence conclusion(s) (a "
            "named family at 'high' without 2 live source groups or a dispositive signature; "
            f"--max-open-world-high-confidence {max_open_world_high_confidence})")
    known = cases.filter(pl.col("case_type") == "known")
    out.no_information = no_information_baseline(known["expected_family"].to_list())
    if base is not None:
        b_correct = int(base["known_top1"]["correct"])
        b_total = int(base["known_top1"]["total"])
        hits = set(known.filter(pl.col("top1_hit"))["case_id"].to_list())
        was = set(base["known_top1"].get("correct_cases", []))
        both_scored = [c for c in known["case_id"].to_list()
                       if c in set(base["known_top1"].get("known_cases") or [c])]
        out.versus_baseline = mcnemar_paired([c in was for c in both_scored],
                                             [c in hits for c in both_scored])
        out.regressed_cases = sorted(set(base["known_top1"].get("correct_cases", [])) - hits)
        if correct < b_correct:
            lost = f" (no longer Top-1: {', '.join(out.regressed_cases)})" \
                if out.regressed_cases else ""
            out.failures.append(f"known Top-1 regressed from the baseline {b_correct}/{b_total}"
                                f" to {correct}/{total}{lost}")
    return out


def baseline_dict(score: OfflineScore, fixtures_bytes: bytes | None = None) -> dict[str, Any]:
    """The baseline file content for ``score`` (see docs/offline.md)."""
    if score.errors:
        raise InputError(f"{len(score.errors)} invalid fixture line(s): a baseline is written "
                         "only from a fully valid fixture file", file=score.fixtures)
    known = score.cases.filter(pl.col("case_type") == "known")
    data = fixtures_bytes if fixtures_bytes is not None else Path(score.fixtures).read_bytes()
    return {
        "format": BASELINE_FORMAT,
        "fixtures": Path(score.fixtures).name,
        "fixtures_sha256": hashlib.sha256(data).hexdigest(),
        "known_top1": {
            "correct": score.known_top1[0], "total": score.known_top1[1],
            "correct_cases": sorted(known.filter(pl.col("top1_hit"))["case_id"].to_list()),
            "known_cases": sorted(known["case_id"].to_list()),
        },
        "metrics": {r["metric"]: {"numerator": r["numerator"], "denominator": r["denominator"]}
                    for r in score.metrics.iter_rows(named=True)},
    }


def write_baseline(score: OfflineScore, path: str | Path) -> dict[str, Any]:
    """Store ``score`` as the baseline the no-regress rule compares against."""
    data = baseline_dict(score)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return data


def read_baseline(path: str | Path) -> dict[str, Any]:
    """Read and check a baseline file; errors name the file and field."""
    p = Path(path)
    if not p.exists():
        raise NotFoundError(f"{p}: no such baseline file")
    raw = read_input(p, "offline", field="--baseline")  # a FIFO or device: exit 3, no block
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not a JSON baseline: {exc}", file=str(p)) from None
    if not isinstance(data, dict) or data.get("format") != BASELINE_FORMAT:
        raise InputError(f"format must be {BASELINE_FORMAT!r}", file=str(p), field="format")
    top = data.get("known_top1")
    if not isinstance(top, dict):
        raise InputError("missing object", file=str(p), field="known_top1")
    for key in ("correct", "total"):
        v = top.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise InputError("must be a non-negative integer", file=str(p),
                             field=f"known_top1.{key}")
    if top["correct"] > top["total"]:
        raise InputError("correct exceeds total", file=str(p), field="known_top1.correct")
    for key in ("correct_cases", "known_cases"):
        cc = top.get(key, [])
        if not isinstance(cc, list) or not all(isinstance(c, str) for c in cc):
            raise InputError("must be a list of case ids", file=str(p),
                             field=f"known_top1.{key}")
    return data
