"""What the gate checks in a metrics artifact before it compares anything (docs/release.md,
"The metrics JSON"): every field's type and range, each gate metric against its declared
kind, and the internal consistency a measurement always has (a rate's value is its numerator
over its denominator, its interval is the Wilson interval of those counts). An artifact that
was edited and resealed with :func:`rcaeval.release.seal` cannot pass with a value the
measurement could not have produced; anything else is refused (:class:`InputError`, exit 3)
naming the field.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

from rcaeval.errors import InputError
from rcaeval.metrics import get_metric
from rcaeval.release._knowledge import validate_knowledge
from rcaeval.release._models import STAGES
from rcaeval.release._thresholds import GATE
from rcaeval.release._time import parse_timestamp
from rcaeval.stats import wilson_interval

HEX64 = re.compile(r"[0-9a-f]{64}")
CONSISTENCY_TOLERANCE = 1e-9
"""How far a rate's value or interval may be from what its counts give (float rounding)."""
CAPTURE_COUNTS: tuple[str, ...] = ("read", "invalid", "invalid_in_window", "in_window",
                                   "outside_window")
"""``provenance.population.captures``: every key a non-negative integer."""


class _Check:
    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, field: str, message: str) -> InputError:
        return InputError(f"refused: {field} {message}", file=self.where, field=field)

    def count(self, value: Any, field: str, *, nullable: bool = False) -> int | None:
        if value is None and nullable:
            return None
        if type(value) is not int or value < 0:
            raise self.fail(field, f"must be a non-negative integer, got {value!r}")
        return value

    def number(self, value: Any, field: str, *, lo: float = 0.0, hi: float = math.inf,
               nullable: bool = False) -> float | None:
        if value is None and nullable:
            return None
        if (type(value) not in (int, float) or not math.isfinite(value)
                or not lo <= value <= hi):
            rng = f"in [{lo:g}, {hi:g}]" if hi != math.inf else f">= {lo:g}"
            raise self.fail(field, f"must be a finite number {rng}, got {value!r}")
        return float(value)

    def text(self, value: Any, field: str, *, pattern: re.Pattern[str] | None = None) -> str:
        if type(value) is not str or not value.strip():
            raise self.fail(field, f"must be a non-empty string, got {value!r}")
        if pattern is not None and not pattern.fullmatch(value):
            raise self.fail(field, f"must match {pattern.pattern}, got {value!r}")
        return value

    def timestamp(self, value: Any, field: str) -> datetime:
        try:
            return parse_timestamp(value)
        except ValueError as exc:
            raise self.fail(field, f"is not an ISO timestamp: {exc}") from None

    def obj(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field, f"must be an object, got {type(value).__name__}")
        return value

    def tally(self, value: Any, field: str, *, keys: tuple[str, ...] | None = None) -> None:
        for k, n in self.obj(value, field).items():
            if keys is not None and k not in keys:
                raise self.fail(f"{field}.{k}", f"is not one of {', '.join(keys)}")
            self.count(n, f"{field}.{k}")


def _rate(c: _Check, e: dict[str, Any], f: str, value: Any, n: int) -> None:
    num = c.count(e.get("numerator"), f"{f}.numerator")
    den = c.count(e.get("denominator"), f"{f}.denominator")
    assert num is not None and den is not None
    if den != n:
        raise c.fail(f"{f}.denominator", f"({den}) must equal sample_size ({n})")
    if num > den:
        raise c.fail(f"{f}.numerator", f"({num}) exceeds the denominator ({den})")
    conf = c.number(e.get("confidence"), f"{f}.confidence", lo=0.0, hi=1.0)
    assert conf is not None
    if not 0.0 < conf < 1.0:
        raise c.fail(f"{f}.confidence", f"must be strictly between 0 and 1, got {conf!r}")
    if e.get("interval") != "wilson":
        raise c.fail(f"{f}.interval", f"must be 'wilson', got {e.get('interval')!r}")
    lo = c.number(e.get("ci_low"), f"{f}.ci_low", hi=1.0, nullable=True)
    hi = c.number(e.get("ci_high"), f"{f}.ci_high", hi=1.0, nullable=True)
    if den == 0:
        if lo is not None or hi is not None:
            raise c.fail(f"{f}.ci_low", "must be null when nothing was measured")
        return
    if abs(value - num / den) > CONSISTENCY_TOLERANCE:
        raise c.fail(f"{f}.value", f"({value!r}) is not numerator/denominator ({num}/{den})")
    want_lo, want_hi = wilson_interval(num, den, conf)
    for name, got, want in (("ci_low", lo, want_lo), ("ci_high", hi, want_hi)):
        if got is None or want is None or abs(got - want) > CONSISTENCY_TOLERANCE:
            raise c.fail(f"{f}.{name}", f"({got!r}) is not the {conf:g} Wilson bound of "
                         f"{num}/{den} ({want!r})")


