"""Operator reviews (docs/release.md): read and validate JSONL/CSV, and turn them into the
labels the release metrics read. Storing reviews, their history and verified actions is in
``_review_store.py``."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import polars as pl
from pydantic import ValidationError

from rcaeval.errors import InputError, NotFoundError
from rcaeval.release._captures import REVIEW_LABEL_SCHEMA, sha256_file
from rcaeval.release._models import REVIEW_SCORES, Review

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


def read_reviews(path: str | Path) -> ReviewFile:
    """Read operator reviews from JSON lines (``.jsonl``) or CSV (``.csv``; scores as
    ``score_<name>`` columns). Invalid rows become problems naming the file, line and field."""
    p = Path(path)
    if not p.is_file():
        raise NotFoundError(f"no review file at {p}")
    rf = ReviewFile(str(p), sha256_file(p))
    if p.suffix == ".csv":
        text = p.read_bytes().decode("utf-8-sig", errors="strict")
        reader = csv.DictReader(io.StringIO(text, newline=""))
        missing = [c for c in ("review_id", "analysis_hash", "reviewed_at", "case_type",
                               "hard_gate_assessment") if c not in (reader.fieldnames or [])]
        missing += [SCORE_COLUMN_PREFIX + s for s in REVIEW_SCORES
                    if SCORE_COLUMN_PREFIX + s not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"CSV header lacks column(s) {', '.join(missing)}", file=str(p),
                             line=1, field=missing[0])
        for row in reader:
            _validate(rf, reader.line_num, _csv_row(row))
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
                _validate(rf, no, obj)
    else:
        raise InputError("reviews must be a .jsonl or .csv file", file=str(p))
    seen: dict[str, int] = {}
    keep_r: list[Review] = []
    keep_l: list[int] = []
    for r, line in zip(rf.reviews, rf.lines, strict=True):
        if r.review_id in seen:
            rf.problems.append(_problem(rf.path, line, "review_id",
                                        f"duplicate review_id (first at line {seen[r.review_id]})",
                                        r.review_id))
            continue
        seen[r.review_id] = line
        keep_r.append(r)
        keep_l.append(line)
    rf.reviews, rf.lines = keep_r, keep_l
    return rf


def review_labels(reviews: list[Review]) -> pl.DataFrame:
    """The label columns of ``review_label`` (capture.sql) for these reviews."""
    return pl.DataFrame(
        [{"analysis_hash": r.analysis_hash, "review_id": r.review_id,
          "reviewed_at": r.reviewed_at, "case_type": r.case_type,
          "expected_family": r.expected_family} for r in reviews],
        schema=REVIEW_LABEL_SCHEMA, orient="row")
