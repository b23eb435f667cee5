"""Case proofs (docs/registry.md, "Prove it"): can an agent that uses the incident
tools pass a case, and do a lazy and a wrong agent fail it?

``prove(registry, suite=..., case_ids=...)`` runs three reference agents through the real
runner (``tools: mcp``, the agent sandbox) and returns a :class:`ProofReport`, one
:class:`CaseProof` row per case; ``plan_case(merged)`` is the plan they follow, derived from
the case's judge.yaml runner-side; ``unreachable_checks(merged)`` is the static half (checks
reading a file or fact nothing the agent is given produces), which ``rcaeval validate``
reports as ``unreachable_evidence`` warnings.
"""

from __future__ import annotations

from rcaeval.prove._plan import ROLES, plan_case
from rcaeval.prove._reach import Unreachable, lint_unreachable, unreachable_checks
from rcaeval.prove._run import ProofReport, case_plans, prove
from rcaeval.prove._verdict import CaseProof

__all__ = ["ROLES", "CaseProof", "ProofReport", "Unreachable", "case_plans",
           "lint_unreachable", "plan_case", "prove", "unreachable_checks"]
