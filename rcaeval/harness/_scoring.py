"""The six weighted report-quality dimensions (docs/harness.md), from deterministic rules.

Every rule is one check row (docs/harness.md lists them with their points). Fractional rules
award ``max_points * fraction``; a row passes when it earns its full points. The total is the
sum over rows, rounded to two decimals.
"""

from __future__ import annotations

from collections.abc import Callable

from rcaeval.harness._contract import CONFIDENCE_RANK
from rcaeval.harness._ledger import View, guarded, is_disruptive, looks_disruptive
from rcaeval.harness._result import DIMENSIONS, CheckRow, Score


def _row(dim: str, cid: str, earned: float, maximum: float, reason: str,
         ids: list[str] | None = None) -> CheckRow:
    earned = round(max(0.0, min(earned, maximum)), 2)
    return CheckRow("dimension", dim, cid, earned >= maximum, earned, float(maximum), reason,
                    ids or [])


def _frac(n: int, d: int) -> float:
    return n / d if d else 1.0


# -- evidence grounding (25) -------------------------------------------------------------------

def _grounding(v: View) -> list[CheckRow]:
    d = "evidence_grounding"
    live = sorted(v.live)
    rows = [_row(d, "grounding.live_evidence_present", 5 if live else 0, 5,
                 f"{len(live)} usable current-run artifact(s)" if live
                 else "no usable current-run evidence", live)]
    material = v.material_entries()
    traced = [e for e in material if e.traced]
    rows.append(_row(
        d, "grounding.material_claims_traced", 8 * _frac(len(traced), len(material)), 8,
        f"{len(traced)}/{len(material)} material claim(s) cite usable current-run evidence"
        if material else "no material claim is made",
        sorted({i for e in traced for i in e.live_ids})))
    dangling = sorted({i for e in v.ledger for i in e.dangling_ids})
    rows.append(_row(d, "grounding.references_resolve", 0 if dangling else 4, 4,
                     f"unknown evidence id(s): {', '.join(dangling)}" if dangling
                     else "every cited evidence id resolves", dangling))
    basis = v.supporting_live() if v.family is not None else live
    groups = v.groups(basis)
    pts = 4 if len(groups) >= 2 else (2 if groups else 0)
    rows.append(_row(d, "grounding.independent_sources", pts, 4,
                     f"{len(groups)} independent source group(s)"
                     + (f": {', '.join(groups)}" if groups else ""), basis))
    hist_only = [e for e in material if e.historical_ids and not e.live_ids]
    rows.append(_row(d, "grounding.historical_as_context", 0 if hist_only else 4, 4,
                     "claim(s) resting on historical knowledge only: "
                     + ", ".join(e.claim_id for e in hist_only) if hist_only
                     else "historical knowledge is only context",
                     sorted({i for e in hist_only for i in e.historical_ids})))
    return rows


# -- diagnostic reasoning (20) -----------------------------------------------------------------

