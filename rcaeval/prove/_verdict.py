"""From the three reference agents' judgments to a case's proof row and its reasons."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rcaeval.prove._plan import CasePlan

STATUSES: tuple[str, ...] = ("proven", "unproven", "exempt")


@dataclass(frozen=True)
class FailedCheck:
    bucket: str
    check_id: str
    kind: str
    reason: str


@dataclass
class RoleResult:
    """How one reference agent did on one case."""

    status: str
    """The case's execution status (``judged``, ``errored``, ``timed_out``)."""
    verdict: str | None = None
    subtype: str | None = None
    failed: list[FailedCheck] = field(default_factory=list)
    error: str | None = None

    @property
    def outcome(self) -> str:
        return self.verdict if self.status == "judged" and self.verdict else self.status

    @classmethod
    def from_packet(cls, status: str, packet: dict[str, Any] | None, error: str | None = None
                    ) -> RoleResult:
        if packet is None:
            return cls(status=status, error=error)
        failed = [FailedCheck(b["bucket"], c["check_id"], c.get("kind") or "check",
                              c.get("reason") or "")
                  for b in packet.get("buckets") or [] for c in b.get("checks") or []
                  if not c.get("passed")]
        return cls(status=status, verdict=packet.get("verdict"), subtype=packet.get("subtype"),
                   failed=failed, error=error)


@dataclass
class CaseProof:
    """One row of the proof table."""

    case_id: str
    status: str
    """``proven`` | ``unproven`` | ``exempt``."""
    oracle: str
    lazy: str
    wrong: str
    reasons: list[str]
    lazy_channel: str | None = None
    wrong_answer: str | None = None

    @property
    def proven(self) -> bool:
        return self.status == "proven"

    def to_dict(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "status": self.status, "oracle": self.oracle,
                "lazy": self.lazy, "wrong": self.wrong, "reasons": self.reasons,
                "lazy_skipped_channel": self.lazy_channel, "wrong_answer": self.wrong_answer}


def _detector_of(plan_case: Any, check_id: str) -> tuple[str | None, bool]:
    for chk in plan_case.judge.judge.diagnosis.hard_checks:
        if chk.id == check_id:
            for cond in chk.conditions:
                det = getattr(cond, "detector", None) or (
                    cond.fact.removeprefix("detector.") if getattr(cond, "fact", "").startswith(
                        "detector.") else None)
                if det:
                    return det, bool(cond.expect)
    return None, True


def oracle_reasons(plan: CasePlan, case: Any, res: RoleResult) -> list[str]:
    """Why the oracle did not pass: one reason per failing check that matters."""
    if res.status != "judged" or res.verdict is None:
        return [f"the oracle {res.status}: {res.error or 'no judgment'}"]
    if res.verdict == "pass":
        return []
    static = {(u.bucket, u.check_id): u.message for u in plan.unreachable}
    out: list[str] = []
    for f in res.failed:
        if (f.bucket, f.check_id) in static:
            out.append(static[(f.bucket, f.check_id)])
        elif f.bucket == "diagnosis" and f.kind == "hard":
            det, expect = _detector_of(case, f.check_id)
            out.append(f"the oracle's correct answer does not fire {det}" if expect else
                       f"the oracle's correct answer fires the guard {det} ({f.check_id})")
        elif f.bucket == "critical_evidence":
            out.append(f"critical_evidence check {f.check_id}: the tools never return what it "
                       f"needs, though the oracle called every tool (judge: {f.reason})")
        elif f.bucket != "diagnosis":
            out.append(f"{f.bucket} check {f.check_id} fails for the oracle ({f.reason})")
    return out or [f"the oracle is judged {res.verdict} ({res.subtype})"]


def prove_row(plan: CasePlan, case: Any, results: dict[str, RoleResult]) -> CaseProof:
    """The proof row of one case from its plan and the three agents' results."""
    if plan.exempt:
        return CaseProof(plan.case_id, "exempt", "exempt", "exempt", "exempt",
                         [f"exempt: {plan.exempt}"])
    oracle = results["oracle"]
    reasons = oracle_reasons(plan, case, oracle)
    lazy = results.get("lazy")
    if plan.lazy_channel is None:
        reasons.append("lazy: the case prefers no available channel to skip")
    elif lazy is not None and lazy.status != "judged":
        reasons.append(f"the lazy agent {lazy.status}: {lazy.error or 'no judgment'}")
    elif lazy is not None and lazy.verdict == "pass":
        reasons.append(f"lazy: skipping the {plan.lazy_channel} channel still passes")
    wrong = results.get("wrong")
    if plan.wrong is None:
        reasons.append(plan.no_wrong_reason or "diagnosis: no wrong answer to try")
    elif wrong is not None and wrong.status != "judged":
        reasons.append(f"the wrong agent {wrong.status}: {wrong.error or 'no judgment'}")
    elif wrong is not None:
        guard_failed = any(f.bucket == "diagnosis" and f.check_id == plan.wrong.check_id
                           for f in wrong.failed)
        if wrong.verdict == "pass" or not guard_failed:
            reasons.append(f"diagnosis: no guard fires for the wrong answer "
                           f"'{plan.wrong.phrase}' ({plan.wrong.check_id} passes)")
    return CaseProof(
        plan.case_id, "unproven" if reasons else "proven", oracle.outcome,
        lazy.outcome if lazy else "-", wrong.outcome if wrong else "-", reasons,
        lazy_channel=plan.lazy_channel,
        wrong_answer=plan.wrong.phrase if plan.wrong else None)
