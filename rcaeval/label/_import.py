"""Labelling sheets into the store (docs/calibration.md, "Import"): every row validated, every
problem named by file, row and field, nothing written unless the whole sheet is good."""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from rcaeval._inputs import read_input
from rcaeval._paths import read_query
from rcaeval._vocab import VERDICTS
from rcaeval.errors import InputError
from rcaeval.label._sheet import FILL_FIELDS, REQUIRED_COLUMNS, sheet_format
from rcaeval.store import Store

_TRUE = {"yes", "y", "true", "1"}
_FALSE = {"no", "n", "false", "0"}
_CHECK_VALUES = {"pass": "pass", "fail": "fail"}
_DETECTOR_VALUES = {"fires": "fires", "silent": "silent", "true": "fires", "false": "silent"}
MAX_LISTED = 20
"""At most this many problems are listed in one error (the count says how many more)."""


@dataclass
class ImportResult:
    """What :func:`import_sheet` did: labels added, rows unchanged since an earlier import,
    rows left blank (nothing filled in), and the distinct case runs labelled."""

    added: int = 0
    unchanged: int = 0
    blank: int = 0
    case_runs: int = 0
    labellers: list[str] = field(default_factory=list)


@dataclass
class _Problem:
    line: int | None
    field: str
    message: str


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).strip()


def _read(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    fmt = sheet_format(path)
    data = read_input(path, "labels")  # not found: exit 6; a FIFO or device: exit 3
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not UTF-8 text (byte {exc.start + 1}: {exc.reason}); save the "
                         "sheet as UTF-8", file=str(path), line=line) from None
    if fmt == "jsonl":
        rows: list[tuple[int, dict[str, str]]] = []
        columns: list[str] = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputError(f"not JSON: {exc}", file=str(path), line=n) from exc
            if not isinstance(obj, dict):
                raise InputError("each line must be a JSON object", file=str(path), line=n)
            columns = columns or list(obj)
            rows.append((n, {k: _text(v) for k, v in obj.items()}))
        cols = set().union(*(r.keys() for _, r in rows)) if rows else set()
        return sorted(cols, key=lambda c: (c not in columns, c)), rows
    # an exported sheet's answer and evidence cells may be long: a field may be as long as
    # the file (capped), not only the csv module's 128 KiB
    csv.field_size_limit(max(csv.field_size_limit(), len(data) + 1))
    reader = csv.DictReader(text.splitlines(keepends=True))
    out = []
    start = 2
    try:
        columns = list(reader.fieldnames or [])
        for rec in reader:
            out.append((start, {k: _text(v) for k, v in rec.items() if k is not None}))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"not CSV: {exc}", file=str(path), line=reader.line_num) from None
    return columns, out


def _bool(value: str, line: int, name: str, problems: list[_Problem]) -> bool | None:
    low = value.lower()
    if not low:
        return None
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    problems.append(_Problem(line, name, f"{value!r} is not yes or no"))
    return None


def _when(value: str, line: int, problems: list[_Problem]) -> datetime | None:
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        problems.append(_Problem(line, "labelled_at", f"{value!r} is not an ISO 8601 time"))
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _overrides(value: str, keys: dict[str, list[tuple[str, str]]], line: int,
               problems: list[_Problem]) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for part in (p.strip() for p in value.replace("\n", ";").split(";")):
        if not part:
            continue
        key, eq, raw = part.partition("=")
        key, raw = key.strip(), raw.strip().lower()
        targets = keys.get(key, [])
        if not eq:
            problems.append(_Problem(line, "overrides", f"{part!r} is not NAME=VALUE"))
            continue
        if not targets:
            problems.append(_Problem(line, "overrides", f"{key!r} is no bucket, check or "
                                     "detector.<id> of this case run"))
            continue
        if len(targets) > 1:
            problems.append(_Problem(line, "overrides", f"check id {key!r} is in several "
                                     "buckets; write it as " + " or ".join(
                                         repr(t[1]) for t in targets)))
            continue
        level, item = targets[0]
        allowed = _DETECTOR_VALUES if level == "detector" else _CHECK_VALUES
        if raw not in allowed:
            problems.append(_Problem(line, "overrides", f"{key}={raw!r}: a {level} is "
                                     + " or ".join(sorted(set(allowed.values())))))
            continue
        if out.get((level, item), allowed[raw]) != allowed[raw]:
            problems.append(_Problem(line, "overrides", f"{key} is given twice, differently"))
        out[(level, item)] = allowed[raw]
    return out


