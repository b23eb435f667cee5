"""Fixtures -> offline tables in DuckDB (queries/offline/tables.sql) and the per-case view
every offline metric reads (queries/offline/case_eval.sql).

Python only flattens the validated fixtures into rows (I/O); what a row *means* — Top-1,
grounding, a forced familiar family, an unsafe output — is decided in SQL.
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from rcaeval._paths import read_query
from rcaeval.harness import GATE_IDS, guarded, is_disruptive, looks_disruptive
from rcaeval.offline._fixture import Fixture, FixtureSet

SAFETY_GATE = GATE_IDS[3]
"""The harness gate whose final result decides whether an output is safe to show."""

_S = pl.Utf8
_L = pl.List(pl.Utf8)
SCHEMAS: dict[str, dict[str, Any]] = {
    "in_case": {
        "case_id": _S, "line": pl.Int64, "case_type": _S, "source": _S,
        "expected_family": _S, "expected_outcomes": _L, "expected_novel": pl.Boolean,
        "relevant_evidence_ids": _L, "familiar_families": _L, "causal_chain": _L,
        "missing_sources": _L, "outcome": _S, "novel": pl.Boolean, "root_family": _S,
        "root_confidence": _S, "alert_type": _S, "harness_status": _S,
        "safety_gate": pl.Boolean, "analysis_hash": _S,
    },
    "in_hypothesis": {"case_id": _S, "rank": pl.Int64, "family": _S, "score": pl.Float64},
    "in_evidence": {
        "case_id": _S, "idx": pl.Int64, "evidence_id": _S, "source": _S,
        "source_group": _S, "origin": _S, "usable": pl.Boolean,
        "target_verified": pl.Boolean, "dispositive": pl.Boolean, "supports": _L,
    },
    "in_claim": {"case_id": _S, "claim_idx": pl.Int64, "family": _S,
                 "material": pl.Boolean, "text": _S},
    "in_link": {"case_id": _S, "claim_idx": pl.Int64, "evidence_id": _S},
    "in_plan": {"case_id": _S, "idx": pl.Int64, "probe": _S, "expected_observation": _S,
                "discriminates": _L, "read_only": pl.Boolean},
    "in_action": {"case_id": _S, "idx": pl.Int64, "disruptive": pl.Boolean,
                  "guarded": pl.Boolean},
    "in_tool_error": {"case_id": _S, "tool": _S, "message": _S},
}


def _rows(fs: FixtureSet) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {k: [] for k in SCHEMAS}
    default_familiar = fs.familiar_families()
    for fx, line in zip(fs.fixtures, fs.lines, strict=True):
        _flatten(fx, line, default_familiar, out)
    return out


def _flatten(fx: Fixture, line: int, default_familiar: list[str],
             out: dict[str, list[dict[str, Any]]]) -> None:
    r = fx.response
    cid = fx.case_id
    familiar = fx.familiar_families if fx.familiar_families is not None else default_familiar
    h = fx.harness
    out["in_case"].append({
        "case_id": cid, "line": line, "case_type": fx.case_type, "source": fx.source,
        "expected_family": fx.expected_family, "expected_outcomes": list(fx.expected_outcome),
        "expected_novel": fx.novel_expected(),
        "relevant_evidence_ids": list(fx.relevant_evidence_ids),
        "familiar_families": [f for f in familiar if f != fx.expected_family],
        "causal_chain": list(fx.causal_chain), "missing_sources": list(fx.missing_sources),
        "outcome": r.outcome, "novel": r.novel, "root_family": r.root_cause.family,
        "root_confidence": r.root_cause.confidence, "alert_type": r.alert.type,
        "harness_status": h.status if h else None,
        "safety_gate": h.gates.get(SAFETY_GATE) if h else None,
        "analysis_hash": r.analysis_hash,
    })
    for i, hyp in enumerate(r.hypotheses, start=1):
        out["in_hypothesis"].append({"case_id": cid, "rank": i, "family": hyp.family,
                                     "score": hyp.score})
    for i, e in enumerate(r.evidence):
        out["in_evidence"].append({
            "case_id": cid, "idx": i, "evidence_id": e.id or f"E{i + 1:02d}",
            "source": e.source, "source_group": e.group(), "origin": e.origin,
            "usable": e.usable, "target_verified": e.target_verified,
            "dispositive": bool(e.dispositive_signature), "supports": list(e.supports),
        })
    # claim 0 is the root-cause statement: material whenever it names a family
    claims = [(r.root_cause.family, r.root_cause.family is not None, r.root_cause.claim,
               r.root_cause.evidence_ids)]
    claims += [(c.family, c.material, c.text, c.evidence_ids) for c in r.claims]
    for i, (family, material, text, ids) in enumerate(claims):
        out["in_claim"].append({"case_id": cid, "claim_idx": i, "family": family,
                                "material": material, "text": text})
        out["in_link"].extend({"case_id": cid, "claim_idx": i, "evidence_id": e}
                              for e in dict.fromkeys(ids))
    for i, step in enumerate(r.investigation_plan):
        out["in_plan"].append({
            "case_id": cid, "idx": i, "probe": step.probe,
            "expected_observation": step.expected_observation,
            "discriminates": list(step.discriminates),
            "read_only": not looks_disruptive(step.probe),
        })
    for i, a in enumerate(r.actions):
        out["in_action"].append({"case_id": cid, "idx": i, "disruptive": is_disruptive(a),
                                 "guarded": guarded(a)})
    for t in r.tool_errors:
        out["in_tool_error"].append({"case_id": cid, "tool": t.tool, "message": t.message})


def load_fixture_tables(con: duckdb.DuckDBPyConnection, fixtures: FixtureSet) -> None:
    """Create (or replace) the offline tables and the ``offline_case_eval`` view on ``con``
    from ``fixtures``. Any DuckDB connection works: an in-memory one or the store's."""
    rows = _rows(fixtures)
    for name, schema in SCHEMAS.items():
        con.register(name, pl.DataFrame(rows[name], schema=schema, orient="row"))
    try:
        con.execute(read_query("offline/tables.sql"))
    finally:
        for name in SCHEMAS:
            con.unregister(name)
    con.execute(read_query("offline/case_eval.sql"))
