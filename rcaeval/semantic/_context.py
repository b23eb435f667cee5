"""Building ``semantic_context_v1.json`` for the case runs of a first judging pass, from the
pass's frames and TEMP tables (queries/semantic/context_*.sql) and the cases' ground truth."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import duckdb
import orjson

from rcaeval._paths import read_query
from rcaeval.semantic._models import SemanticContext

Key = tuple[str, str]


def canonical(doc: Any) -> bytes:
    """Canonical JSON (sorted keys, compact): what hashes are taken over."""
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_bytes(doc: Mapping[str, Any]) -> bytes:
    """The bytes of a context/packet file: indented JSON in model order, trailing newline."""
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


def _answer_text(rows: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    current = None
    for r in rows:
        if r["section_idx"] != current:
            current = r["section_idx"]
            head = r["section"] or ""
            if r["section_kind"] == "followup":
                head = f"[follow-up] {head}".strip()
            if head:
                if lines:
                    lines.append("")
                lines.append(f"## {head}")
        lines.append(r["text"])
    return "\n".join(lines)


def _rows(con: duckdb.DuckDBPyConnection, name: str) -> list[dict[str, Any]]:
    cur = con.execute(read_query(f"semantic/{name}.sql"))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def _ground_truth(case_rules: Any) -> dict[str, Any] | None:
    if case_rules is None:
        return None
    rc = ((case_rules.judge_doc or {}).get("ground_truth") or {}).get("root_cause")
    if not rc or not rc.get("family") or not rc.get("summary"):
        return None
    return {"family": rc["family"], "component": rc.get("component"),
            "summary": rc["summary"], "mechanism": rc.get("mechanism")}


_EVIDENCE_BUCKETS = ("critical_evidence", "evidence_routing")
"""The buckets whose checks the context carries beside the diagnosis checks: what the run's
evidence showed and whether its structured references resolve."""


def _evidence_check(r: Mapping[str, Any]) -> dict[str, Any]:
    ev = {"file": r["evidence_file"], "path": r["evidence_path"], "line": r["evidence_line"],
          "excerpt": r["evidence_excerpt"]}
    return {"check_id": r["check_id"], "required": bool(r["required"]),
            "weight": float(r["weight"]), "passed": bool(r["passed"]), "reason": r["reason"],
            "evidence": ev if any(v is not None for v in ev.values()) else None}


def build_contexts(con: duckdb.DuckDBPyConnection, frames: Any,
                   cases: Mapping[str, Any]) -> dict[Key, dict[str, Any]]:
    """``{(run_id, case_id): context dict}`` (SemanticContext layout, validated) for every
    resolved case run of the pass that has diagnosis checks."""
    checks: dict[Key, list[dict[str, Any]]] = defaultdict(list)
    for r in _rows(con, "context_checks"):
        checks[(r["run_id"], r["case_id"])].append(r)
    if not checks:
        return {}
    criteria: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in _rows(con, "context_criteria"):
        criteria[(r["case_id"], r["rules_hash"], r["check_id"])].append({
            "kind": "detector" if r["ctype"] == "detector" else "fact",
            "name": r["name"], "expect": bool(r["expect"]), "description": r["description"],
        })
    answers: dict[Key, list[dict[str, Any]]] = defaultdict(list)
    for r in _rows(con, "context_answer"):
        answers[(r["run_id"], r["case_id"])].append(r)
    judgments = {(r["run_id"], r["case_id"]): r for r in frames.judgments.iter_rows(named=True)}
    buckets: dict[Key, dict[str, str]] = defaultdict(dict)
    for r in frames.buckets.iter_rows(named=True):
        buckets[(r["run_id"], r["case_id"])][r["bucket"]] = r["status"]
    det: dict[Key, dict[str, dict[str, Any]]] = defaultdict(dict)
    evidence: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    if frames.checks.height:
        for r in frames.checks.iter_rows(named=True):
            if r["bucket"] == "diagnosis":
                det[(r["run_id"], r["case_id"])][r["check_id"]] = r
            elif r["bucket"] in _EVIDENCE_BUCKETS:
                evidence[(r["run_id"], r["case_id"], r["bucket"])].append(_evidence_check(r))
    out: dict[Key, dict[str, Any]] = {}
    for key, rows in checks.items():
        first, j = rows[0], judgments[key]
        doc = {
            "context_version": 1,
            "run_id": key[0],
            "case_id": key[1],
            "case_type": first["case_type"],
            "rules_hash": first["rules_hash"],
            "diagnosis_mode": first["diagnosis_mode"],
            "deterministic": {
                "verdict": j["verdict"],
                "subtype": j["subtype"],
                "score": None if j["score"] is None else round(float(j["score"]), 4),
                "raw_score": None if j["raw_score"] is None else round(float(j["raw_score"]), 4),
                "buckets": buckets.get(key, {}),
                "diagnosis_checks": [
                    {"check_id": r["check_id"], "passed": bool(det[key][r["check_id"]]["passed"]),
                     "reason": det[key][r["check_id"]]["reason"]}
                    for r in rows if r["check_id"] in det[key]
                ],
                "critical_evidence_checks": evidence.get((*key, "critical_evidence"), []),
                "routing_checks": evidence.get((*key, "evidence_routing"), []),
            },
            "input": {
                "answer": _answer_text(answers.get(key, [])),
                "ground_truth": _ground_truth(cases.get(key[1])),
                "checks": [
                    {"check_id": r["check_id"], "kind": r["kind"], "required": bool(r["required"]),
                     "weight": float(r["weight"]), "description": r["description"],
                     "combinator": "all_of" if r["combinator"] == "all" else "any_of",
                     "criteria": criteria.get((key[1], r["rules_hash"], r["check_id"]), [])}
                    for r in rows
                ],
            },
        }
        out[key] = SemanticContext.model_validate(doc).model_dump(mode="json")
    return out