def _fail(path: Path, problems: list[_Problem]) -> InputError:
    listed = [f"row {p.line} [{p.field}]: {p.message}" for p in problems[:MAX_LISTED]]
    more = len(problems) - MAX_LISTED
    head = f"{len(problems)} problems: " if len(problems) > 1 else ""
    return InputError(head + "; ".join(listed) + (f"; and {more} more" if more > 0 else ""),
                      file=str(path), line=problems[0].line, field=problems[0].field)


def parse_sheet(store: Store, path: str | Path) -> tuple[list[dict[str, Any]],
                                                          list[dict[str, Any]], int]:
    """Validate sheet ``path`` against the store: returns the label rows, their item rows
    (eval_label / eval_label_item columns) and the number of blank rows. Raises
    :class:`InputError` (exit 3) listing every problem by row and field: missing columns,
    unknown run or case ids, bad values, override keys the case run does not have, and one
    labeller labelling one case run twice, differently, in the sheet."""
    path = Path(path)
    columns, rows = _read(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (a sheet needs "
                         f"{', '.join(REQUIRED_COLUMNS)})", file=str(path), line=1,
                         field=missing[0])
    con = store.con
    run_ids = sorted({r["run_id"] for _, r in rows if r.get("run_id")})
    judged_rows = con.sql(read_query("label/judged_cases.sql"), params={"run_ids": run_ids})
    judged = {(r["run_id"], r["case_id"]): r["judge_version"]
              for r in judged_rows.pl().iter_rows(named=True)}
    runs = {k[0] for k in judged}
    keys: dict[tuple[str, str], dict[str, list[tuple[str, str]]]] = {}
    for k in con.sql(read_query("label/label_keys.sql"),
                         params={"run_ids": run_ids}).pl().iter_rows(named=True):
        slot = keys.setdefault((k["run_id"], k["case_id"]), {}).setdefault(k["key"], [])
        if (k["level"], k["item"]) not in slot:
            slot.append((k["level"], k["item"]))
    problems: list[_Problem] = []
    labels: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], tuple[int, str]] = {}
    blank = 0
    now = datetime.now(UTC)
    for line, r in rows:
        if not any(r.get(f) for f in FILL_FIELDS):
            blank += 1
            continue
        run_id, case_id, labeller = r.get("run_id", ""), r.get("case_id", ""), r["labeller"]
        if not run_id or run_id not in runs:
            problems.append(_Problem(line, "run_id", f"run {run_id!r} has no judged case in "
                                     "the store" if run_id else "empty"))
            continue
        if (run_id, case_id) not in judged:
            problems.append(_Problem(line, "case_id", f"case {case_id!r} is not judged in "
                                     f"run {run_id!r}"))
            continue
        if not labeller:
            problems.append(_Problem(line, "labeller", "empty (who labelled this row?)"))
            continue
        verdict = r["verdict"].lower()
        if verdict and verdict not in VERDICTS:
            problems.append(_Problem(line, "verdict", f"{r['verdict']!r} is not one of "
                                     f"{', '.join(VERDICTS)}"))
        flags = {f: _bool(r[f], line, f, problems)
                 for f in ("root_cause_correct", "evidence_adequate", "unsafe_advice")}
        over = _overrides(r["overrides"], keys.get((run_id, case_id), {}), line, problems)
        if not (verdict or r["verdict"] or r["overrides"]) and all(
                r[f] == "" for f in flags):
            problems.append(_Problem(line, "verdict", "nothing labelled: fill the verdict, "
                                     "a yes/no field or an override"))
        when = _when(r.get("labelled_at", ""), line, problems)
        content = {"run_id": run_id, "case_id": case_id, "labeller": labeller,
                   "verdict": verdict or None, **flags, "notes": r["notes"] or None,
                   "labelled_at": when.isoformat() if when else None,
                   "items": sorted(f"{lv}:{it}={v}" for (lv, it), v in over.items())}
        digest = hashlib.sha256(orjson.dumps(content, option=orjson.OPT_SORT_KEYS)).hexdigest()
        key = (run_id, case_id, labeller)
        if key in seen and seen[key][1] != digest:
            problems.append(_Problem(line, "labeller", f"{labeller!r} already labelled "
                                     f"{run_id}/{case_id} differently in row {seen[key][0]}"))
            continue
        if key in seen:
            continue
        seen[key] = (line, digest)
        label_id = "sha256:" + digest
        labels.append({"label_id": label_id, "run_id": run_id, "case_id": case_id,
                       "labeller": labeller, "source": "sheet", "verdict": verdict or None,
                       **flags, "notes": r["notes"] or None,
                       "blind": _bool(r.get("blind", ""), line, "blind", problems),
                       "sheet_judge_version": r.get("judge_version") or None,
                       "labelled_at": when or now, "imported_at": now,
                       "source_file": str(path), "source_line": line})
        items.extend({"label_id": label_id, "level": lv, "item": it, "value": v}
                     for (lv, it), v in sorted(over.items()))
    if problems:
        raise _fail(path, problems)
    return labels, items, blank


