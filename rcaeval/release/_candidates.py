"""Incident-derived knowledge candidates from passing operator reviews (docs/release.md).

The response's full trace ledger is validated first (the preferred ``trace_ledger`` path,
with its two-source-group and linked-probe gates). A complete ledger that fails one of its
gates is rejected, naming the gate: the fallback is for an *incomplete* ledger only, so a
single-source or never-probed diagnosis never becomes knowledge through it. If the ledger is
incomplete, the auditable ``harness_claim`` path may still yield a candidate: the harness
diagnosis is supported, the root-cause claim matches the snapshot family, the supporting
evidence is canonical and contradiction-free and at least one supporting evidence id exists.
Probe executions are never invented: ``probe_template_ids`` lists only executions the capture
recorded, and may be empty.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from rcaeval._paths import read_query
from rcaeval.harness import drop_nulls
from rcaeval.release._captures import load_captures, open_connection
from rcaeval.release._models import VERIFIED_OUTCOMES, Capture, Review
from rcaeval.release._reviews import read_reviews

TRACE_LEDGER = "trace_ledger"
HARNESS_CLAIM = "harness_claim"
SUPPORTED_STATUSES: tuple[str, ...] = ("passed", "repaired")
"""Harness statuses under which a named diagnosis counts as ``supported``."""
CANONICAL_ID = re.compile(r"^E\d{2,}$")


@dataclass
class CandidateResult:
    candidates: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)


def _fam(x: str | None) -> str | None:
    return x.strip().casefold() if x else None


def _ledger_gaps(cap: Capture, family: str) -> tuple[list[str], list[str]]:
    """(why the trace ledger is incomplete, which of its gates fail); both empty: the ledger
    path applies."""
    resp = cap.response
    by_id = {e.id: e for e in resp.evidence if e.id}
    gaps: list[str] = []
    cited = [("root_cause", resp.root_cause.evidence_ids)] + [
        (f"claims[{i}]", c.evidence_ids) for i, c in enumerate(resp.claims) if c.material]
    for where, ids in cited:
        if not ids:
            gaps.append(f"{where} cites no evidence")
        for eid in ids:
            art = by_id.get(eid)
            if art is None:
                gaps.append(f"{where} cites {eid}, which is not in the evidence")
            elif not (art.usable and art.origin == "current_run"):
                gaps.append(f"{where} cites {eid}, which is not live current-run evidence")
    support = [by_id[e] for e in resp.root_cause.evidence_ids if e in by_id]
    groups = {a.group() for a in support if a.usable and a.origin == "current_run"
              and (not a.supports or family in {_fam(s) for s in a.supports})}
    gates: list[str] = []
    if len(groups) < 2:
        gates.append(f"two-source-group gate: the root cause's live support spans "
                     f"{len(groups)} source group(s); the ledger path needs 2")
    if not _probe_ids(cap):
        gates.append("linked-probe gate: no executed (and not failed) probe template is "
                     "linked to the investigation")
    return gaps, gates


def _probe_ids(cap: Capture) -> list[str]:
    return sorted({t.probe_template_id for t in cap.tool_executions
                   if t.probe_template_id and t.ok is not False})


def _harness_claim_gaps(cap: Capture, family: str) -> tuple[list[str], list[str]]:
    resp = cap.response
    gaps: list[str] = []
    gates_ok = all(cap.harness.gates.values()) if cap.harness.gates else True
    if cap.harness.status not in SUPPORTED_STATUSES or not gates_ok:
        gaps.append(f"harness diagnosis is not supported (status {cap.harness.status}"
                    + ("" if gates_ok else ", a final gate failed") + ")")
    ids = list(dict.fromkeys(resp.root_cause.evidence_ids))
    if not ids:
        gaps.append("no supporting evidence id")
    by_id: dict[str, list[Any]] = {}
    for e in resp.evidence:
        by_id.setdefault(e.id or "", []).append(e)
    for eid in ids:
        arts = by_id.get(eid, [])
        if not CANONICAL_ID.match(eid) or len(arts) != 1:
            gaps.append(f"supporting evidence {eid} is not canonical (a unique harness id "
                        "E01...)")
            continue
        art = arts[0]
        if not (art.usable and art.origin == "current_run"):
            gaps.append(f"supporting evidence {eid} is not live current-run evidence")
        if art.supports and family not in {_fam(s) for s in art.supports}:
            gaps.append(f"supporting evidence {eid} contradicts the claim (supports "
                        f"{', '.join(art.supports)})")
    return gaps, ids


def candidate_for(review: Review, cap: Capture | None) -> tuple[dict[str, Any] | None,
                                                                list[str]]:
    """The candidate a review yields, or None and the reasons."""
    if not review.passing():
        return None, ["the review does not pass (hard-gate assessment "
                      f"{review.hard_gate_assessment}, mean score {review.mean_score():.2f})"]
    if cap is None:
        return None, ["no capture of the reviewed analysis_hash"]
    snapshot = _fam(review.expected_family)
    if snapshot is None:
        return None, ["the review names no expected family (the snapshot family)"]
    rc = cap.response.root_cause
    if _fam(rc.family) != snapshot:
        return None, [f"the root-cause claim ({rc.family or 'none'}) does not match the "
                      f"snapshot family {review.expected_family}"]
    ledger_gaps, gate_failures = _ledger_gaps(cap, snapshot)
    if not ledger_gaps and not gate_failures:
        path, ids = TRACE_LEDGER, list(dict.fromkeys(rc.evidence_ids))
    elif not ledger_gaps:
        # complete but failing its own gates: no fallback (it is for incomplete ledgers)
        return None, [f"trace ledger complete but {g}" for g in gate_failures] + [
            "harness_claim path: not applicable (only for an incomplete trace ledger)"]
    else:
        hc_gaps, ids = _harness_claim_gaps(cap, snapshot)
        if hc_gaps:
            return None, [f"trace ledger incomplete: {g}" for g in ledger_gaps] + [
                f"trace ledger {g}" for g in gate_failures] + [
                f"harness_claim path: {g}" for g in hc_gaps]
        path = HARNESS_CLAIM
    by_id = {e.id: e for e in cap.response.evidence}
    hyp = next((h for h in cap.response.hypotheses if _fam(h.family) == snapshot), None)
    verified = ([review.action_that_worked] if review.action_that_worked
                and review.resolution_outcome in VERIFIED_OUTCOMES else [])
    cid = hashlib.sha256(f"{review.analysis_hash}|{review.review_id}".encode()).hexdigest()
    provenance: dict[str, Any] = {
        "promotion_path": path, "review_id": review.review_id,
        "reviewed_at": review.reviewed_at.isoformat().replace("+00:00", "Z"),
        "reviewer": review.reviewer, "analysis_hash": review.analysis_hash,
        "capture_id": cap.capture_id,
        "captured_at": cap.captured_at.isoformat().replace("+00:00", "Z"),
    }
    if path == HARNESS_CLAIM:
        provenance["ledger_gaps"] = ledger_gaps
        provenance["ledger_gate_failures"] = gate_failures
        provenance["harness_status"] = cap.harness.status
    return {
        "candidate_id": "kc-" + cid[:16],
        "family": review.expected_family,
        "incident_id": cap.incident_id or review.incident_id,
        "alert_type": cap.response.alert.type,
        "claim": rc.claim,
        "mechanism": hyp.mechanism if hyp else "",
        "evidence_ids": ids,
        "source_groups": sorted({by_id[i].group() for i in ids if i in by_id}),
        "probe_template_ids": _probe_ids(cap),
        "verified_actions": verified,
        "evidence_source": path,
        "provenance": provenance,
    }, []


def knowledge_candidates(reviews: str | Path | list[Review], captures: str | Path
                         ) -> CandidateResult:
    """Candidates from the effective (latest per analysis_hash) reviews of ``reviews`` against
    the captures of ``captures``."""
    res = CandidateResult()
    if isinstance(reviews, str | Path):
        rf = read_reviews(reviews)
        res.problems.extend(rf.problems)
        review_list = rf.reviews
    else:
        review_list = list(reviews)
    latest: dict[str, Review] = {}
    for r in sorted(review_list, key=lambda r: (r.reviewed_at, r.review_id)):
        latest[r.analysis_hash] = r
    con = open_connection()
    caps: dict[str, Capture] = {}
    try:
        loaded = load_captures(con, Path(captures))
        res.problems.extend(loaded.read_problems)
        rows = con.execute(read_query("release/captures_by_hash.sql"),
                           {"hashes": sorted(latest)}).fetchall()
    finally:
        con.close()
    for src, line, ahash, text in rows:
        if ahash in caps:
            continue  # the latest capture of the analysis
        try:
            # struct columns pad absent fields with nulls; every nullable field defaults to null
            caps[ahash] = Capture.model_validate(drop_nulls(orjson.loads(text)))
        except ValidationError as exc:
            err = exc.errors()[0]
            res.problems.append({"src": src, "line": line, "capture_id": None,
                                 "field": ".".join(map(str, err["loc"])),
                                 "message": err["msg"]})
    for ahash, review in sorted(latest.items(), key=lambda kv: kv[1].review_id):
        cand, reasons = candidate_for(review, caps.get(ahash))
        if cand is not None:
            res.candidates.append(cand)
        else:
            res.rejected.append({"review_id": review.review_id, "analysis_hash": ahash,
                                 "reasons": reasons})
    return res
