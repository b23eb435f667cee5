"""Offline fixtures from a capture export (``capture/1``, docs/release.md): the novel-incident
gate and ``offline score`` grade exported staging/production captures directly
(docs/offline.md, "Capture exports").

The export is read and validated exactly as ``release metrics`` reads it (one home:
:func:`rcaeval.release.query_captures`): a capture with a problem is an error row naming its
file, line and field, and every other capture is graded. A capture's labels are its own, else those
of its latest operator review with the same ``analysis_hash`` (``--reviews``). The
capture's expected outcome becomes fixture outcomes by :data:`EXPECTED_AS_OUTCOMES`.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import orjson

from rcaeval._paths import read_query
from rcaeval.errors import InputError, NotFoundError
from rcaeval.offline._fixture import FixtureError, FixtureSet, parse_fixture

_SNIFF_BYTES = 1024 * 1024
_SNIFF_LINES = 1000
EXPECTED_AS_OUTCOMES: dict[str, list[str]] = {
    "diagnose": ["diagnosed", "provisional"],
    "novel": ["diagnosed", "provisional"],
    "abstain": ["insufficient_evidence"],
}
"""A capture label's ``expected_outcome`` as the fixture outcomes a correct answer may have:
``diagnose`` and ``novel`` accept a diagnosed or provisional answer (``novel`` also expects
``novel: true``), ``abstain`` accepts only ``insufficient_evidence``. A tool_degraded capture
expected to diagnose also accepts ``degraded``. Without an ``expected_outcome`` label:
``abstain`` for a tool_degraded capture whose response abstains is not assumed - the capture
is graded as ``diagnose`` (and ``novel`` for a novel case)."""

IMPLIED_GATES: dict[str, dict[str, bool]] = {
    s: {"gate1_high_confidence_support": True, "gate2_material_claims_traced": True,
        "gate3_disruptive_guardrails": True, "gate4_generic_alert_target_verified": True}
    for s in ("passed", "repaired")}
"""The gate results a harness status implies when the export carries no ``gates``:
``passed`` and ``repaired`` mean every gate held on the final pass (docs/harness.md,
"Statuses"). Any other status without ``gates`` leaves the final safety gate unknown, which
the novel-incident gate counts as unsafe."""


def is_capture_export(path: str | Path) -> bool:
    """Whether ``path`` is a capture export rather than an offline fixture file: a
    directory, a Parquet file, or JSON lines whose first object has ``capture_id`` and no
    ``case_id``."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except OSError:
        return False
    if stat.S_ISDIR(mode):
        return True
    if not stat.S_ISREG(mode):  # a FIFO or device: the fixture reader refuses it (exit 3)
        return False
    if p.suffix == ".parquet":
        return True
    try:
        with p.open("rb") as fh:
            for _ in range(_SNIFF_LINES):
                raw = fh.readline(_SNIFF_BYTES)
                if not raw:
                    return False
                if raw.strip():
                    obj = orjson.loads(raw)
                    return isinstance(obj, dict) and "capture_id" in obj \
                        and "case_id" not in obj
    except (OSError, orjson.JSONDecodeError):
        return False
    return False


def _outcomes(case_type: str, expected: str | None) -> list[str]:
    key = expected or ("novel" if case_type == "novel" else "diagnose")
    out = list(EXPECTED_AS_OUTCOMES[key])
    if case_type == "tool_degraded" and key == "diagnose":
        out.append("degraded")
    return out


def _fixture_row(row: dict[str, Any]) -> dict[str, Any]:
    harness = orjson.loads(row["harness"]) if row["harness"] else None
    fx: dict[str, Any] = {
        "case_id": row["capture_id"], "case_type": row["case_type"],
        "expected_family": row["expected_family"],
        "expected_outcome": _outcomes(row["case_type"], row["expected_outcome"]),
        "relevant_evidence_ids": orjson.loads(row["relevant_evidence_ids"] or "[]") or [],
        "source": f"capture export {Path(row['src']).name}:{row['line']}",
        "response": orjson.loads(row["response"]),
    }
    if row["expected_outcome"] == "novel":
        fx["expected_novel"] = True
    if isinstance(harness, dict):
        gates = harness.get("gates")
        if not isinstance(gates, dict) or not gates:
            gates = IMPLIED_GATES.get(harness.get("status"), {})
        fx["harness"] = {"status": harness.get("status"),
                         "gates": {k: v for k, v in gates.items() if isinstance(v, bool)}}
    return fx


def read_capture_fixtures(source: str | Path, *, reviews: str | Path | None = None,
                          window: str | None = None, stage: str | None = None) -> FixtureSet:
    """The captures of ``source`` (a ``capture/1`` JSONL or Parquet file, or a directory of
    them) as offline fixtures, restricted to ``window`` (``START..END``, as ``release
    metrics --window``) and ``stage``. Invalid captures and captures without a case type
    label are left out: the first as ``errors``, the second as ``skipped``. The export fails
    as a whole only when it is missing, unreadable or holds no capture."""
    from rcaeval.release import STAGES, query_captures

    p = Path(source)
    if not p.exists():
        raise NotFoundError(f"{p}: no such capture export")
    if stage is not None and stage not in STAGES:
        raise InputError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}",
                         field="--stage")
    rows, probs, review_problems = query_captures(
        p, read_query("offline/capture_fixtures.sql"), window=window, reviews=reviews,
        stage=stage)
    out = FixtureSet(str(p))
    for pr in review_problems:
        out.errors.append(FixtureError(pr.get("src") or str(reviews), int(pr.get("line") or 0),
                                       None, pr.get("field"), pr.get("message", "")))
    for pr in probs:
        out.errors.append(FixtureError(pr["src"], int(pr["line"]), pr.get("capture_id"),
                                       pr.get("field"), pr["message"]))
    for row in rows:
        where = dict(file=row["src"], line=int(row["line"]))
        if not row["case_type"]:
            out.skipped.append(FixtureError(
                row["src"], int(row["line"]), row["capture_id"], "labels.case_type",
                "not graded: no case type label (neither its own labels nor an operator "
                "review with its analysis_hash; pass --reviews)"))
            continue
        try:
            fx = parse_fixture(_fixture_row(row), **where)
        except InputError as exc:
            out.errors.append(FixtureError(row["src"], int(row["line"]), row["capture_id"],
                                           exc.field, exc.message))
            continue
        out.fixtures.append(fx)
        out.lines.append(int(row["line"]))
    if not out.fixtures and not out.errors and not out.skipped:
        raise InputError("holds no captures in the window", file=str(p))
    return out