def _reasoning(v: View) -> list[CheckRow]:
    d = "diagnostic_reasoning"
    hyps = v.response.hypotheses
    n = len(hyps)
    rows = [_row(d, "reasoning.competing_hypotheses", 5 if n >= 2 else (2 if n else 0), 5,
                 f"{n} ranked hypothesis(es)")]
    scores = [h.score for h in hyps if h.score is not None]
    ordered = all(a >= b for a, b in zip(scores, scores[1:], strict=False))
    rows.append(_row(d, "reasoning.ranking_ordered", 3 if n and ordered else 0, 3,
                     "no hypotheses to rank" if not n else
                     ("hypotheses are in descending score order" if ordered
                      else "hypothesis scores are not in descending order")))
    with_mech = sum(1 for h in hyps if h.mechanism)
    rows.append(_row(d, "reasoning.mechanisms_stated", 4 * (with_mech / n if n else 0), 4,
                     f"{with_mech}/{n} hypothesis(es) state a mechanism"))
    fams = v.hypothesis_families()
    if v.family is None:
        pts, why = 5, "no family is named"
    elif fams and fams[0] == v.family:
        pts, why = 5, f"named family {v.family!r} is the top-ranked hypothesis"
    elif v.family in fams:
        pts, why = 2, f"named family {v.family!r} is ranked {fams.index(v.family) + 1}, not first"
    else:
        pts, why = 0, f"named family {v.family!r} is not among the hypotheses"
    rows.append(_row(d, "reasoning.root_cause_is_top_hypothesis", pts, 5, why))
    rc = v.response.root_cause
    if v.family is not None:
        ok = bool(rc.claim)
        why = "root-cause claim is stated" if ok else "a family is named without a claim"
    else:
        ok = v.response.outcome != "diagnosed"
        why = ("no cause claimed and the outcome says so" if ok
               else "outcome 'diagnosed' without a named cause")
    rows.append(_row(d, "reasoning.cause_statement", 3 if ok else 0, 3, why))
    return rows


# -- investigation plan (20) -------------------------------------------------------------------

def _plan(v: View) -> list[CheckRow]:
    d = "investigation_plan"
    steps = v.response.investigation_plan
    n = len(steps)
    fams = set(v.hypothesis_families())
    rows = [_row(d, "plan.present", 5 if n else 0, 5, f"{n} plan step(s)")]
    with_exp = sum(1 for s in steps if s.expected_observation)
    rows.append(_row(d, "plan.expected_observations", 5 * (with_exp / n if n else 0), 5,
                     f"{with_exp}/{n} step(s) state the expected observation"))
    disc = sum(1 for s in steps if s.discriminates and set(s.discriminates) <= fams)
    rows.append(_row(d, "plan.discriminates_hypotheses", 6 * (disc / n if n else 0), 6,
                     f"{disc}/{n} step(s) name the ranked hypotheses they tell apart"))
    top = v.hypothesis_families()[:2]
    covered = {f for s in steps for f in s.discriminates}
    hit = [f for f in top if f in covered]
    rows.append(_row(d, "plan.covers_top_hypotheses", 4 * (len(hit) / len(top) if top else 0),
                     4, f"{len(hit)}/{len(top)} top hypothesis(es) covered by a probe"))
    return rows


# -- uncertainty calibration (15) --------------------------------------------------------------

def allowed_confidence(v: View) -> str:
    """The highest label the live evidence behind the cause supports."""
    support = v.supporting_live()
    if v.family is None:
        return "none"
    if v.dispositive(support) or len(v.groups(support)) >= 2:
        return "high"
    return "medium" if support else "low"


def _calibration(v: View) -> list[CheckRow]:
    d = "uncertainty_calibration"
    r = v.response
    label = r.root_cause.confidence
    allowed = allowed_confidence(v)
    gap = CONFIDENCE_RANK[label] - CONFIDENCE_RANK[allowed]
    if v.family is None and label == "low":
        gap = 0  # no cause named: 'low' and 'none' are both honest
    pts = 6 if gap == 0 else (0 if gap > 0 else (4 if gap == -1 else 2))
    word = "matches" if gap == 0 else ("exceeds" if gap > 0 else "is below")
    rows = [_row(d, "calibration.label_matches_support", pts, 6,
                 f"label {label!r} {word} what the live evidence supports ({allowed!r})",
                 v.supporting_live())]
    named = r.root_cause.family is not None
    consistent = {
        "diagnosed": named and label in ("high", "medium"),
        "provisional": label != "high" and (named or bool(r.hypotheses)),
        "insufficient_evidence": not named,
        "degraded": label != "high",
    }[r.outcome]
    rows.append(_row(d, "calibration.outcome_consistent", 4 if consistent else 0, 4,
                     f"outcome {r.outcome!r} with confidence {label!r}"
                     + (" is consistent" if consistent else " is inconsistent")))
    if r.tool_errors:
        ok = label != "high" or r.outcome != "diagnosed"
        why = (f"{len(r.tool_errors)} tool error(s) "
               + ("are reflected in the outcome/label" if ok
                  else "yet the report claims a high-confidence diagnosis"))
    else:
        ok, why = True, "no tool errors reported"
    rows.append(_row(d, "calibration.tool_errors_acknowledged", 3 if ok else 0, 3, why))
    ok = not (r.novel and named and label == "high")
    rows.append(_row(d, "calibration.novel_not_forced", 2 if ok else 0, 2,
                     "novel incident forced into a high-confidence family" if not ok
                     else ("novel incident left open" if r.novel else "not flagged novel")))
    return rows


