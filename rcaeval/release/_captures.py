"""Reading a capture export into DuckDB: JSON lines or Parquet files (or a directory of them,
or a polars frame), validated field by field in SQL, normalised into the ``release_*`` tables
the metric queries read. See docs/release.md for the format.

Every step that decides something is a file under ``queries/release/``; Python reads the
bytes, registers relations and passes the name lists (one home: ``_models.py``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, get_args

import duckdb
import orjson
import polars as pl
import pyarrow as pa

from rcaeval._inputs import check_input_file
from rcaeval._paths import read_query
from rcaeval.errors import InputError, NotFoundError
from rcaeval.harness import EvidenceArtifact, RcaResponse, RootCause
from rcaeval.release._models import (
    BLANK_PATTERN,
    CASE_TYPES,
    EXPECTED_OUTCOMES,
    HARNESS_STATUSES,
    HASH_PATTERN,
    SNAPSHOT_STATUSES,
    STAGES,
    TIME_RELATIONS,
    TRACE_FORMAT,
)
from rcaeval.release._time import TIMESTAMP_PATTERN

CAPTURE_COLUMNS: tuple[str, ...] = (
    "capture_id", "captured_at", "stage", "population", "incident_id", "response", "harness",
    "labels", "tool_executions", "knowledge_activations", "outage_test", "review_ids",
)
"""Every column of a capture/1 Parquet export (all present, nulls allowed); the JSONL keys."""
OPTIONAL_COLUMNS: tuple[str, ...] = ("knowledge", "trace")
"""capture/2 columns: absent in a capture/1 export (read as null)."""
CAPTURE_SUFFIXES = (".jsonl", ".ndjson", ".parquet")
NO_FAMILY: tuple[str, ...] = ("", "none", "null", "unknown", "n/a")
"""Root-cause family values that mean "no cause named" (as in the response contract)."""
RELEASE_QUERIES: tuple[str, ...] = (
    "release/input_jsonl.sql", "release/input_columns.sql", "release/capture_scan.sql",
    "release/validate_captures.sql", "release/capture.sql", "release/evidence.sql",
    "release/tool_execution.sql", "release/activation.sql", "release/population.sql",
    "release/session.sql", "release/progress_bar.sql", "release/validate_trace.sql",
    "release/trace.sql",
)
"""The glue queries whose text decides a measurement (hashed into the provenance)."""
REVIEW_LABEL_SCHEMA = {"analysis_hash": pl.Utf8, "review_id": pl.Utf8,
                       "reviewed_at": pl.Datetime("us", "UTC"), "case_type": pl.Utf8,
                       "expected_family": pl.Utf8}
_JSONL_BATCH = 100_000


@dataclass
class InputFile:
    path: str
    sha256: str
    rows: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "rows": self.rows}


@dataclass
class LoadedCaptures:
    """What was read: the input files (with hashes) and the problems found while reading
    (lines that are not JSON objects; field problems are in ``capture_problem``)."""

    inputs: list[InputFile] = field(default_factory=list)
    read_problems: list[dict[str, Any]] = field(default_factory=list)


def run(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> list[Any]:
    """Execute and fetch: the result is consumed, so relation calls that follow never meet an
    unfinished one."""
    return con.execute(sql, params).fetchall()


def open_connection(memory_limit: str | None = None,
                    threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection for one measurement (UTC; optional resource caps, as
    the store's ``memory_limit`` / ``threads``; what does not fit under the memory limit
    spills to a private directory under the system's temporary directory)."""
    from rcaeval.store import resolve_memory_limit, resolve_threads

    con = duckdb.connect()
    run(con, read_query("release/session.sql"))
    try:
        run(con, read_query("release/progress_bar.sql"))
    except duckdb.InvalidInputException:
        pass  # a Jupyter kernel without ipywidgets: DuckDB refuses the setting, draws no bar
    spill = Path(tempfile.gettempdir()) / f"rcaeval-release-{os.getpid()}-{uuid.uuid4().hex}"
    run(con, read_query("release/temp_directory.sql"), {"dir": str(spill)})
    limit = resolve_memory_limit(memory_limit)
    n = resolve_threads(threads)
    try:
        if limit is not None:
            run(con, read_query("store/memory_limit.sql"), {"limit": limit})
        if n is not None:
            run(con, read_query("store/threads.sql"), {"threads": n})
    except duckdb.Error as exc:
        con.close()
        raise InputError(f"invalid memory limit or thread count: {exc}",
                         field="memory_limit") from exc
    return con


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def capture_files(source: Path) -> list[Path]:
    """``source`` itself, or the ``.jsonl``/``.ndjson``/``.parquet`` files of a directory
    (sorted; files whose name contains ``reviews``, and metrics JSON, are ignored)."""
    if not source.exists():
        raise NotFoundError(f"no captures at {source}")
    if source.is_dir():
        files = sorted(p for p in source.iterdir()
                       if p.is_file() and p.suffix in CAPTURE_SUFFIXES
                       and "reviews" not in p.name)
        if not files:
            raise InputError("directory holds no .jsonl or .parquet capture files",
                             file=str(source))
        return [check_input_file(p, "captures") for p in files]
    if source.suffix not in CAPTURE_SUFFIXES:
        raise InputError(f"captures must be {', '.join(CAPTURE_SUFFIXES)} files, got "
                         f"{source.suffix or 'no suffix'!r}", file=str(source))
    return [check_input_file(source, "captures")]


