"""Stored release windows (docs/release.md, "Stored windows"): record a ``release_metrics/1``
artifact's metrics and gate decision in the store, list what is stored, and the frames the
release-gate notebook's trend reads.

Recording is idempotent per (window, stage, artifact checksum): the same artifact recorded
twice changes nothing; a re-measurement of a window (another checksum) is kept beside the
earlier one, and the trend reads the latest per (window, stage)
(``queries/charts/release_trend.sql``).

Typical use::

    import rcaeval.store as st
    from rcaeval.release import record_window, stored_windows

    with st.connect("data/rcaeval.duckdb") as s:
        record_window(s, "M.json")          # RecordResult(new=True, ...)
        stored_windows(s)                    # one row per stored window
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rcaeval._paths import read_query
from rcaeval.errors import InputError
from rcaeval.release._gate import check_gate, load_artifact
from rcaeval.release._models import STAGES
from rcaeval.release._thresholds import GATE

if TYPE_CHECKING:
    from rcaeval.store import Store

ALL_STAGES = "all"
"""The ``stage`` of a window measured over every stage (``release metrics`` without
``--stage``)."""

_WINDOW_SCHEMA: dict[str, Any] = {
    "window_start": pl.Datetime("us", "UTC"), "window_end": pl.Datetime("us", "UTC"),
    "window_spec": pl.String, "stage": pl.String, "artifact_sha256": pl.String,
    "synthetic": pl.Boolean, "gate_passed": pl.Boolean, "gate_passed_strict": pl.Boolean,
    "failed": pl.List(pl.String), "failed_strict": pl.List(pl.String),
    "captures_in_window": pl.Int64, "captures_invalid": pl.Int64, "reviews": pl.Int64,
    "package_version": pl.String, "git_revision": pl.String,
    "metric_queries_sha256": pl.String, "artifact_path": pl.String,
    "computed_at": pl.Datetime("us", "UTC"), "recorded_at": pl.Datetime("us", "UTC"),
}
_METRIC_SCHEMA: dict[str, Any] = {
    "window_start": pl.Datetime("us", "UTC"), "window_end": pl.Datetime("us", "UTC"),
    "stage": pl.String, "artifact_sha256": pl.String, "metric": pl.String, "kind": pl.String,
    "value": pl.Float64, "numerator": pl.Float64, "denominator": pl.Float64,
    "sample_size": pl.Int64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    "threshold": pl.String, "threshold_op": pl.String, "threshold_value": pl.Float64,
    "passed": pl.Boolean, "passed_strict": pl.Boolean,
}


@dataclass(frozen=True)
class RecordResult:
    """What :func:`record_window` did: ``new`` is false when the same artifact (window, stage,
    checksum) was already stored."""

    new: bool
    window_start: datetime
    window_end: datetime
    stage: str
    artifact_sha256: str
    gate_passed: bool


def _ts(value: Any) -> datetime:
    at = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _num(value: Any) -> float | None:
    if value is None:
        return None
    return float(value)


def window_frames(doc: dict[str, Any] | None, *, allow_synthetic: bool = False,
                  recorded_at: datetime | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(window row, metric rows)`` of a loaded artifact (:func:`load_artifact`), in the
    shape of the ``release_windows`` / ``release_window_metrics`` tables: the gate decision
    both on point estimates and strict (Wilson bounds). A synthetic artifact is refused unless
    ``allow_synthetic`` (the gate's rule). ``doc`` None: both frames empty, in that shape."""
    if doc is None:
        return pl.DataFrame(schema=_WINDOW_SCHEMA), pl.DataFrame(schema=_METRIC_SCHEMA)
    point = check_gate(doc, allow_synthetic=allow_synthetic)
    strict = check_gate(doc, allow_synthetic=allow_synthetic, strict=True)
    prov = doc["provenance"]
    win = prov["window"]
    key = {"window_start": _ts(win["start"]), "window_end": _ts(win["end"]),
           "stage": prov.get("stage") or ALL_STAGES,
           "artifact_sha256": str(prov["output"]["sha256"])}
    caps = (prov.get("population") or {}).get("captures") or {}
    job = prov.get("measurement_job") or {}
    window = {
        **key, "window_spec": win.get("spec"), "synthetic": bool(doc.get("synthetic")),
        "gate_passed": point.passed, "gate_passed_strict": strict.passed,
        "failed": point.failed, "failed_strict": strict.failed,
        "captures_in_window": caps.get("in_window"), "captures_invalid": caps.get("invalid"),
        "reviews": (prov.get("population") or {}).get("reviews"),
        "package_version": job.get("package_version"), "git_revision": job.get("git_revision"),
        "metric_queries_sha256": job.get("metric_queries_sha256"),
        "artifact_path": (str(Path(doc["_source"]).resolve()) if doc.get("_source")
                          else (prov.get("output") or {}).get("path")),
        "computed_at": _ts(prov["computed_at"]),
        "recorded_at": recorded_at or datetime.now(UTC),
    }
    rows_point = {r.metric: r for r in point.rows}
    rows_strict = {r.metric: r for r in strict.rows}
    metrics = []
    for t in GATE:
        entry = doc["metrics"][t.metric]
        value = entry.get("value")
        metrics.append({
            **key, "metric": t.metric, "kind": entry.get("kind"),
            "value": None if value is None else float(value),
            "numerator": _num(entry.get("numerator")),
            "denominator": _num(entry.get("denominator")),
            "sample_size": entry.get("sample_size"),
            "ci_low": _num(entry.get("ci_low")), "ci_high": _num(entry.get("ci_high")),
            "threshold": t.text(), "threshold_op": t.op, "threshold_value": float(t.limit),
            "passed": rows_point[t.metric].passed, "passed_strict": rows_strict[t.metric].passed,
        })
    return (pl.DataFrame([window], schema=_WINDOW_SCHEMA),
            pl.DataFrame(metrics, schema=_METRIC_SCHEMA))


