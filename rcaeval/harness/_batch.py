"""The batch path: check thousands of captured responses and return polars frames.

``check_batch`` returns a :class:`BatchResult` with three frames:

- ``results``: one row per record (status, score, per-dimension points, gates, repairs,
  before/after outcome, family and confidence, the final response as JSON, or an ``error``
  with status ``invalid`` for a record that does not meet the contract);
- ``checks``: gate and scoring rows of every valid record, shaped like the judge's check rows;
- ``repairs``: one row per recorded repair.

``summarize`` aggregates those frames with the SQL in ``queries/harness/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl

from rcaeval._paths import read_query
from rcaeval.errors import InputError
from rcaeval.harness._check import check, parse_response
from rcaeval.harness._config import HarnessConfig, resolve_config
from rcaeval.harness._contract import RcaResponse
from rcaeval.harness._gates import GATE_IDS
from rcaeval.harness._io import Record, read_responses, unwrap
from rcaeval.harness._result import CHECK_SCHEMA, DIMENSIONS, HarnessResult
from rcaeval.store import pin_utc

RESULT_SCHEMA: dict[str, Any] = {
    "record": pl.Int64, "record_id": pl.Utf8, "line": pl.Int64,
    "analysis_hash": pl.Utf8, "response_hash": pl.Utf8, "status": pl.Utf8,
    "score": pl.Float64, "initial_score": pl.Float64,
    **{d: pl.Float64 for d in DIMENSIONS},
    **{GATE_IDS[g]: pl.Boolean for g in sorted(GATE_IDS)},
    "gates_passed": pl.Boolean, "initial_failed_gates": pl.List(pl.Utf8),
    "n_repairs": pl.Int64, "repairs": pl.List(pl.Utf8),
    "outcome_in": pl.Utf8, "outcome_out": pl.Utf8, "family_in": pl.Utf8, "family_out": pl.Utf8,
    "confidence_in": pl.Utf8, "confidence_out": pl.Utf8, "novel": pl.Boolean,
    "error": pl.Utf8, "response": pl.Utf8,
}
REPAIR_SCHEMA: dict[str, Any] = {
    "record": pl.Int64, "analysis_hash": pl.Utf8, "seq": pl.Int64, "attempt": pl.Int64,
    "repair": pl.Utf8, "target": pl.Utf8, "why": pl.Utf8, "before": pl.Utf8, "after": pl.Utf8,
}
_CHECK_BATCH_SCHEMA: dict[str, Any] = {"record": pl.Int64, **CHECK_SCHEMA}
_FLUSH_RECORDS = 1024  # records whose rows are held as dicts before they become columns


@dataclass(slots=True)
class BatchResult:
    results: pl.DataFrame
    checks: pl.DataFrame
    repairs: pl.DataFrame

    @property
    def invalid(self) -> pl.DataFrame:
        return self.results.filter(pl.col("status") == "invalid")


def _records(source: Any, id_column: str | None) -> Iterator[Record]:
    """The records of ``source``, one at a time: a record is parsed when it is reached and
    dropped once checked, so a batch holds one parsed response, not all of them."""
    if isinstance(source, str | Path):
        recs = read_responses(source)
        recs.reverse()
        while recs:
            yield recs.pop()
        return
    if isinstance(source, pl.DataFrame):
        if "response" not in source.columns:
            raise InputError("the frame needs a 'response' column", field="response")
        for i, row in enumerate(source.iter_rows(named=True)):
            rec = unwrap({"response": row["response"]}, i, None, from_frame=True)
            if id_column and row.get(id_column) is not None:
                rec.record_id = str(row[id_column])
            elif rec.record_id is None:
                rec.record_id = next((str(row[k]) for k in ("capture_id", "record_id", "id")
                                      if row.get(k) is not None), None)
            yield rec
        return
    for i, item in enumerate(source):
        if isinstance(item, RcaResponse):
            yield Record(i, None, None, item)  # type: ignore[arg-type]
        elif isinstance(item, str | bytes):
            try:
                yield unwrap(orjson.loads(item), i, None)
            except orjson.JSONDecodeError as exc:
                yield Record(i, None, None, None, f"invalid JSON: {exc}")
        else:
            yield unwrap(item, i, None)


def check_batch(
    source: Iterable[Any] | pl.DataFrame | str | Path,
    config: HarnessConfig | None = None,
    *, id_column: str | None = None,
) -> BatchResult:
    """Check every response of ``source``: a file path, a polars frame with a ``response``
    column (JSON text or struct), or an iterable of dicts / JSON strings / RcaResponse."""
    cfg = resolve_config(config)
    records = _records(source, id_column)
    frames: dict[str, list[pl.DataFrame]] = {"results": [], "checks": [], "repairs": []}
    results: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    repairs: list[dict[str, Any]] = []

    def flush() -> None:
        # Rows become columns every _FLUSH_RECORDS records: a row dict costs ~10x its
        # column values, so holding 100,000 records' rows as dicts took gigabytes.
        for name, rows, schema in (("results", results, RESULT_SCHEMA),
                                   ("checks", checks, _CHECK_BATCH_SCHEMA),
                                   ("repairs", repairs, REPAIR_SCHEMA)):
            if rows or not frames[name]:
                frames[name].append(pl.DataFrame(rows, schema=schema))
            rows.clear()

    for n, rec in enumerate(records, 1):
        res, err = _one(rec, cfg)
        if res is None:
            results.append(_invalid_row(rec, err or "invalid"))
        else:
            results.append(_result_row(rec, res))
            for row in res.check_rows():
                checks.append({"record": rec.index, "analysis_hash": res.analysis_hash,
                               **row.as_dict()})
            for seq, rp in enumerate(res.repairs):
                repairs.append({
                    "record": rec.index, "analysis_hash": res.analysis_hash, "seq": seq,
                    "attempt": rp.attempt, "repair": rp.repair, "target": rp.target,
                    "why": rp.why, "before": orjson.dumps(rp.before).decode(),
                    "after": orjson.dumps(rp.after).decode(),
                })
        if n % _FLUSH_RECORDS == 0:
            flush()
    flush()
    return BatchResult(*(pl.concat(frames[k], rechunk=True)
                         for k in ("results", "checks", "repairs")))


def _one(rec: Record, cfg: HarnessConfig) -> tuple[HarnessResult | None, str | None]:
    if rec.data is None:
        return None, rec.error
    try:
        parsed = parse_response(rec.data)  # type: ignore[arg-type]
    except InputError as exc:
        where = f"[{exc.field}] " if exc.field else ""
        return None, f"{where}{exc.message}"
    rec.data = None  # keep memory flat on large batches
    return check(parsed, cfg), None


def _invalid_row(rec: Record, error: str) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(RESULT_SCHEMA)
    row.update(record=rec.index, record_id=rec.record_id, line=rec.line, status="invalid",
               error=error, n_repairs=0, repairs=[], initial_failed_gates=[])
    return row


def _result_row(rec: Record, res: HarnessResult) -> dict[str, Any]:
    r, o = res.response, res.original
    row: dict[str, Any] = {
        "record": rec.index, "record_id": rec.record_id, "line": rec.line,
        "analysis_hash": res.analysis_hash, "response_hash": res.response_hash,
        "status": res.status, "score": res.score.total, "initial_score": res.initial_score,
        **res.score.dimensions,
        **{g.gate_id: g.passed for g in res.gates},
        "gates_passed": res.gates_passed,
        "initial_failed_gates": [g.gate_id for g in res.initial_gates if not g.passed],
        "n_repairs": len(res.repairs),
        "repairs": [rp.repair for rp in res.repairs],
        "outcome_in": o.outcome,
        "outcome_out": r.outcome,
        "family_in": o.root_cause.family,
        "family_out": r.root_cause.family,
        "confidence_in": o.root_cause.confidence,
        "confidence_out": r.root_cause.confidence,
        "novel": r.novel, "error": None,
        "response": orjson.dumps(r.model_dump(mode="json")).decode(),
    }
    return row


def summarize(batch: BatchResult) -> dict[str, pl.DataFrame]:
    """Aggregates over a batch (queries/harness/*.sql): ``status`` (count and mean score per
    status) and ``checks`` (pass rate and mean points per gate / scoring rule)."""
    con = duckdb.connect()
    try:
        pin_utc(con)
        con.register("harness_results", batch.results.to_arrow())
        con.register("harness_checks", batch.checks.to_arrow())
        return {
            "status": con.sql(read_query("harness/status_summary.sql")).pl(),
            "checks": con.sql(read_query("harness/check_summary.sql")).pl(),
        }
    finally:
        con.close()
