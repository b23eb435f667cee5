"""The release gate: check a metrics artifact (``release_metrics/1``) against :data:`GATE`.

An artifact without provenance, edited after it was measured, or marked synthetic (unless
``allow_synthetic``, which is test-only) is refused with :class:`InputError`; a metric that
misses its threshold fails the gate (:class:`GateFailed` from the CLI, exit 4).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval._inputs import read_input
from rcaeval.errors import InputError, NotFoundError
from rcaeval.metrics import get_metric
from rcaeval.release._artifact import validate_artifact
from rcaeval.release._knowledge import check_package
from rcaeval.release._metrics import METRICS_FORMAT, canonical_bytes
from rcaeval.release._models import STAGES
from rcaeval.release._signing import ReleaseKey, load_key, verify_document
from rcaeval.release._thresholds import DEFAULT_MAX_AGE_DAYS, FRESH_STAGES, GATE, MAX_CLOCK_SKEW
from rcaeval.release._time import parse_timestamp

REQUIRED_PROVENANCE: tuple[tuple[str, ...], ...] = (
    ("window", "start"), ("window", "end"),
    ("population", "captures", "in_window"), ("population", "by_case_type"),
    ("measurement_job", "package_version"), ("measurement_job", "metric_queries_sha256"),
    ("computed_at",), ("output", "path"), ("output", "sha256"),
)
"""What the seed's release procedure demands beside the metrics: the incident window, the
population, the measurement job revision and the output artifact."""


@dataclass
class GateRow:
    metric: str
    value: Any
    threshold: str
    passed: bool
    detail: str = ""
    sample_size: int | None = None
    ci: tuple[Any, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "value": self.value, "threshold": self.threshold,
                "passed": self.passed, "detail": self.detail, "sample_size": self.sample_size,
                "ci_low": self.ci[0] if self.ci else None,
                "ci_high": self.ci[1] if self.ci else None}


@dataclass
class GateResult:
    rows: list[GateRow]
    strict: bool
    stage: str | None
    synthetic: bool
    source: str
    warnings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.rows)

    @property
    def failed(self) -> list[str]:
        return [r.metric for r in self.rows if not r.passed]

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "strict": self.strict, "stage": self.stage,
                "synthetic": self.synthetic, "source": self.source,
                "failed": self.failed, "warnings": self.warnings,
                "rows": [r.as_dict() for r in self.rows]}


def _get(doc: Any, path: tuple[str, ...]) -> Any:
    cur = doc
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def load_artifact(path: str | Path, *, verify_key: Any = None) -> dict[str, Any]:
    """Read a metrics artifact and refuse it unless it is a ``release_metrics/1`` object with
    every gate metric, the required provenance, a matching ``provenance.output.sha256`` and
    ``<file>.sha256`` sidecar, a signature that verifies when a key is configured
    (``verify_key``: a :class:`ReleaseKey`, a path or ``env:NAME``; None: ``$RCAEVAL_RELEASE_KEY``
    when set), and every field of the type and range a measurement writes."""
    p = Path(path)
    if not p.exists():
        raise NotFoundError(f"no metrics artifact at {p}")
    key = verify_key if isinstance(verify_key, ReleaseKey) else load_key(
        verify_key, field="verify_key")
    data = read_input(p, "artifact")
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc}", file=str(p)) from exc
    where = str(p)
    if not isinstance(doc, dict):
        raise InputError("a metrics artifact is a JSON object", file=where)
    if doc.get("format") != METRICS_FORMAT:
        raise InputError(f"format must be {METRICS_FORMAT!r}, got {doc.get('format')!r}",
                         file=where, field="format")
    if not isinstance(doc.get("synthetic"), bool):
        raise InputError("refused: 'synthetic' must be true or false", file=where,
                         field="synthetic")
    prov = doc.get("provenance")
    if not isinstance(prov, dict):
        raise InputError("refused: the artifact has no provenance (window, population, "
                         "measurement job, output); measure it with `rcaeval release metrics`",
                         file=where, field="provenance")
    for req in REQUIRED_PROVENANCE:
        if _get(prov, req) in (None, "", {}):
            dotted = ".".join(("provenance", *req))
            raise InputError(f"refused: provenance lacks {dotted}", file=where, field=dotted)
    metrics = doc.get("metrics")
    if not isinstance(metrics, dict):
        raise InputError("metrics must be an object", file=where, field="metrics")
    for t in GATE:
        entry = metrics.get(t.metric)
        if not isinstance(entry, dict) or "value" not in entry:
            raise InputError(f"refused: metric {t.metric!r} is missing (a gate metric must be "
                             "present, with a null value when it could not be measured)",
                             file=where, field=f"metrics.{t.metric}")
    canonical = canonical_bytes(doc)
    if prov["output"]["sha256"] != hashlib.sha256(canonical).hexdigest():
        raise InputError("refused: provenance.output.sha256 does not match the content (the "
                         "artifact was edited after it was measured)", file=where,
                         field="provenance.output.sha256")
    side = Path(str(p) + ".sha256")
    if not side.is_file():
        raise InputError(f"refused: {side.name} is missing (release metrics writes it beside "
                         "the artifact: keep the two together)", file=where, field="sha256")
    recorded = side.read_text(encoding="utf-8", errors="replace").split()[:1]
    if recorded != [hashlib.sha256(data).hexdigest()]:
        raise InputError(f"refused: the file's sha256 does not match {side.name}",
                         file=where, field="sha256")
    if key is not None:
        verify_document(doc, key, canonical, where)
        integrity = f"signature verified ({doc['signature']['algorithm']}, {key.key_id})"
    elif doc.get("signature") is not None:
        integrity = ("signed, but no verify key is configured: the signature was NOT checked "
                     "(--verify-key or $RCAEVAL_RELEASE_KEY)")
    else:
        integrity = ("unsigned: only a content hash, which anyone can recompute; sign with "
                     "`release metrics --sign-key` and check with `release gate --verify-key`")
    validate_artifact(doc, where)
    doc["_source"] = where
    doc["_integrity"] = integrity
    doc["_verified"] = key is not None
    return doc


def _metric_row(t: Any, entry: dict[str, Any], strict: bool) -> GateRow:
    value = entry.get("value")
    n = entry.get("sample_size")
    rate = get_metric(t.query).kind == "rate"   # the declared kind (validated to match)
    ci = (entry.get("ci_low"), entry.get("ci_high")) if rate else None
    row = GateRow(t.metric, value, t.text(), False, sample_size=n, ci=ci)
    if value is None:
        row.passed = t.passes_when_empty
        row.detail = ("nothing to measure (sample size 0): passes, as its threshold allows"
                      if row.passed else "not measured (sample size 0): fails the gate")
        return row
    row.passed = t.holds(value)
    if not row.passed:
        row.detail = "misses the threshold"
    elif strict and ci is not None:
        bound = t.interval_bound(*ci)
        if bound is not None:
            name, b = bound
            row.passed = b is not None and t.holds(b)
            if not row.passed:
                row.detail = (f"strict: {name} {b:.4f} does not clear {t.text()} "
                              f"(n={n})" if b is not None else "strict: no interval")
    return row


def _check_stage(doc: dict[str, Any], stage: str, max_age_days: float,
                 now: datetime | None, where: str) -> list[GateRow]:
    """The rows of a stage check that holds; a refusal (exit 3) when the artifact cannot
    decide ``stage``: it measured another stage, or it is not fresh enough for it."""
    prov = doc["provenance"]
    by_stage = _get(prov, ("population", "by_stage")) or {}
    measured = sorted(k for k, v in by_stage.items() if v)
    if not (prov.get("stage") == stage or measured == [stage]):
        raise InputError(f"refused: the artifact measured {', '.join(measured) or 'nothing'}"
                         f" (provenance.stage {prov.get('stage')!r}), not stage {stage}: it "
                         f"cannot decide {stage}; measure a {stage} window (--stage {stage})",
                         file=where, field="provenance.stage")
    rows = [GateRow("stage", ", ".join(measured), stage, True)]
    if stage in FRESH_STAGES:
        at = parse_timestamp(prov["computed_at"])
        age = ((now or datetime.now(UTC)) - at).total_seconds() / 86400
        if age < -MAX_CLOCK_SKEW.total_seconds() / 86400:
            raise InputError(f"refused: provenance.computed_at {prov['computed_at']} is in the "
                             "future", file=where, field="provenance.computed_at")
        if age > max_age_days:
            raise InputError(f"refused: the artifact is {age:.2f} days old; stage {stage} needs "
                             f"a fresh one (at most --max-age-days {max_age_days:g}): measure "
                             "again", file=where, field="provenance.computed_at")
        rows.append(GateRow("artifact_age_days", round(max(age, 0.0), 2),
                            f"<= {max_age_days:g}", True))
    return rows


def check_gate(doc: dict[str, Any], *, allow_synthetic: bool = False, strict: bool = False,
               stage: str | None = None, max_age_days: float = DEFAULT_MAX_AGE_DAYS,
               now: datetime | None = None, require_package: str | None = None,
               require_activation_path: str | None = None) -> GateResult:
    """Check a loaded artifact (:func:`load_artifact`). ``strict``: a rate passes only when the
    bound of its Wilson interval on the failing side clears the threshold. ``stage``: the
    rollout stage the artifact must have measured (assist and authoritative also need it to
    be at most ``max_age_days`` old); an artifact that cannot decide the stage (another
    stage, stale) is refused (InputError, exit 3), as every other artifact that cannot
    decide is; exit 4 means the measured window misses a threshold. ``require_package`` /
    ``require_activation_path``: the knowledge package (activation path) the artifact must
    have measured, alone (``provenance.knowledge``); another, several or none is refused."""
    where = str(doc.get("_source", "<artifact>"))
    synthetic = bool(doc.get("synthetic"))
    warnings: list[str] = []
    if synthetic:
        if not allow_synthetic:
            raise InputError("refused: the artifact is marked synthetic (it only tests the "
                             "gate's mechanics); --allow-synthetic is for tests only",
                             file=where, field="synthetic")
        warnings.append("SYNTHETIC artifact allowed (--allow-synthetic): test-only, never a "
                        "release decision")
    if stage is not None and stage not in STAGES:
        raise InputError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}",
                         field="stage")
    if not math.isfinite(max_age_days) or max_age_days < 0:
        raise InputError(f"max_age_days must be a non-negative number, got {max_age_days!r}",
                         field="max_age_days")
    if not doc.get("_verified", False) and doc.get("_integrity"):
        warnings.append(str(doc["_integrity"]))
    prov = doc["provenance"]
    stage_rows = _check_stage(doc, stage, max_age_days, now, where) if stage else []
    stage_rows += [GateRow(name, measured, required, True) for name, measured, required
                   in check_package(doc, require_package, require_activation_path, where)]
    rows = [_metric_row(t, doc["metrics"][t.metric], strict) for t in GATE]
    caps = _get(prov, ("population", "captures")) or {}
    invalid = int(caps.get("invalid_in_window", caps.get("invalid")) or 0)
    outside = int(caps.get("invalid") or 0) - invalid
    rows.append(GateRow("invalid_captures", invalid, "0", invalid == 0,
                        ("captures that failed validation in the window (or of unknown "
                         "time) were not measured" if invalid else "")
                        + (f"{'; ' if invalid else ''}{outside} invalid outside the window "
                           "(not gated)" if outside else "")))
    bad_reviews = int(_get(prov, ("population", "invalid_reviews")) or 0)
    rows.append(GateRow("invalid_reviews", bad_reviews, "0", bad_reviews == 0,
                        "" if bad_reviews == 0 else "reviews that failed validation labelled "
                        "nothing: the labelled denominators may be short"))
    return GateResult(rows + stage_rows, strict, stage, synthetic, where, warnings)