def _load_jsonl(con: duckdb.DuckDBPyConnection, files: list[Path],
                loaded: LoadedCaptures) -> None:
    srcs: list[str] = []
    lines: list[int] = []
    raws: list[str] = []
    first = True

    def flush() -> None:
        nonlocal first
        tbl = pa.table({"src": pa.array(srcs, pa.string()), "line": pa.array(lines, pa.int64()),
                        "raw": pa.array(raws, pa.string())})
        rel = con.from_arrow(tbl)
        if first:
            rel.create("capture_raw")
            first = False
        else:
            rel.insert_into("capture_raw")
        srcs.clear()
        lines.clear()
        raws.clear()

    for path in files:
        info = InputFile(str(path), sha256_file(path))
        loaded.inputs.append(info)
        with path.open("rb") as fh:
            for no, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                info.rows += 1
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError as exc:
                    loaded.read_problems.append({"src": str(path), "line": no,
                                                 "capture_id": None, "field": "(line)",
                                                 "message": f"invalid JSON: {exc}"})
                    continue
                if not isinstance(obj, dict):
                    loaded.read_problems.append({
                        "src": str(path), "line": no, "capture_id": None, "field": "(line)",
                        "message": f"expected a JSON object, got {type(obj).__name__}"})
                    continue
                srcs.append(str(path))
                lines.append(no)
                try:
                    raws.append(raw.decode("utf-8"))
                except UnicodeDecodeError as exc:
                    srcs.pop()
                    lines.pop()
                    loaded.read_problems.append({"src": str(path), "line": no,
                                                 "capture_id": None, "field": "(line)",
                                                 "message": f"not UTF-8: {exc}"})
                    continue
                if len(raws) >= _JSONL_BATCH:
                    flush()
    flush()
    run(con, read_query("release/input_jsonl.sql"))


def _load_columns(con: duckdb.DuckDBPyConnection, rel: Any, where: str) -> None:
    missing = [c for c in CAPTURE_COLUMNS if c not in rel.columns]
    if missing:
        raise InputError(f"capture export lacks column(s) {', '.join(missing)} (every column "
                         "must be present; nulls are allowed)", file=where, field=missing[0])
    absent = [c for c in OPTIONAL_COLUMNS if c not in rel.columns]
    if absent:  # a capture/1 export: the capture/2 columns read as null
        rel = rel.select(*[duckdb.ColumnExpression(c) for c in rel.columns],
                         *[duckdb.ConstantExpression(None).alias(c) for c in absent])
    rel.create_view("capture_source", replace=True)
    run(con, read_query("release/input_columns.sql"))


def _load_parquet(con: duckdb.DuckDBPyConnection, files: list[Path],
                  loaded: LoadedCaptures) -> None:
    for path in files:
        loaded.inputs.append(InputFile(str(path), sha256_file(path)))
    try:
        rel = con.read_parquet([str(p) for p in files], filename=True, file_row_number=True,
                               union_by_name=True)
    except duckdb.Error as exc:
        raise InputError(f"cannot read Parquet: {exc}", file=str(files[0])) from exc
    _load_columns(con, rel, ", ".join(str(p) for p in files))
    counts = dict(run(con, read_query("release/input_counts.sql")))
    for info in loaded.inputs:
        info.rows = int(counts.get(info.path, 0))


def load_frame(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, name: str) -> LoadedCaptures:
    """Load captures held in a polars frame (columns as in the Parquet export; a missing
    optional column is taken as all-null)."""
    required = ("capture_id", "captured_at", "stage", "response", "harness")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise InputError(f"capture frame lacks column(s) {', '.join(missing)}", file=name,
                         field=missing[0])
    extra = [pl.lit(None, pl.Utf8).alias(c) for c in CAPTURE_COLUMNS + OPTIONAL_COLUMNS
             if c not in frame.columns]
    frame = frame.with_columns(extra).with_row_index("file_row_number").with_columns(
        pl.lit(name).alias("filename"))
    con.register("capture_frame", frame)
    _load_columns(con, con.table("capture_frame"), name)
    digest = hashlib.sha256()
    for col in sorted(frame.columns):
        digest.update(col.encode())
    hashed = frame.drop("file_row_number", "filename").hash_rows().to_arrow()
    digest.update(bytes(hashed.buffers()[1] or b""))
    return LoadedCaptures(inputs=[InputFile(name, digest.hexdigest(), frame.height)])


