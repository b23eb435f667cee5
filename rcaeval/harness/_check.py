"""``check(response)``: gate, repair and score one RCA report (docs/harness.md).

Order: parse → number evidence and claims → hash the analysis as received (canonical, so
blind to the numbering) → gates and score
→ up to ``max_repair_attempts`` repair passes (stopping at the first pass that changes
nothing, so a clean response costs one no-op pass) → fallbacks for gates still failing →
final gates and score → status.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from rcaeval.errors import InputError, validation_error
from rcaeval.harness._config import HarnessConfig, resolve_config
from rcaeval.harness._contract import RcaResponse, analysis_hash
from rcaeval.harness._gates import EVIDENCE_GATES, evaluate_gates, failed
from rcaeval.harness._ledger import View, duplicate_ids, normalize
from rcaeval.harness._repairs import fallback, repair_pass
from rcaeval.harness._result import HarnessResult, Repair, Status
from rcaeval.harness._scoring import score


def parse_response(
    response: RcaResponse | dict[str, Any] | str | bytes, *, file: str | None = None,
    line: int | None = None,
) -> RcaResponse:
    """A validated copy of ``response``; raise :class:`InputError` naming the first bad field."""
    if isinstance(response, RcaResponse):
        return response.model_copy(deep=True)
    if isinstance(response, str | bytes):
        try:
            response = orjson.loads(response)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc}", file=file, line=line) from None
    if not isinstance(response, dict):
        raise InputError(f"an RCA response must be a JSON object, got {type(response).__name__}",
                         file=file, line=line)
    bad = _unencodable(response)
    if bad is not None:
        raise InputError("holds text that is not valid Unicode (a lone surrogate such as "
                         "\\ud800): send UTF-8 text", file=file, line=line, field=bad or None)
    try:
        return RcaResponse.model_validate(response)
    except ValidationError as exc:
        raise validation_error(exc, file=file, line=line) from None


def _unencodable(value: Any, path: str = "") -> str | None:
    """The dotted path of the first key or string UTF-8 cannot encode, or ``None``."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        cur, where = stack.pop()
        if isinstance(cur, str):
            try:
                cur.encode("utf-8")
            except UnicodeEncodeError:
                return where
        elif isinstance(cur, dict):
            for k, v in cur.items():
                name = f"{where}.{k}" if where else str(k)
                if isinstance(k, str) and _unencodable(k) is not None:
                    return where or "<key>"
                stack.append((v, name))
        elif isinstance(cur, list):
            stack.extend((v, f"{where}.{i}") for i, v in enumerate(cur))
    return None


def check(
    response: RcaResponse | dict[str, Any] | str | bytes,
    config: HarnessConfig | None = None,
) -> HarnessResult:
    """Check one RCA response before an operator sees it.

    ``config`` wins over the ``ENABLE_RCA_OUTPUT_HARNESS`` / ``MAX_RCA_REPAIR_ATTEMPTS`` /
    ``RCA_HARNESS_PASS_SCORE`` environment, which wins over the defaults. Raises
    :class:`~rcaeval.errors.InputError` for a response that does not meet the contract or for
    an invalid environment value; never for anything the response *says*.
    """
    cfg = resolve_config(config)
    original = parse_response(response)
    warnings: list[str] = []
    dup = duplicate_ids(original)
    if dup:
        warnings.append("duplicate evidence id(s) " + ", ".join(repr(i) for i in dup)
                        + ": a reference resolves to the first artifact with that id")
    work = RcaResponse.model_validate(original.model_dump())  # a copy, faster than deepcopy
    ref_map = normalize(work)
    a_hash = analysis_hash(work, normalized=True)
    if original.analysis_hash and original.analysis_hash != a_hash:
        warnings.append(f"analysis_hash {original.analysis_hash!r} does not match the "
                        f"content ({a_hash}); the computed hash is used")
    view = View(work)
    gates0 = evaluate_gates(view)
    score0 = score(view)

    if not cfg.enabled:
        return HarnessResult(original, "disabled", score0, gates0, [], a_hash, a_hash, gates0,
                             score0.total, [e.as_dict() for e in view.ledger], ref_map, cfg,
                             original, warnings)

    repairs: list[Repair] = []
    gates, sc = gates0, score0
    for attempt in range(1, cfg.max_repair_attempts + 1):
        records = repair_pass(work, attempt)
        if not records:
            break
        repairs.extend(records)
        view = View(work)
        gates, sc = evaluate_gates(view), score(view)

    remaining = failed(gates)
    gate3_insufficient = cfg.gate3_outcome == "insufficient_evidence"
    if remaining:
        repairs.extend(fallback(work, gates, gate3_insufficient=gate3_insufficient))
        view = View(work)
        gates, sc = evaluate_gates(view), score(view)

    status: Status
    if failed(remaining, EVIDENCE_GATES) or (gate3_insufficient and failed(remaining, (3,))):
        status = "insufficient_evidence"
    elif remaining or sc.total < cfg.pass_score:
        status = "degraded"
        if work.outcome not in ("degraded", "insufficient_evidence"):
            why = ("a disruptive action was withheld" if remaining
                   else f"score {sc.total} is below the pass score {cfg.pass_score:g}")
            repairs.append(Repair(None, "mark_degraded", "outcome", why, work.outcome,
                                  "degraded"))
            work.outcome = "degraded"
    else:
        status = "repaired" if repairs else "passed"

    work.analysis_hash = analysis_hash(work, normalized=True)
    return HarnessResult(work, status, sc, gates, repairs, a_hash, work.analysis_hash, gates0,
                         score0.total, [e.as_dict() for e in view.ledger], ref_map, cfg,
                         original, warnings)
