"""Operator reviews (docs/release.md): read and validate JSONL/CSV, and turn them into the
labels the release metrics read. Storing reviews, their history and verified actions is in
``_review_store.py``."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl
from pydantic import ValidationError

from rcaeval._inputs import check_input_file, csv_rows, read_input
from rcaeval.errors import InputError, NotFoundError
from rcaeval.release._captures import REVIEW_LABEL_SCHEMA, sha256_file
from rcaeval.release._models import (
    CASE_TYPES,
    HARD_GATE_ASSESSMENTS,
    HASH_PATTERN,
    RESOLUTION_OUTCOMES,
    REVIEW_SCORES,
    Review,
)

SCORE_COLUMN_PREFIX = "score_"
"""CSV reviews carry the seven scores as ``score_<name>`` columns."""


@dataclass
class ReviewFile:
    """Reviews read from one file: the valid ones, and one problem per invalid row (the other
    rows are kept)."""

    path: str
    sha256: str
    reviews: list[Review] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)

    def as_input(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "rows": len(self.reviews)
                + len(self.problems), "invalid": len(self.problems)}


def _problem(path: str, line: int, fld: str, message: str, rid: Any = None) -> dict[str, Any]:
    return {"src": path, "line": line, "capture_id": None, "review_id": rid, "field": fld,
            "message": message}


def _validate(rf: ReviewFile, line: int, obj: Any) -> None:
    if not isinstance(obj, dict):
        rf.problems.append(_problem(rf.path, line, "(line)",
                                    f"expected a JSON object, got {type(obj).__name__}"))
        return
    try:
        review = Review.model_validate(obj)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(row)"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        rf.problems.append(_problem(rf.path, line, loc, err["msg"] + more,
                                    obj.get("review_id")))
        return
    rf.reviews.append(review)
    rf.lines.append(line)


def _csv_row(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    scores: dict[str, Any] = {}
    for k, v in row.items():
        if k is None:  # more cells than header columns
            out["(extra cells)"] = v
            continue
        k = k.strip()
        v = v.strip() if isinstance(v, str) else v
        if k.startswith(SCORE_COLUMN_PREFIX):
            name = k[len(SCORE_COLUMN_PREFIX):]
            try:
                scores[name] = int(v) if v not in ("", None) else None
            except ValueError:
                scores[name] = v
        elif v not in ("", None):
            out[k] = v
    if scores:
        out["scores"] = {k: v for k, v in scores.items() if v is not None}
    return out


_NOT_UTF8 = re.compile("[\udc80-\udcff]")
"""What ``surrogateescape`` decodes a byte that is not UTF-8 to."""


def _rows(rf: ReviewFile) -> Iterator[tuple[int, Any]]:
    """The rows of ``rf.path`` as (line, parsed object); a line that is not JSON becomes a
    problem. JSON lines (``.jsonl``) or CSV (``.csv``; scores as ``score_<name>`` columns)."""
    p = Path(rf.path)
    if p.suffix == ".csv":
        data = read_input(p, "reviews")
        # bytes that are not UTF-8 become lone surrogates: the row holding them is a problem
        # of its own, every other row is read
        text = data.decode("utf-8-sig", errors="surrogateescape")
        # a field may be as long as the file (the file is capped), not only 128 KiB
        csv.field_size_limit(max(csv.field_size_limit(), len(data) + 1))
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            names = reader.fieldnames
        except csv.Error as exc:
            raise InputError(f"not CSV: {exc}", file=str(p), line=1) from None
        if any(_NOT_UTF8.search(n) for n in names or []):
            raise InputError("the CSV header is not UTF-8 text; save the file as UTF-8",
                             file=str(p), line=1)
        missing = [c for c in ("review_id", "analysis_hash", "reviewed_at", "case_type",
                               "hard_gate_assessment") if c not in (reader.fieldnames or [])]
        missing += [SCORE_COLUMN_PREFIX + s for s in REVIEW_SCORES
                    if SCORE_COLUMN_PREFIX + s not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"CSV header lacks column(s) {', '.join(missing)}", file=str(p),
                             line=1, field=missing[0])
        for row in csv_rows(reader):
            if isinstance(row, csv.Error):
                raise InputError(f"not CSV: {row}", file=str(p), line=reader.line_num)
            bad = [k or "(extra cells)" for k, v in row.items()
                   if any(isinstance(c, str) and _NOT_UTF8.search(c)
                          for c in (v if isinstance(v, list) else [v]))]
            if bad:
                rf.problems.append(_problem(rf.path, reader.line_num, bad[0],
                                            "not UTF-8 text; save the file as UTF-8"))
                continue
            yield reader.line_num, _csv_row(row)
    elif p.suffix in (".jsonl", ".ndjson"):
        with p.open("rb") as fh:
            for no, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError as exc:
                    rf.problems.append(_problem(rf.path, no, "(line)", f"invalid JSON: {exc}"))
                    continue
                yield no, obj
    else:
        raise InputError("reviews must be a .jsonl or .csv file", file=str(p))


def _open(path: str | Path) -> ReviewFile:
    p = Path(path)
    if not p.exists():
        raise NotFoundError(f"no review file at {p}")
    return ReviewFile(str(p), sha256_file(check_input_file(p, "reviews")))


def _duplicate(rf: ReviewFile, seen: dict[str, int], rid: str, line: int) -> bool:
    """Whether ``rid`` was seen on an earlier valid row (then a problem); else remembered."""
    if rid in seen:
        rf.problems.append(_problem(rf.path, line, "review_id",
                                    f"duplicate review_id (first at line {seen[rid]})", rid))
        return True
    seen[rid] = line
    return False


def read_reviews(path: str | Path) -> ReviewFile:
    """Read operator reviews from JSON lines (``.jsonl``) or CSV (``.csv``; scores as
    ``score_<name>`` columns). Invalid rows become problems naming the file, line and field."""
    rf = _open(path)
    for no, obj in _rows(rf):
        _validate(rf, no, obj)
    seen: dict[str, int] = {}
    keep_r: list[Review] = []
    keep_l: list[int] = []
    for r, line in zip(rf.reviews, rf.lines, strict=True):
        if _duplicate(rf, seen, r.review_id, line):
            continue
        keep_r.append(r)
        keep_l.append(line)
    rf.reviews, rf.lines = keep_r, keep_l
    return rf


@dataclass
class ReviewLabels:
    """What a measurement reads from a review file: the label columns of its valid reviews
    (``REVIEW_LABEL_SCHEMA``), how many there are, and the same problems as
    :func:`read_reviews` (same order, same messages)."""

    path: str
    sha256: str
    labels: pl.DataFrame
    count: int
    problems: list[dict[str, Any]]

    def as_input(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256,
                "rows": self.count + len(self.problems), "invalid": len(self.problems)}


_REVIEW_KEYS = frozenset(Review.model_fields)
_OPTIONAL_TEXT = ("incident_id", "capture_id", "reviewer", "action_that_worked")
_SCORE_KEYS = frozenset(REVIEW_SCORES)
_HASH = re.compile(HASH_PATTERN)
_PLAIN_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
                         r"(\.[0-9]{1,6})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?")
_LABEL_COLUMNS = tuple(REVIEW_LABEL_SCHEMA)


def _certain_label(obj: Any) -> tuple[Any, ...] | None:
    """The label columns of a row that certainly validates as a :class:`Review` and whose
    values the model would keep unchanged (no whitespace to strip, a plain ISO timestamp);
    None for any other row (the model then decides, and names the field)."""
    if type(obj) is not dict or not obj.keys() <= _REVIEW_KEYS:
        return None
    get = obj.get
    rid, ahash, at, ct, family, scores = (get("review_id"), get("analysis_hash"),
                                          get("reviewed_at"), get("case_type"),
                                          get("expected_family"), get("scores"))
    if (type(rid) is not str or not rid or rid != rid.strip()
            or type(ahash) is not str or not _HASH.fullmatch(ahash)  # no whitespace in it
            or type(at) is not str or not _PLAIN_TIME.fullmatch(at)
            or type(ct) is not str or ct not in CASE_TYPES
            or (family is not None and (type(family) is not str or family != family.strip()))
            or type(scores) is not dict or scores.keys() != _SCORE_KEYS):
        return None
    for v in scores.values():
        if type(v) is not int or v < 0 or v > 5:
            return None
    gate, outcome = get("hard_gate_assessment"), get("resolution_outcome")
    if (type(gate) is not str or gate not in HARD_GATE_ASSESSMENTS
            or (outcome is not None
                and (type(outcome) is not str or outcome not in RESOLUTION_OUTCOMES))
            or type(get("notes", "")) is not str):
        return None
    for k in _OPTIONAL_TEXT:
        v = get(k)
        if v is not None and type(v) is not str:
            return None
    try:
        when = datetime.fromisoformat(at)
        when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return (ahash, rid, when, ct, family or None)


def read_review_labels(path: str | Path) -> ReviewLabels:
    """The labels a measurement reads from the reviews of ``path``, with the problems
    :func:`read_reviews` would report. Rows that certainly validate are read directly; every
    other row goes through the :class:`Review` model, as in :func:`read_reviews`."""
    rf = _open(path)
    cols: tuple[list[Any], ...] = tuple([] for _ in _LABEL_COLUMNS)
    order: list[tuple[int, str]] = []
    for no, obj in _rows(rf):
        label = _certain_label(obj)
        if label is None:
            _validate(rf, no, obj)  # a problem, or one valid review
            if not rf.reviews:
                continue
            r = rf.reviews.pop()
            rf.lines.pop()
            label = (r.analysis_hash, r.review_id, r.reviewed_at, r.case_type,
                     r.expected_family)
        order.append((no, label[1]))
        for col, v in zip(cols, label, strict=True):
            col.append(v)
    seen: dict[str, int] = {}
    keep = [not _duplicate(rf, seen, rid, no) for no, rid in order]
    frame = pl.DataFrame(dict(zip(_LABEL_COLUMNS, cols, strict=True)),
                         schema=REVIEW_LABEL_SCHEMA)
    if not all(keep):
        frame = frame.filter(pl.Series(keep))
    return ReviewLabels(rf.path, rf.sha256, frame, frame.height, rf.problems)


def review_labels(reviews: list[Review]) -> pl.DataFrame:
    """The label columns of ``review_label`` (capture.sql) for these reviews."""
    return pl.DataFrame(
        [{"analysis_hash": r.analysis_hash, "review_id": r.review_id,
          "reviewed_at": r.reviewed_at, "case_type": r.case_type,
          "expected_family": r.expected_family} for r in reviews],
        schema=REVIEW_LABEL_SCHEMA, orient="row")
