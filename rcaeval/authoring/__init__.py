"""Authoring aids for registry cases (docs/registry.md, "Writing a case"): detector examples
that ``rcaeval validate`` judges, :func:`try_answer` (``rcaeval case try``: judge one answer
against a case with the judge's own code) and :func:`draft_case` (``rcaeval case new``:
draft a case from incident data).

Typical use::

    from rcaeval.authoring import try_answer
    result = try_answer("data/registry", "tikv-panic-restart-001", "Root cause: ...")
    result.detectors["asserts_storage_node_panic"].fires
    result.bucket_checks("diagnosis")
"""

from __future__ import annotations

from rcaeval.authoring._examples import example_problems
from rcaeval.authoring._judging import AnswerJudgment, DetectorDecision
from rcaeval.authoring._newcase import DraftedCase, check_case_id, draft_case
from rcaeval.authoring._try import try_answer, try_payload

__all__ = ["AnswerJudgment", "DetectorDecision", "DraftedCase", "check_case_id", "draft_case",
           "example_problems", "try_answer", "try_payload"]
