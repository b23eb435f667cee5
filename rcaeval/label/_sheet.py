"""Labelling sheets out of the store: one row per judged case run with what a labeller needs to
see and the fields they fill (docs/calibration.md, "Export")."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import orjson

from rcaeval._inputs import check_output_file
from rcaeval._paths import read_query
from rcaeval._vocab import BUCKETS
from rcaeval.errors import InputError, NotFoundError
from rcaeval.store import Store

FILL_FIELDS: tuple[str, ...] = ("verdict", "root_cause_correct", "evidence_adequate",
                                "unsafe_advice", "overrides", "labeller", "labelled_at",
                                "notes")
"""The columns a labeller fills, in sheet order (``labelled_at`` may stay empty)."""
REQUIRED_COLUMNS: tuple[str, ...] = ("run_id", "case_id", *(
    f for f in FILL_FIELDS if f != "labelled_at"))
"""Columns ``rcaeval label import`` requires in every sheet."""
JUDGE_COLUMNS: tuple[str, ...] = ("judge_verdict", "judge_subtype", "judge_score",
                                  "judge_reason")
"""What a ``--blind`` sheet leaves out (with each check's result)."""
SHOWN_COLUMNS: tuple[str, ...] = (
    "run_id", "case_id", "case_type", "judge_version", "rules_hash", *JUDGE_COLUMNS,
    "truth_family", "truth_family_synonyms", "truth_component", "truth_component_synonyms",
    "prompt", "answer", "evidence", "checks", "blind")
FORMATS = ("csv", "jsonl")


def sheet_format(path: Path) -> str:
    """``csv`` or ``jsonl`` from ``path``'s suffix; anything else is an input error."""
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise InputError(f"a sheet is .csv or .jsonl, not {path.suffix or 'no suffix'!r}",
                         file=str(path), field="--out")
    return fmt


def _prompt(registry: Path | None, case_id: str, cache: dict[str, str]) -> str:
    if case_id not in cache:
        from rcaeval.registry import load_case

        try:
            cache[case_id] = load_case(registry, case_id).case.prompt.text
        except Exception:  # noqa: BLE001 - a case the registry lacks shows no prompt
            cache[case_id] = ""
    return cache[case_id]


def _evidence_lines(rows: list[dict[str, Any]]) -> str:
    lines = []
    for r in rows:
        ref = f" [{r['ref_type']} {r['ref_id']}]" if r["ref_id"] else " [no reference]"
        excerpt = r["excerpt"] if r["excerpt"] is not None else (
            "(resolves to nothing in the bundle)" if r["ref_id"] else "")
        lines.append(f"{r['item_id'] or r['idx']} ({r['role']}): {r['claim'] or ''}{ref}"
                     + (f" -> {excerpt}" if excerpt else ""))
    return "\n".join(lines)


def sheet_rows(store: Store, run_id: str, *, cases: list[str] | None = None,
               blind: bool = False, registry: Path | None = None) -> list[dict[str, Any]]:
    """The sheet of run ``run_id`` as rows (dicts in :data:`SHOWN_COLUMNS` then
    :data:`FILL_FIELDS` order, fill fields empty). ``cases`` keeps those case ids (each must be
    judged in the run); ``blind`` leaves out the judge's verdict and check results; the
    prompt comes from the registry at ``registry`` (default ``$RCAEVAL_REGISTRY`` or
    ``data/registry``), empty for a case it lacks."""
    con = store.con
    params = {"run_id": run_id, "cases": cases or None}
    head = con.sql(read_query("label/sheet_cases.sql"), params=params).pl().to_dicts()
    missing = sorted(set(cases or []) - {r["case_id"] for r in head})
    if missing:
        raise NotFoundError(f"run {run_id!r} has no judged case {', '.join(missing)}")
    if not head:
        raise NotFoundError(f"run {run_id!r} has no judged case in the store")
    checks: dict[str, list[str]] = {}
    check_rows = con.sql(read_query("label/sheet_checks.sql"),
                         params={"run_id": run_id, "buckets": list(BUCKETS)})
    for c in check_rows.pl().iter_rows(named=True):
        checks.setdefault(c["case_id"], []).append(
            c["key"] if blind else f"{c['key']}={c['result']}")
    evidence: dict[str, list[dict[str, Any]]] = {}
    for e in con.sql(read_query("label/sheet_evidence.sql"),
                         params={"run_id": run_id}).pl().iter_rows(named=True):
        evidence.setdefault(e["case_id"], []).append(e)
    prompts: dict[str, str] = {}
    out = []
    for r in head:
        row: dict[str, Any] = {c: r.get(c) for c in SHOWN_COLUMNS if c in r}
        if blind:
            for c in JUDGE_COLUMNS:
                row.pop(c, None)
        row["prompt"] = _prompt(registry, r["case_id"], prompts)
        row["answer"] = r["answer"]
        row["evidence"] = _evidence_lines(evidence.get(r["case_id"], []))
        row["checks"] = "\n".join(checks.get(r["case_id"], []))
        row["blind"] = "yes" if blind else "no"
        out.append({c: row[c] for c in SHOWN_COLUMNS if c in row} | {f: "" for f in FILL_FIELDS})
    return out


def write_sheet(rows: list[dict[str, Any]], out: Path) -> Path:
    """Write sheet ``rows`` to ``out`` (``.csv`` with a header row, or ``.jsonl`` one object
    per line); returns ``out``."""
    fmt = sheet_format(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        out.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
        return out
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else list(REQUIRED_COLUMNS),
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in rows)
    out.write_text(buf.getvalue(), encoding="utf-8")
    return out


def export_sheet(store: Store, run_id: str, out: str | Path, *,
                 cases: list[str] | None = None, blind: bool = False,
                 registry: str | Path | None = None) -> Path:
    """Write the labelling sheet of run ``run_id`` to ``out`` (``.csv`` or ``.jsonl``): see
    :func:`sheet_rows`. Returns the path written."""
    out = Path(out)
    sheet_format(out)
    check_output_file(out, field="--out")
    rows = sheet_rows(store, run_id, cases=cases, blind=blind,
                      registry=Path(registry) if registry else None)
    return write_sheet(rows, out)