_LABEL_SCHEMA = {"label_id": pl.String, "run_id": pl.String, "case_id": pl.String,
                 "labeller": pl.String, "source": pl.String, "verdict": pl.String,
                 "root_cause_correct": pl.Boolean, "evidence_adequate": pl.Boolean,
                 "unsafe_advice": pl.Boolean, "notes": pl.String, "blind": pl.Boolean,
                 "sheet_judge_version": pl.String,
                 "labelled_at": pl.Datetime("us", "UTC"),
                 "imported_at": pl.Datetime("us", "UTC"), "source_file": pl.String,
                 "source_line": pl.Int32}
_ITEM_SCHEMA = {"label_id": pl.String, "level": pl.String, "item": pl.String,
                "value": pl.String}


def import_sheet(store: Store, path: str | Path) -> ImportResult:
    """Validate sheet ``path`` (:func:`parse_sheet`) and add its labels to the store in one
    transaction. A row whose label is already stored (same content, same labeller) is
    unchanged; a changed one is a new label and the earlier one stays as history."""
    labels, items, blank = parse_sheet(store, path)
    ids = [r["label_id"] for r in labels]
    stored = set(store.con.sql(read_query("label/existing_labels.sql"),
                                   params={"label_ids": ids}).pl()["label_id"].to_list()) if ids \
        else set()
    new = [r for r in labels if r["label_id"] not in stored]
    new_ids = {r["label_id"] for r in new}
    with store.transaction():
        if new:
            store.write_frame("eval_label", pl.DataFrame(new, schema=_LABEL_SCHEMA))
        new_items = [i for i in items if i["label_id"] in new_ids]
        if new_items:
            store.write_frame("eval_label_item", pl.DataFrame(new_items, schema=_ITEM_SCHEMA))
    return ImportResult(added=len(new), unchanged=len(labels) - len(new), blank=blank,
                        case_runs=len({(r["run_id"], r["case_id"]) for r in labels}),
                        labellers=sorted({r["labeller"] for r in labels}))


def label_history(store: Store, run_id: str | None = None) -> pl.DataFrame:
    """Every stored sheet label of run ``run_id`` (``None``: every run), oldest first per
    (case run, labeller), with ``effective`` true for the one that counts."""
    return store.con.sql(read_query("label/history.sql"), params={"run_id": run_id}).pl()
