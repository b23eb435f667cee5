"""The release gate: check a metrics artifact (``release_metrics/1``) against :data:`GATE`.

An artifact without provenance, edited after it was measured, or marked synthetic (unless
``allow_synthetic``, which is test-only) is refused with :class:`InputError`; a metric that
misses its threshold fails the gate (:class:`GateFailed` from the CLI, exit 4).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError, NotFoundError
from rcaeval.release._metrics import METRICS_FORMAT, canonical_bytes
from rcaeval.release._models import STAGES
from rcaeval.release._thresholds import DEFAULT_MAX_AGE_DAYS, FRESH_STAGES, GATE

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


def load_artifact(path: str | Path) -> dict[str, Any]:
    """Read a metrics artifact and refuse it unless it is a ``release_metrics/1`` object with
    every gate metric, the required provenance, and a matching ``provenance.output.sha256``
    (and ``<file>.sha256`` sidecar, when present)."""
    p = Path(path)
    if not p.is_file():
        raise NotFoundError(f"no metrics artifact at {p}")
    data = p.read_bytes()
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
    for key in REQUIRED_PROVENANCE:
        if _get(prov, key) in (None, "", {}):
            dotted = ".".join(("provenance", *key))
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
    want = prov["output"]["sha256"]
    got = hashlib.sha256(canonical_bytes(doc)).hexdigest()
    if want != got:
        raise InputError("refused: provenance.output.sha256 does not match the content (the "
                         "artifact was edited after it was measured)", file=where,
                         field="provenance.output.sha256")
    side = Path(str(p) + ".sha256")
    if side.is_file():
        recorded = side.read_text(encoding="utf-8").split()[:1]
        if recorded != [hashlib.sha256(data).hexdigest()]:
            raise InputError(f"refused: the file's sha256 does not match {side.name}",
                             file=where, field="sha256")
    doc["_source"] = where
    return doc


def _metric_row(t: Any, entry: dict[str, Any], strict: bool) -> GateRow:
    value = entry.get("value")
    n = entry.get("sample_size")
    ci = (entry.get("ci_low"), entry.get("ci_high")) if entry.get("kind") == "rate" else None
    row = GateRow(t.metric, value, t.text(), False, sample_size=n, ci=ci)
    if value is None:
        row.detail = "not measured (no rows in the window)"
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


def check_gate(doc: dict[str, Any], *, allow_synthetic: bool = False, strict: bool = False,
               stage: str | None = None, max_age_days: float = DEFAULT_MAX_AGE_DAYS,
               now: datetime | None = None) -> GateResult:
    """Check a loaded artifact (:func:`load_artifact`). ``strict``: a rate passes only when the
    bound of its Wilson interval on the failing side clears the threshold. ``stage``: the
    rollout stage the artifact must have measured (assist and authoritative also need it to
    be at most ``max_age_days`` old)."""
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
    prov = doc["provenance"]
    rows = [_metric_row(t, doc["metrics"][t.metric], strict) for t in GATE]
    invalid = int(_get(prov, ("population", "captures", "invalid")) or 0)
    rows.append(GateRow("invalid_captures", invalid, "0", invalid == 0,
                        "" if invalid == 0 else "captures that failed validation were not "
                        "measured"))
    if stage is not None:
        by_stage = _get(prov, ("population", "by_stage")) or {}
        measured = sorted(k for k, v in by_stage.items() if v)
        ok = prov.get("stage") == stage or measured == [stage]
        rows.append(GateRow("stage", ", ".join(measured) or "-", stage, ok,
                            "" if ok else f"the artifact measured {measured or 'nothing'}"))
        if stage in FRESH_STAGES:
            at = datetime.fromisoformat(str(prov["computed_at"]).replace("Z", "+00:00"))
            age = ((now or datetime.now(UTC)) - at).total_seconds() / 86400
            rows.append(GateRow("artifact_age_days", round(age, 2), f"<= {max_age_days:g}",
                                age <= max_age_days,
                                "" if age <= max_age_days else "not fresh: measure again"))
    return GateResult(rows, strict, stage, synthetic, where, warnings)
