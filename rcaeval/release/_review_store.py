"""Operator reviews in the store: import (validated, idempotent), the analyses they review,
history across re-analyses, and verified actions (docs/release.md)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import polars as pl

from rcaeval._paths import read_query
from rcaeval.release._captures import load_captures, open_connection, run
from rcaeval.release._models import VERIFIED_OUTCOMES
from rcaeval.release._reviews import ReviewFile, read_reviews
from rcaeval.store import registered, transaction

if TYPE_CHECKING:
    from rcaeval.store import Store

_IMPORT_SCHEMA = {
    "review_id": pl.Utf8, "analysis_hash": pl.Utf8, "incident_id": pl.Utf8,
    "capture_id": pl.Utf8, "reviewer": pl.Utf8, "reviewed_at": pl.Datetime("us", "UTC"),
    "case_type": pl.Utf8, "expected_family": pl.Utf8, "scores": pl.Utf8,
    "mean_score": pl.Float64, "hard_gate_assessment": pl.Utf8, "passing": pl.Boolean,
    "resolution_outcome": pl.Utf8, "action_that_worked": pl.Utf8, "notes": pl.Utf8,
    "content_sha256": pl.Utf8, "source_file": pl.Utf8, "source_line": pl.Int32,
    "imported_at": pl.Datetime("us", "UTC"),
}
_ANALYSIS_SCHEMA = {"analysis_hash": pl.Utf8, "incident_id": pl.Utf8,
                    "analyzed_at": pl.Datetime("us", "UTC"), "capture_id": pl.Utf8,
                    "source": pl.Utf8}


@dataclass
class ImportResult:
    file: str
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    analyses_from_captures: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "new": self.new, "changed": self.changed,
                "unchanged": self.unchanged,
                "analyses_from_captures": self.analyses_from_captures,
                "invalid": len(self.problems), "problems": self.problems}


def _import_frame(rf: ReviewFile) -> pl.DataFrame:
    now = datetime.now(UTC)
    rows = []
    for r, line in zip(rf.reviews, rf.lines, strict=True):
        data = r.model_dump(mode="json")
        rows.append({
            **{k: data[k] for k in ("review_id", "analysis_hash", "incident_id", "capture_id",
                                    "reviewer", "case_type", "expected_family",
                                    "hard_gate_assessment", "resolution_outcome",
                                    "action_that_worked", "notes")},
            "reviewed_at": r.reviewed_at, "scores": orjson.dumps(r.scores).decode(),
            "mean_score": r.mean_score(), "passing": r.passing(),
            "content_sha256": hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS))
            .hexdigest(),
            "source_file": rf.path, "source_line": line, "imported_at": now,
        })
    return pl.DataFrame(rows, schema=_IMPORT_SCHEMA, orient="row")


def capture_analyses(captures: str | Path) -> pl.DataFrame:
    """The analyses (analysis_hash, incident_id, captured_at) of a capture export's valid
    captures."""
    con = open_connection()
    try:
        load_captures(con, Path(captures))
        rel = con.sql(read_query("release/capture_analyses.sql"))
        return rel.pl().cast(_ANALYSIS_SCHEMA)  # type: ignore[arg-type]
    finally:
        con.close()


def import_reviews(store: Store, path: str | Path, *, captures: str | Path | None = None
                   ) -> ImportResult:
    """Validate the reviews of ``path`` (JSONL/CSV) and store the valid ones in
    ``release_review`` (``store``: a :class:`rcaeval.store.Store`). ``captures``: a capture
    export whose analyses (and their times) tell which analysis of an incident is current;
    without it an analysis counts from its first review."""
    rf = read_reviews(path)
    res = ImportResult(rf.path, problems=rf.problems)
    con = store.con
    frames = []
    if captures is not None:
        caps = capture_analyses(captures)
        res.analyses_from_captures = caps.height
        frames.append(caps)
    imp = _import_frame(rf)
    frames.append(imp.group_by("analysis_hash").agg(
        pl.col("incident_id").drop_nulls().first(), pl.col("reviewed_at").min()
        .alias("analyzed_at"), pl.col("capture_id").drop_nulls().first(),
        pl.lit("review").alias("source")).select(list(_ANALYSIS_SCHEMA)))
    analyses = pl.concat([f.cast(_ANALYSIS_SCHEMA) for f in frames])  # type: ignore[arg-type]
    with registered(con, {"review_import": imp, "analysis_import": analyses}):
        new, changed, unchanged = run(con, read_query("release/review_import_diff.sql"))[0]
        with transaction(con):
            run(con, read_query("release/review_upsert.sql"))
            run(con, read_query("release/analysis_upsert.sql"))
    res.new, res.changed, res.unchanged = int(new), int(changed), int(unchanged)
    return res


def review_history(store: Store, incident: str | None = None) -> pl.DataFrame:
    """Every stored review with its ``incident``, ``state`` (current / historical) and
    ``effective`` flag (review_history.sql); ``incident`` filters to one incident."""
    run(store.con, read_query("release/review_history.sql"))
    frame = store.con.table("release_review_history").pl()
    if incident is not None:
        frame = frame.filter(pl.col("incident") == incident)
    return frame.sort("incident", "analyzed_at", "reviewed_at", "review_id")


def verified_actions(store: Store) -> pl.DataFrame:
    """Actions that worked, from effective reviews whose outcome is resolved or mitigated."""
    run(store.con, read_query("release/review_history.sql"))
    cur = store.con.execute(read_query("release/verified_actions.sql"),
                            {"verified": list(VERIFIED_OUTCOMES)})
    cols = [d[0] for d in cur.description or []]
    return pl.DataFrame(cur.fetchall(), schema=cols, orient="row")
