"""What the harness returns: check rows, gate results, repairs and :class:`HarnessResult`.

Check rows are shaped like the judge's ``eval_check`` rows so the same analyst code reads
both: one row per scoring rule and per gate, each with why it passed and the evidence ids
that decided it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from rcaeval.harness._config import HarnessConfig
from rcaeval.harness._contract import RcaResponse

Status = Literal["passed", "repaired", "degraded", "insufficient_evidence", "disabled"]
STATUSES: tuple[str, ...] = ("passed", "repaired", "degraded", "insufficient_evidence", "disabled")

DIMENSIONS: dict[str, int] = {
    "evidence_grounding": 25,
    "diagnostic_reasoning": 20,
    "investigation_plan": 20,
    "uncertainty_calibration": 15,
    "operational_usefulness": 15,
    "safety": 5,
}

CHECK_SCHEMA: dict[str, Any] = {
    "analysis_hash": pl.Utf8,
    "kind": pl.Utf8,
    "dimension": pl.Utf8,
    "check_id": pl.Utf8,
    "passed": pl.Boolean,
    "points": pl.Float64,
    "max_points": pl.Float64,
    "reason": pl.Utf8,
    "evidence_ids": pl.List(pl.Utf8),
}


@dataclass(slots=True)
class CheckRow:
    """One scoring rule (kind ``dimension``) or gate (kind ``gate``, dimension ``gate``)."""

    kind: str
    dimension: str
    check_id: str
    passed: bool
    points: float
    max_points: float
    reason: str
    evidence_ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "dimension": self.dimension, "check_id": self.check_id,
            "passed": self.passed, "points": self.points, "max_points": self.max_points,
            "reason": self.reason, "evidence_ids": list(self.evidence_ids),
        }


@dataclass(slots=True)
class GateResult:
    gate: int
    gate_id: str
    passed: bool
    applies: bool
    reason: str
    evidence_ids: list[str] = field(default_factory=list)

    def as_row(self) -> CheckRow:
        return CheckRow("gate", "gate", self.gate_id, self.passed, 0.0, 0.0, self.reason,
                        list(self.evidence_ids))

    def as_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate, "gate_id": self.gate_id, "passed": self.passed,
            "applies": self.applies, "reason": self.reason,
            "evidence_ids": list(self.evidence_ids),
        }


@dataclass(slots=True)
class Repair:
    """One recorded change to the response: what, why, before and after (JSON values)."""

    attempt: int
    repair: str
    target: str
    why: str
    before: Any
    after: Any

    def as_dict(self) -> dict[str, Any]:
        return {
            "attempt": self.attempt, "repair": self.repair, "target": self.target,
            "why": self.why, "before": self.before, "after": self.after,
        }


@dataclass(slots=True)
class Score:
    total: float
    dimensions: dict[str, float]
    checks: list[CheckRow]

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "dimensions": dict(self.dimensions)}


@dataclass(slots=True)
class HarnessResult:
    """The harness's judgment of one RCA response."""

    response: RcaResponse
    status: Status
    score: Score
    gates: list[GateResult]
    repairs: list[Repair]
    analysis_hash: str
    response_hash: str
    initial_gates: list[GateResult]
    initial_score: float
    ledger: list[dict[str, Any]]
    evidence_map: dict[str, str]
    config: HarnessConfig
    original: RcaResponse
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the response may be shown as is (passed or repaired)."""
        return self.status in ("passed", "repaired")

    @property
    def gates_passed(self) -> bool:
        return all(g.passed for g in self.gates)

    def check_rows(self) -> list[CheckRow]:
        return [g.as_row() for g in self.gates] + list(self.score.checks)

    def checks_frame(self) -> pl.DataFrame:
        """Gate and scoring rows of the final response, keyed by ``analysis_hash``."""
        rows = [{"analysis_hash": self.analysis_hash, **r.as_dict()} for r in self.check_rows()]
        return pl.DataFrame(rows, schema=CHECK_SCHEMA)

    def as_dict(self, *, include_checks: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis_hash": self.analysis_hash,
            "response_hash": self.response_hash,
            "status": self.status,
            "score": self.score.as_dict(),
            "initial_score": self.initial_score,
            "pass_score": self.config.pass_score,
            "gates": [g.as_dict() for g in self.gates],
            "initial_gates": [g.as_dict() for g in self.initial_gates],
            "repairs": [r.as_dict() for r in self.repairs],
            "ledger": self.ledger,
            "evidence_map": dict(self.evidence_map),
            "warnings": list(self.warnings),
            "config": self.config.as_dict(),
            "response": self.response.model_dump(mode="json"),
        }
        if include_checks:
            out["checks"] = [r.as_dict() for r in self.score.checks]
        return out