def load_captures(con: duckdb.DuckDBPyConnection, source: Path | pl.DataFrame, *,
                  start: datetime | None = None, end: datetime | None = None,
                  stage: str | None = None, labels: pl.DataFrame | None = None) -> LoadedCaptures:
    """Read ``source`` into ``capture_input``, parse it once into ``capture_row`` (keeping
    what the metrics read for the captures of ``[start, end)`` and ``stage``; none without a
    window) and validate it into ``capture_problem``. ``labels``: the review labels
    (``review_labels()``) that label captures without labels of their own."""
    register_review_labels(con, labels)
    if isinstance(source, pl.DataFrame):
        loaded = load_frame(con, source, "<frame>")
    else:
        files = capture_files(Path(source))
        loaded = LoadedCaptures()
        jsonl = [p for p in files if p.suffix != ".parquet"]
        parquet = [p for p in files if p.suffix == ".parquet"]
        if jsonl and parquet:
            raise InputError("mix of JSONL and Parquet capture files; export one format",
                             file=str(source))
        if parquet:
            _load_parquet(con, parquet, loaded)
        else:
            _load_jsonl(con, jsonl, loaded)
    names = _validation_params()
    run(con, read_query("release/capture_scan.sql"),
        {**names, "start": start, "end": end, "stage": stage, "no_family": list(NO_FAMILY)})
    run(con, read_query("release/validate_captures.sql"), names)
    run(con, read_query("release/validate_trace.sql"), {
        "time_relations": list(TIME_RELATIONS), "snapshot_statuses": list(SNAPSHOT_STATUSES),
        "trace_format": TRACE_FORMAT, "blank": BLANK_PATTERN})
    return loaded


def _literal_args(model: Any, name: str) -> list[str]:
    return [a for a in get_args(model.model_fields[name].annotation) if isinstance(a, str)]


def _validation_params() -> dict[str, Any]:
    return {
        "stages": list(STAGES), "case_types": list(CASE_TYPES),
        "expected_outcomes": list(EXPECTED_OUTCOMES),
        "outcomes": _literal_args(RcaResponse, "outcome"),
        "confidences": _literal_args(RootCause, "confidence"),
        "origins": _literal_args(EvidenceArtifact, "origin"),
        "harness_statuses": list(HARNESS_STATUSES),
        "hash_pattern": HASH_PATTERN, "timestamp_pattern": TIMESTAMP_PATTERN,
    }


def register_review_labels(con: duckdb.DuckDBPyConnection, labels: pl.DataFrame | None) -> None:
    frame = labels if labels is not None else pl.DataFrame(schema=REVIEW_LABEL_SCHEMA)
    con.register("review_label", frame.select(list(REVIEW_LABEL_SCHEMA)))


def build_window(con: duckdb.DuckDBPyConnection) -> None:
    """The relations the metric queries read, as views over ``capture_row`` (the window was
    chosen by ``load_captures``): release_capture, release_evidence, release_tool_execution,
    release_activation."""
    for q in ("release/capture.sql", "release/evidence.sql", "release/tool_execution.sql",
              "release/activation.sql", "release/trace.sql"):
        run(con, read_query(q))


def problems(con: duckdb.DuckDBPyConnection, loaded: LoadedCaptures) -> list[dict[str, Any]]:
    """Every problem, reading problems first, in file/line order."""
    rows = con.table("capture_problem").pl().to_dicts()
    out = loaded.read_problems + rows
    out.sort(key=lambda r: (r["src"], r["line"], r["field"]))
    return out


def population(con: duckdb.DuckDBPyConnection, loaded: LoadedCaptures) -> dict[str, Any]:
    rows = run(con, read_query("release/population.sql"))
    out: dict[str, Any] = {"captures": {}, "by_case_type": {}, "by_stage": {},
                           "outage_tests": {}}
    key_of = {"captures": "captures", "case_type": "by_case_type", "stage": "by_stage",
              "outage_test": "outage_tests"}
    for dim, key, n in rows:
        out[key_of[dim]][key] = int(n)
    # lines that were not JSON objects never reached capture_input: count them as read+invalid
    bad = len({(p["src"], p["line"]) for p in loaded.read_problems})
    out["captures"]["read"] = out["captures"].get("read", 0) + bad
    out["captures"]["invalid"] = out["captures"].get("invalid", 0) + bad
    out["captures"]["invalid_in_window"] = out["captures"].get("invalid_in_window", 0) + bad
    out["captures"] = {k: out["captures"].get(k, 0) for k in (
        "read", "invalid", "invalid_in_window", "in_window", "outside_window")}
    for ct in CASE_TYPES:
        out["by_case_type"].setdefault(ct, 0)
    return out
