"""Novelty mutations (docs/offline.md): turn a known case into cases that should no longer be
answered with its familiar family — remove a signature, omit a symptom, add contradictory
evidence, remove a data source, shift the incident window — each with the outcome it implies.

On fixtures the mutation rewrites the captured response's evidence, re-runs the real runtime
harness over it and relabels the case (type ``novel``, the original family now *familiar*);
on recorded bundles it rewrites the evidence files and writes ``mutation.json`` with the
implied outcome. A provisional or unresolved answer can be right; forcing the familiar family
is a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError
from rcaeval.harness import HarnessConfig, check
from rcaeval.offline._fixture import Fixture, FixtureSet, read_fixtures

UNRESOLVED = ["provisional", "insufficient_evidence"]


@dataclass(frozen=True)
class Mutation:
    name: str
    does: str
    implies: str


MUTATIONS: dict[str, Mutation] = {m.name: m for m in (
    Mutation("remove_signature",
             "drop the dispositive signature (fixtures: every artifact's "
             "dispositive_signature; bundles: the log lines matching the case's keyword_any "
             "critical evidence)",
             "unresolved (provisional or insufficient_evidence); diagnosed stays acceptable "
             "only when two independent live source groups still support the family"),
    Mutation("omit_symptom",
             "drop one symptom (fixtures: the first live artifact supporting the family that "
             "is not dispositive, else the first; bundles: the metric series of a "
             "numeric_series_any_gt check, else the events a json_text_contains_any check "
             "matches)",
             "as remove_signature, computed on the remaining evidence"),
    Mutation("add_contradictory",
             "add live evidence that contradicts the family (a healthy observation of the "
             "alert target)",
             "unresolved: conflicting current evidence must not yield a confident family"),
    Mutation("remove_source",
             "remove one data source (its artifacts become one unusable artifact plus a "
             "tool error; bundles: the channel file is removed, the report marks the channel "
             "attempted with status error, collection_errors.json lists it)",
             "unresolved unless two independent live groups remain; the missing source must "
             "be reported (missing_sources is set)"),
    Mutation("shift_window",
             "shift the incident window so the collected evidence predates it (fixtures: "
             "current-run artifacts become historical; bundles: every evidence timestamp "
             "moves one window length earlier)",
             "unresolved: no current evidence of the incident remains"),
)}


def _support_groups(resp: dict[str, Any], family: str) -> set[str]:
    return {(e.get("source_group") or e["source"]).casefold() for e in resp["evidence"]
            if e.get("usable", True) and e.get("origin") == "current_run"
            and (not e.get("supports") or family in e["supports"])}


def _supports(e: dict[str, Any], family: str) -> bool:
    return family in e.get("supports", [])


def mutate_response(resp: dict[str, Any], family: str, mutation: str) -> tuple[
        dict[str, Any], list[str], list[str]]:
    """Apply ``mutation`` to a response dict (copy). Returns (response, implied outcomes,
    missing sources)."""
    import copy

    r = copy.deepcopy(resp)
    ev: list[dict[str, Any]] = r.setdefault("evidence", [])
    missing: list[str] = []
    if mutation == "remove_signature":
        if not any(e.get("dispositive_signature") for e in ev):
            raise InputError("has no dispositive signature to remove", field="response.evidence")
        for e in ev:
            e.pop("dispositive_signature", None)
    elif mutation == "omit_symptom":
        cands = [e for e in ev if e.get("origin") == "current_run" and _supports(e, family)]
        if not cands:
            raise InputError(f"has no live artifact supporting {family!r} to omit",
                             field="response.evidence")
        drop = next((e for e in cands if not e.get("dispositive_signature")), cands[0])
        ev.remove(drop)
    elif mutation == "add_contradictory":
        target = r.get("alert", {}).get("target")
        ev.append({"id": f"contra-{len(ev) + 1}", "source": "mutation_probe",
                   "source_group": "mutation_probe", "origin": "current_run", "usable": True,
                   "target_verified": True, **({"target": target} if target else {}),
                   "supports": ["healthy_baseline"],
                   "summary": f"{target or 'the target'} shows no sign of {family}: "
                              "readings normal throughout the incident window"})
    elif mutation == "remove_source":
        live = [e for e in ev if e.get("origin") == "current_run" and e.get("usable", True)
                and _supports(e, family)]
        if not live:
            raise InputError(f"has no live source supporting {family!r} to remove",
                             field="response.evidence")
        group = (live[0].get("source_group") or live[0]["source"]).casefold()
        keep, gone = [], []
        for e in ev:
            same = (e.get("source_group") or e["source"]).casefold() == group
            (gone if same and e.get("origin") == "current_run" else keep).append(e)
        source = gone[0]["source"]
        keep.append({"id": gone[0].get("id") or "missing-source", "source": source,
                     "source_group": gone[0].get("source_group"), "origin": "current_run",
                     "usable": False, "summary": f"{source} unavailable: HTTP 503"})
        r["evidence"] = ev = keep
        r.setdefault("tool_errors", []).append({"tool": source,
                                                "message": "HTTP 503 Service Unavailable"})
        missing = [source]
    elif mutation == "shift_window":
        for e in ev:
            if e.get("origin") == "current_run":
                e["origin"] = "historical"
                e["summary"] = ("[before the shifted window] " + e.get("summary", "")).strip()
    else:
        raise InputError(f"unknown mutation {mutation!r}; known: {', '.join(MUTATIONS)}",
                         field="mutation")
    implied = list(UNRESOLVED)
    if mutation in ("remove_signature", "omit_symptom", "remove_source") \
            and len(_support_groups(r, family)) >= 2:
        implied = ["diagnosed", *UNRESOLVED]
    _drop_dangling(r)
    return r, implied, missing


def _drop_dangling(r: dict[str, Any]) -> None:
    """Keep references only to artifacts that still exist (a removed artifact is not cited)."""
    ids = {e.get("id") for e in r.get("evidence", [])}
    rc = r.get("root_cause") or {}
    if "evidence_ids" in rc:
        rc["evidence_ids"] = [i for i in rc["evidence_ids"] if i in ids]
    for c in r.get("claims", []):
        c["evidence_ids"] = [i for i in c.get("evidence_ids", []) if i in ids]


def mutate_fixture(fx: Fixture, mutation: str, familiar: list[str]) -> Fixture:
    """A mutated copy of a known (or compositional) fixture, relabelled as a novel case."""
    if not fx.expected_family:
        raise InputError("only a case with an expected_family can be mutated",
                         field="expected_family")
    fam = fx.expected_family
    resp = fx.response.model_dump(mode="json", exclude_none=True)
    for key in ("analysis_hash",):
        resp.pop(key, None)
    mutated, implied, missing = mutate_response(resp, fam, mutation)
    result = check(mutated, HarnessConfig())
    live_ids = {e.id for e in result.response.evidence
                if e.usable and e.origin == "current_run"}
    relevant = sorted({result.evidence_map.get(i, i) for i in fx.relevant_evidence_ids}
                      & live_ids)
    case = {
        "case_id": f"{fx.case_id}~{mutation}", "case_type": "novel",
        "expected_outcome": implied, "expected_novel": True,
        "relevant_evidence_ids": relevant,
        "familiar_families": sorted({*familiar, fam}),
        "missing_sources": missing,
        "source": f"{fx.case_id} mutated by {mutation}: {MUTATIONS[mutation].implies}",
        "harness": {"status": result.status,
                    "gates": {g.gate_id: g.passed for g in result.gates}},
        "response": result.response.model_dump(mode="json", exclude_none=True),
    }
    # no expected_family: the mutated evidence no longer establishes one, and the original
    # family is now a familiar one the answer must not force
    return Fixture.model_validate(case)


def mutate_fixtures(fixtures: FixtureSet | str | Path, mutations: list[str] | None = None,
                    cases: list[str] | None = None) -> tuple[list[Fixture], list[str]]:
    """Every mutation of every known case (or the named ``cases``) of a fixture file.
    Returns the mutated fixtures and, per case a mutation cannot apply to, a message."""
    fs = fixtures if isinstance(fixtures, FixtureSet) else read_fixtures(fixtures)
    names = mutations or list(MUTATIONS)
    for m in names:
        if m not in MUTATIONS:
            raise InputError(f"unknown mutation {m!r}; known: {', '.join(MUTATIONS)}",
                             field="mutation")
    familiar = fs.familiar_families()
    out: list[Fixture] = []
    skipped: list[str] = []
    for fx, line in zip(fs.fixtures, fs.lines, strict=True):
        if cases is not None and fx.case_id not in cases:
            continue
        if cases is None and fx.case_type != "known":
            continue
        for m in names:
            try:
                out.append(mutate_fixture(fx, m, familiar))
            except InputError as exc:
                skipped.append(InputError(f"{m}: {exc.message}", file=fs.path, line=line,
                                          field=exc.field).render())
    return out, skipped
