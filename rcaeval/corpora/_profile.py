"""The OpenRCA profile: a run's answers on imported OpenRCA cases scored exactly as OpenRCA's
evaluator scores them (docs/import.md, "Scoring a run as OpenRCA does"), beside the judge's
evidence buckets.

Each imported case's judge.yaml keeps the task's ``scoring_points`` (``corpus:``); a run's
final answer (``output.txt`` of its audit dir) is the prediction. Scoring is
:func:`rcaeval.offline.score_parsed` - the rules ``rcaeval offline openrca``
uses - so the two agree row for row; :func:`export_openrca` writes the same answers as
OpenRCA's own query and predictions files, for ``rcaeval offline openrca`` or OpenRCA's
``main/evaluate.py``.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from rcaeval.errors import InputError, NotFoundError
from rcaeval.offline import (
    OPENRCA_SCORE_SCHEMA,
    parse_prediction,
    parse_scoring_points,
    score_parsed,
)

PROFILE_SCHEMA: dict[str, Any] = {"case_id": pl.Utf8, "system": pl.Utf8,
                                  **OPENRCA_SCORE_SCHEMA}
"""Columns of :func:`openrca_scores`: the case, its OpenRCA system, then the columns of
``rcaeval offline openrca``'s per-row scores."""


def run_answers(audit_run_dir: str | Path) -> dict[str, str]:
    """``{case_id: final answer}`` of one run's audit dir (``AUDIT_ROOT/<run_id>/``): each
    case dir's ``output.txt`` (an empty answer when a case left none)."""
    root = Path(audit_run_dir)
    if not root.is_dir():
        raise NotFoundError(f"audit dir {root} does not exist")
    out: dict[str, str] = {}
    for case_dir in sorted(p for p in root.iterdir() if p.is_dir()
                           and not p.name.startswith(".")):
        path = case_dir / "output.txt"
        out[case_dir.name] = (path.read_bytes().decode("utf-8", "replace")
                              if path.is_file() else "")
    return out


def _openrca_cases(registry: Path, case_ids: list[str]) -> list[tuple[str, Any, str]]:
    from rcaeval.registry import load_case

    rows = []
    for cid in case_ids:
        merged = load_case(registry, cid)
        corpus = merged.judge.corpus
        if corpus is None or corpus.kind != "openrca" or not corpus.scoring_points:
            continue
        rows.append((cid, corpus, merged.case.prompt.text))
    return rows


def openrca_scores(registry: str | Path, answers: Mapping[str, str]) -> pl.DataFrame:
    """Per-case OpenRCA scores (:data:`PROFILE_SCHEMA`) of ``answers`` on the imported
    OpenRCA cases among them (other cases are left out), in case-id order."""
    rows: dict[str, list[Any]] = {k: [] for k in PROFILE_SCHEMA}
    for cid, corpus, _ in _openrca_cases(Path(registry), sorted(answers)):
        p = parse_scoring_points(corpus.scoring_points)
        s = score_parsed(p, parse_prediction(answers[cid]))
        vals = {"case_id": cid, "system": corpus.system, "row_id": corpus.row_id,
                "task_index": corpus.task_index, "score": s.score, "hits": s.hits,
                "criteria": s.criteria, "component_hits": s.component_hits,
                "component_criteria": len(p.components), "reason_hits": s.reason_hits,
                "reason_criteria": len(p.reasons), "time_hits": s.time_hits,
                "time_criteria": len(p.times),
                "predicted_root_causes": s.predicted_root_causes,
                "expected_root_causes": s.expected_root_causes}
        for k in PROFILE_SCHEMA:
            rows[k].append(vals[k])
    return pl.DataFrame(rows, schema=PROFILE_SCHEMA)


def export_openrca(registry: str | Path, answers: Mapping[str, str],
                   out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``query.csv`` (row_id, task_index, instruction, scoring_points) and
    ``predictions.csv`` (row_id, prediction) in OpenRCA's format for the imported OpenRCA
    cases among ``answers`` (one system: row ids are per system)."""
    cases = _openrca_cases(Path(registry), sorted(answers))
    systems = sorted({c.system for _, c, _ in cases})
    if len(systems) > 1:
        raise InputError(f"the answers cover {len(systems)} OpenRCA systems "
                         f"({', '.join(systems)}); export one system at a time",
                         field="answers")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    qpath, ppath = out / "query.csv", out / "predictions.csv"
    ordered = sorted(cases, key=lambda x: x[1].row_id or 0)
    with qpath.open("w", newline="", encoding="utf-8") as q, \
            ppath.open("w", newline="", encoding="utf-8") as p:
        qw, pw = csv.writer(q), csv.writer(p)
        qw.writerow(["row_id", "task_index", "instruction", "scoring_points"])
        pw.writerow(["row_id", "prediction"])
        for cid, corpus, prompt in ordered:
            qw.writerow([corpus.row_id, corpus.task_index, prompt.split("\n\n", 1)[0],
                         corpus.scoring_points])
            pw.writerow([corpus.row_id, answers[cid]])
    return qpath, ppath