def record_window(store: Store, artifact: str | Path | dict[str, Any], *,
                  allow_synthetic: bool = False) -> RecordResult:
    """Record a ``release_metrics/1`` artifact (a path, checked like ``rcaeval release gate``
    does, or a document from :func:`load_artifact`) in ``store``'s ``release_windows`` and
    ``release_window_metrics``. Idempotent per (window, stage, artifact checksum)."""
    doc = artifact if isinstance(artifact, dict) else load_artifact(artifact)
    window, metrics = window_frames(doc, allow_synthetic=allow_synthetic)
    con = store.con
    con.register("window_import", window)
    con.register("window_metrics_import", metrics)
    try:
        with store.transaction():
            known = con.execute(read_query("release/window_known.sql")).fetchall()[0][0]
            con.execute(read_query("release/window_record.sql"))
    finally:
        con.unregister("window_import")
        con.unregister("window_metrics_import")
    row = window.row(0, named=True)
    return RecordResult(new=not known, window_start=row["window_start"],
                        window_end=row["window_end"], stage=row["stage"],
                        artifact_sha256=row["artifact_sha256"], gate_passed=row["gate_passed"])


def stored_windows(store: Store, *, stage: str | None = None,
                   include_synthetic: bool = True) -> pl.DataFrame:
    """One row per stored window (``queries/release/windows_list.sql``), oldest first: the
    window, stage, gate decision (point and strict), failing metrics, captures, the
    measurement job revision, the artifact checksum, and how many times the window was
    measured (``measurements``; the row is the latest). An unknown ``stage`` is an
    :class:`InputError` (it would list nothing, as if no window had been stored)."""
    if stage is not None and stage not in (*STAGES, ALL_STAGES):
        raise InputError(f"stage must be one of {', '.join((*STAGES, ALL_STAGES))}, got "
                         f"{stage!r}", field="stage")
    return store.sql(read_query("release/windows_list.sql"),
                     {"stage": stage, "include_synthetic": include_synthetic})