def validate_metric(c: _Check, metric: str, query: str, e: Any) -> None:
    """One gate metric entry against its declared kind (``queries/metrics/<query>.sql``)."""
    f = f"metrics.{metric}"
    e = c.obj(e, f)
    kind = get_metric(query).kind
    if e.get("kind") != kind:
        raise c.fail(f"{f}.kind", f"must be {kind!r} (the kind {query}.sql declares), got "
                     f"{e.get('kind')!r}")
    n = c.count(e.get("sample_size"), f"{f}.sample_size")
    assert n is not None
    value = e.get("value")
    if (value is None) != (n == 0):
        raise c.fail(f"{f}.value", "must be null exactly when sample_size is 0 (not measured), "
                     f"got {value!r} over {n}")
    if value is not None:
        if kind == "rate":
            c.number(value, f"{f}.value", hi=1.0)
        elif kind == "count":
            c.count(value, f"{f}.value")
        elif kind == "bool" and type(value) is not bool:
            raise c.fail(f"{f}.value", f"must be true, false or null, got {value!r}")
        elif kind == "value":
            c.number(value, f"{f}.value")
    if kind == "rate":
        _rate(c, e, f, value, n)
    elif kind == "count":
        num = c.count(e.get("numerator"), f"{f}.numerator", nullable=value is None)
        if value is not None and num != value:
            raise c.fail(f"{f}.numerator", f"({num!r}) must equal the count ({value!r})")
        if value is not None and value > n:
            raise c.fail(f"{f}.value", f"({value}) exceeds its sample size ({n})")


def validate_artifact(doc: dict[str, Any], where: str) -> None:
    """Refuse (InputError naming the field) anything a measurement could not have written."""
    c = _Check(where)
    metrics = c.obj(doc.get("metrics"), "metrics")
    for t in GATE:
        validate_metric(c, t.metric, t.query, metrics.get(t.metric))
    prov = c.obj(doc.get("provenance"), "provenance")
    win = c.obj(prov.get("window"), "provenance.window")
    start = c.timestamp(win.get("start"), "provenance.window.start")
    end = c.timestamp(win.get("end"), "provenance.window.end")
    if end <= start:
        raise c.fail("provenance.window.end", "must be after provenance.window.start")
    stage = prov.get("stage")
    if stage is not None and stage not in STAGES:
        raise c.fail("provenance.stage", f"must be null or one of {', '.join(STAGES)}, got "
                     f"{stage!r}")
    pop = c.obj(prov.get("population"), "provenance.population")
    caps = c.obj(pop.get("captures"), "provenance.population.captures")
    for k in CAPTURE_COUNTS:
        c.count(caps.get(k), f"provenance.population.captures.{k}")
    if caps["invalid_in_window"] > caps["invalid"]:
        raise c.fail("provenance.population.captures.invalid_in_window",
                     "exceeds provenance.population.captures.invalid")
    if caps["invalid"] + caps["in_window"] + caps["outside_window"] != caps["read"]:
        raise c.fail("provenance.population.captures.read",
                     "must equal invalid + in_window + outside_window")
    c.tally(pop.get("by_case_type"), "provenance.population.by_case_type")
    c.tally(pop.get("by_stage"), "provenance.population.by_stage", keys=STAGES)
    c.tally(pop.get("outage_tests", {}), "provenance.population.outage_tests")
    c.count(pop.get("reviews"), "provenance.population.reviews")
    c.count(pop.get("invalid_reviews"), "provenance.population.invalid_reviews")
    job = c.obj(prov.get("measurement_job"), "provenance.measurement_job")
    c.text(job.get("package_version"), "provenance.measurement_job.package_version")
    c.text(job.get("metric_queries_sha256"), "provenance.measurement_job.metric_queries_sha256",
           pattern=HEX64)
    c.timestamp(prov.get("computed_at"), "provenance.computed_at")
    out = c.obj(prov.get("output"), "provenance.output")
    c.text(out.get("path"), "provenance.output.path")
    c.text(out.get("sha256"), "provenance.output.sha256", pattern=HEX64)
    validate_knowledge(doc, where)
    probs = prov.get("problems")
    if probs is not None:
        c.count(c.obj(probs, "provenance.problems").get("count"), "provenance.problems.count")