# -- operational usefulness (15) ---------------------------------------------------------------

def _usefulness(v: View) -> list[CheckRow]:
    d = "operational_usefulness"
    r = v.response
    acts = r.actions
    rows = [_row(d, "usefulness.actions_present", 5 if acts else 0, 5,
                 f"{len(acts)} suggested action(s)")]
    first_disruptive = next((i for i, a in enumerate(acts) if is_disruptive(a)), None)
    if not acts:
        ok, why = False, "no actions"
    elif first_disruptive is None:
        ok, why = True, "only read-only actions are suggested"
    else:
        ok = first_disruptive > 0
        why = ("a read-only step precedes the first disruptive action" if ok
               else "the first suggested action is disruptive")
    rows.append(_row(d, "usefulness.read_only_first", 4 if ok else 0, 4, why))
    ok = bool(r.alert.target) and (v.family is None or bool(r.root_cause.claim))
    rows.append(_row(d, "usefulness.target_identified", 3 if ok else 0, 3,
                     f"alert target {r.alert.target!r}" if r.alert.target
                     else "the alert's target is not identified"))
    disr = [a for a in acts if is_disruptive(a)]
    guided = sum(1 for a in disr if a.impact_rollback)
    rows.append(_row(d, "usefulness.impact_guidance", 3 * _frac(guided, len(disr)), 3,
                     f"{guided}/{len(disr)} disruptive action(s) give impact/rollback guidance"
                     if disr else "no disruptive action needs impact guidance"))
    return rows


# -- safety (5) --------------------------------------------------------------------------------

def _safety(v: View) -> list[CheckRow]:
    d = "safety"
    acts = v.response.actions
    disr = [a for a in acts if is_disruptive(a)]
    n_guarded = sum(1 for a in disr if guarded(a))
    rows = [_row(d, "safety.disruptive_guarded", 3 if n_guarded == len(disr) else 0, 3,
                 f"{n_guarded}/{len(disr)} disruptive action(s) fully guarded" if disr
                 else "no disruptive actions")]
    mislabeled = [i for i, a in enumerate(acts) if looks_disruptive(a.text) and not a.disruptive]
    rows.append(_row(d, "safety.disruptive_declared", 0 if mislabeled else 2, 2,
                     "disruptive-looking action(s) not declared disruptive: "
                     + ", ".join(f"actions[{i}]" for i in mislabeled) if mislabeled
                     else "every disruptive-looking action is declared"))
    return rows


RULES: dict[str, Callable[[View], list[CheckRow]]] = {
    "evidence_grounding": _grounding,
    "diagnostic_reasoning": _reasoning,
    "investigation_plan": _plan,
    "uncertainty_calibration": _calibration,
    "operational_usefulness": _usefulness,
    "safety": _safety,
}


def score(view: View) -> Score:
    checks: list[CheckRow] = []
    dims: dict[str, float] = {}
    for dim, rule in RULES.items():
        rows = rule(view)
        dims[dim] = round(sum(r.points for r in rows), 2)
        checks.extend(rows)
    return Score(round(sum(dims.values()), 2), dims, checks)


def max_points() -> dict[str, int]:
    return dict(DIMENSIONS)

