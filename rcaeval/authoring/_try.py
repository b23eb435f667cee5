"""``rcaeval case try``: judge one answer against one case with the judge's own code and show
each detector's decision, the rule behind it and the diagnosis checks' outcomes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rcaeval.authoring._judging import Answer, AnswerJudgment, judge_answers
from rcaeval.errors import InputError, NotFoundError

TRY_KEY = "case-try"
"""The run id the tried answer is judged under (on a throw-away in-memory store)."""


def try_answer(registry: str | Path | None, case_id: str, answer: str, *,
               bundle: str | Path | None = None) -> AnswerJudgment:
    """Judge ``answer`` (the final answer text, as an agent's ``output.txt``) against case
    ``case_id`` of ``registry`` (default: ``$RCAEVAL_REGISTRY`` or ``data/registry``).

    Without ``bundle`` the answer is judged on its own: the bundle holds only the answer and
    an empty report, so the detectors and the diagnosis bucket say what the answer earns and
    the evidence buckets fail (nothing was collected). With ``bundle`` (a run bundle dir, e.g.
    ``out/audits/<run>/<case>``) a copy of it is judged with ``answer`` in place of its
    ``output.txt``: the whole verdict that answer would get with that evidence."""
    from rcaeval.authoring._newcase import check_case_id
    from rcaeval.registry import load_case

    check_case_id(case_id)  # an id, never a path ("../../elsewhere")
    if not answer.strip():
        raise InputError("the answer is empty", field="answer")
    if bundle is not None:
        if not Path(bundle).exists():
            raise NotFoundError(f"{bundle}: bundle dir not found")
        if not Path(bundle).is_dir():
            raise InputError("is not a directory: name a run bundle dir", file=str(bundle),
                             field="--bundle")
    merged = load_case(registry, case_id)
    found = judge_answers({case_id: merged}, [Answer(
        key=TRY_KEY, case_id=case_id, text=answer,
        bundle=Path(bundle) if bundle is not None else None)])
    result = found[TRY_KEY]
    order = list(merged.judge.detectors)
    result.detectors = dict(sorted(result.detectors.items(),
                                   key=lambda kv: order.index(kv[0]) if kv[0] in order
                                   else len(order)))
    return result


def try_payload(result: AnswerJudgment, *, bundle: bool) -> dict[str, Any]:
    """The JSON of ``rcaeval case try --json``."""
    diagnosis = result.bucket("diagnosis") or {}
    payload: dict[str, Any] = {
        "case_id": result.case_id,
        "detectors": [d.to_dict() for d in result.detectors.values()],
        "diagnosis": {"status": diagnosis.get("status"), "reason": diagnosis.get("reason"),
                      "checks": result.bucket_checks("diagnosis")},
    }
    if bundle:
        payload["verdict"] = result.verdict
        payload["verdict_reason"] = result.verdict_reason
        payload["buckets"] = result.buckets
        payload["checks"] = result.checks
    return payload
