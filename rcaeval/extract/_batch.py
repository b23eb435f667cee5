"""Case discovery and batched, process-parallel extraction into the raw DuckDB tables."""

from __future__ import annotations

import multiprocessing as mp
import os
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rcaeval._ids import id_problem
from rcaeval._paths import read_query, read_statement
from rcaeval._vocab import DEFAULT_CHUNK_SIZE
from rcaeval.extract._case import CaseRef, case_parts, error_parts
from rcaeval.extract._group import (
    GroupBuilder,
    GroupTables,
    WireTables,
    from_wire,
    labels_per_series,
    to_wire,
)
from rcaeval.extract._resolve import BUNDLE_AMBIGUOUS, BUNDLE_MISSING, EXTRACT_ERROR, RESOLVED
from rcaeval.extract._safe import DEFAULT_MAX_FILE_BYTES, CaseFS, parse_json
from rcaeval.extract._schema import RAW_TABLES
from rcaeval.store import (
    checkpoint,
    checkpoints_deferred,
    pin_utc,
    registered,
    release_cache,
    transaction,
)

_CASE_MARKERS = ("manifest.json", "output.txt", "evidences", "workspace", "transcript.json")


def _subdirs(path: Path) -> list[Path]:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return []
    return [Path(e.path) for e in entries if not e.name.startswith(".") and e.is_dir()]


def _looks_like_case(path: Path) -> bool:
    return any(os.path.lexists(path / m) for m in _CASE_MARKERS)


def _manifest_ids(case_dir: Path) -> tuple[str | None, str | None, str | None]:
    """``(run_id, case_id, problem)`` from the case's manifest.json: an id that cannot be a
    path part (:func:`rcaeval._ids.id_problem`) is dropped and ``problem`` names it."""
    fs = CaseFS(case_dir)
    if not fs.is_regular_inside("manifest.json"):
        return None, None, None
    _, data = fs.read("manifest.json", "manifest.json", "manifest", keep=False)
    ok, obj = parse_json(data) if data is not None else (False, None)
    if not ok or not isinstance(obj, dict):
        return None, None, None
    ids: list[str | None] = []
    problems = []
    for key in ("run_id", "case_id"):
        value = obj.get(key)
        value = value.strip() if isinstance(value, str) else value
        problem = id_problem(value) if isinstance(value, str) and value else None
        if problem is not None:
            shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
            problems.append(f"{case_dir / 'manifest.json'} [{key}]: {shown} is not a usable "
                            f"id: it {problem}")
        ids.append(value if isinstance(value, str) and value and problem is None else None)
    return ids[0], ids[1], "; ".join(problems) or None


def discover_case_dirs(audit_root: str | os.PathLike[str]) -> list[CaseRef]:
    """Case dirs under an audits root (``<root>/<run_id>/<case_id>/``) or a single run dir
    (``<run_dir>/<case_id>/``), sorted by (run_id, case_id, path).

    A root is a run dir when any of its subdirs looks like a case (has ``manifest.json``,
    ``output.txt``, ``evidences/``, ``workspace/`` or ``transcript.json``). Ids come from the
    case's manifest when present, else from the directory names; when manifest ids collide
    the colliding cases fall back to directory names. Hidden dirs and non-dirs are skipped.
    """
    root = Path(audit_root)
    if not root.is_dir():
        raise FileNotFoundError(f"audit root {root} is not a directory")
    children = _subdirs(root)
    if any(_looks_like_case(c) for c in children):
        pairs = [(root.name, c) for c in children]
    else:
        pairs = [(run.name, c) for run in children for c in _subdirs(run)]
    found: list[tuple[str, str, str, str, Path, str | None]] = []
    for run_name, case_dir in pairs:
        run_id, case_id, problem = _manifest_ids(case_dir)
        if problem is not None:  # the directory names, which are path parts already
            run_id = case_id = None
        found.append((run_id or run_name, case_id or case_dir.name, run_name, case_dir.name,
                      case_dir, problem))
    counts = Counter((r, c) for r, c, *_ in found)
    refs = {
        CaseRef(r, c, d, p) if counts[(r, c)] == 1 else CaseRef(rn, cn, d, p)
        for r, c, rn, cn, d, p in found
    }
    return sorted(refs, key=lambda ref: (ref.run_id, ref.case_id, str(ref.case_dir)))


@dataclass
class ExtractSummary:
    """What one :func:`extract_cases` call did."""

    cases: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    """raw_bundle status → number of cases."""
    rows: Counter[str] = field(default_factory=Counter)
    """raw table → rows inserted."""
    batches: int = 0
    errors: list[tuple[str, str, str]] = field(default_factory=list)
    """(run_id, case_id, reason) of cases whose extraction raised."""

    @property
    def resolved(self) -> int:
        return self.statuses[RESOLVED]

    @property
    def missing(self) -> int:
        return self.statuses[BUNDLE_MISSING]

    @property
    def ambiguous(self) -> int:
        return self.statuses[BUNDLE_AMBIGUOUS]


DEFAULT_BATCH_SIZE = DEFAULT_CHUNK_SIZE
"""Cases written per transaction by default: one judging chunk. Fewer, larger batches make
fewer, fuller row groups (a smaller store) and cost DuckDB markedly less per case."""

GROUP_CASES = 16
"""Most cases one worker task extracts (and returns as one Arrow table per raw table)."""


@dataclass
class _Group:
    """Consecutive cases of one write batch, extracted as one worker task."""

    refs: list[CaseRef]
    last: bool
    """True for the last group of its batch: the batch is written after it."""


def _extract_group(refs: Sequence[CaseRef], max_file_bytes: int) -> GroupTables:
    """Worker entry point: never raises; a case whose extraction raises becomes an
    ``extract_error`` row (and no other rows) without affecting the others."""
    group = GroupBuilder()
    for ref in refs:
        try:
            parts = case_parts(ref, max_file_bytes=max_file_bytes)
        except Exception as exc:  # noqa: BLE001 - one case must not abort the batch
            parts = error_parts(ref, f"{type(exc).__name__}: {exc}")
        group.add(ref.run_id, ref.case_id, parts)
    tables = group.finish()
    tables["raw_metric_point"] = labels_per_series(tables["raw_metric_point"])
    return tables


def _extract_group_wire(refs: Sequence[CaseRef], max_file_bytes: int) -> WireTables:
    """Worker entry point of the process pool: :func:`_extract_group`'s tables as Arrow IPC
    streams (:func:`~rcaeval.extract._group.to_wire`)."""
    return to_wire(_extract_group(refs, max_file_bytes))


def _error_group(refs: Sequence[CaseRef], reason: str) -> GroupTables:
    group = GroupBuilder()
    for ref in refs:
        group.add(ref.run_id, ref.case_id, error_parts(ref, reason))
    return group.finish()


def _by_incident(batch: Sequence[CaseRef]) -> list[CaseRef]:
    """The batch's case runs with the runs of one registry case (one incident) next to each
    other, in order of their first run, other runs in place: a worker task then indexes an
    incident once for several of its runs (``_integrity._index`` caches a few), where
    consecutive case runs of one run id are all different cases. The batch keeps its
    members, so its ``bundle_seq`` range still covers exactly its case runs."""
    order: dict[tuple[Path | None, Path | None] | int, list[CaseRef]] = {}
    for i, ref in enumerate(batch):
        key = (ref.registry_case, ref.registry_incident) if ref.registry_case else i
        order.setdefault(key, []).append(ref)
    return [ref for refs in order.values() for ref in refs]


def _groups(refs: Sequence[CaseRef], batch_size: int) -> Iterator[_Group]:
    """Write batches of ``batch_size`` cases, each cut into groups of at most
    :data:`GROUP_CASES` (a group never straddles two batches), the runs of one incident
    together (:func:`_by_incident`)."""
    size = min(GROUP_CASES, batch_size)
    for b in range(0, len(refs), batch_size):
        batch = _by_incident(refs[b:b + batch_size])
        for g in range(0, len(batch), size):
            yield _Group(list(batch[g:g + size]), last=g + size >= len(batch))


def _results(groups: Iterable[_Group], workers: int,
             max_file_bytes: int) -> Iterator[tuple[_Group, GroupTables]]:
    """Each group's tables in input order, computed in a process pool with a bounded window
    of groups in flight (memory stays flat however many cases there are)."""
    if workers <= 1:
        for group in groups:
            yield group, _extract_group(group.refs, max_file_bytes)
        return
    ctx = mp.get_context("spawn")
    window = workers * 2
    todo = iter(groups)
    pending: deque[tuple[_Group, Future[WireTables], ProcessPoolExecutor]] = deque()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
    try:
        while True:
            while len(pending) < window:
                group = next(todo, None)
                if group is None:
                    break
                fut = pool.submit(_extract_group_wire, group.refs, max_file_bytes)
                pending.append((group, fut, pool))
            if not pending:
                return
            group, fut, owner = pending.popleft()
            try:
                tables = from_wire(fut.result())
            except BrokenProcessPool as exc:
                tables = _error_group(group.refs, f"worker process died: {exc}")
                if owner is pool:  # replace the broken pool once; later cases use the new one
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
            except Exception as exc:  # noqa: BLE001 - e.g. a result that fails to unpickle
                tables = _error_group(group.refs, f"{type(exc).__name__}: {exc}")
            yield group, tables
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


BULK_CHECKPOINT_WAL = 128 * 2**20
"""Extraction checkpoints after a batch (its tables given back) once DuckDB's write-ahead log
holds more than this many bytes (docs/extract.md, "Batching and parallelism")."""


def _settings(con: duckdb.DuckDBPyConnection, threads: int) -> None:
    con.execute(read_statement("extract/bulk_settings.sql", threads=str(int(threads))))


_KEYS_VIEW = "_rcaeval_extract_keys"
_ROWS_VIEW = "_rcaeval_extract_rows"


def _batch_rows(batch: list[tuple[_Group, GroupTables]], table: str) -> pa.Table | None:
    """One raw table's rows of every group of ``batch``, ``case_pos`` made relative to the
    batch; chunks stay as the workers built them (no copy; one INSERT per table and batch
    costs DuckDB markedly less than one per group)."""
    parts: list[pa.Table] = []
    offset = 0
    for group, tables in batch:
        rows = tables[table]
        if rows.num_rows:
            if offset:
                i = rows.schema.get_field_index("case_pos")
                shifted = pc.add(rows.column(i), pa.scalar(offset, pa.int32()))
                rows = rows.set_column(i, "case_pos", shifted)
            parts.append(rows)
        offset += len(group.refs)
    return pa.concat_tables(parts) if parts else None


def _flush(con: duckdb.DuckDBPyConnection,
           batch: list[tuple[_Group, GroupTables]]) -> Counter[str]:
    """Replace the raw rows of every case in ``batch`` (groups in order) in one transaction.

    Each case run gets the next ``bundle_seq`` (migration 0009) on every one of its raw rows,
    in ``batch`` order; old rows are deleted only for cases already in ``raw_bundle``, and
    only within their own ``bundle_seq`` range, so a batch never scans the whole raw store."""
    inserted: Counter[str] = Counter()
    refs = [ref for group, _ in batch for ref in group.refs]
    keys = pa.table({"run_id": [r.run_id for r in refs], "case_id": [r.case_id for r in refs]})
    with transaction(con), registered(con, {_KEYS_VIEW: keys}):
        stale, lo, hi, base = con.execute(read_query("extract/stale_keys.sql")).fetchall()[0]
        if stale:
            for table in RAW_TABLES:
                con.execute(read_statement("extract/delete_keys.sql", table=table),
                            {"lo": lo, "hi": hi})
        for table in RAW_TABLES:
            rows = _batch_rows(batch, table)
            if rows is None:
                continue
            with registered(con, {_ROWS_VIEW: rows}):
                con.execute(read_statement("extract/insert_rows.sql", table=table), {"base": base})
            inserted[table] += rows.num_rows
    return inserted


def _progress(enabled: bool) -> Progress:
    """A progress bar on stderr (stdout stays clean for command output)."""
    return Progress(TextColumn("extract"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=Console(stderr=True), disable=not enabled,
                    transient=False)


def extract_cases(
    con: duckdb.DuckDBPyConnection | Any,
    refs: Iterable[CaseRef],
    *,
    workers: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = True,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> ExtractSummary:
    """Extract case dirs into the raw tables of ``con`` (which must already hold them): a
    DuckDB connection, or any object whose ``.con`` is one (an ``rcaeval.store`` Store).

    Cases run in a process pool (``workers`` default ``min(2, cpu_count)``; ``workers <= 1``
    runs in-process) and are written ``batch_size`` cases (default
    :data:`DEFAULT_BATCH_SIZE`) per transaction. A case's existing
    raw rows are deleted before its new rows go in, so re-extraction is idempotent. A case
    whose extraction raises becomes one ``raw_bundle`` row with status ``extract_error``.
    Workers use the ``spawn`` start method: scripts need an ``if __name__ == "__main__":``
    guard when ``workers > 1``.
    """
    refs = list(refs)
    dupes = [k for k, n in Counter((r.run_id, r.case_id) for r in refs).items() if n > 1]
    if dupes:
        raise ValueError(f"duplicate (run_id, case_id) in refs: {sorted(dupes)[:5]}")
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    con = getattr(con, "con", con)
    if not isinstance(con, duckdb.DuckDBPyConnection):
        raise TypeError(f"extract_cases needs a DuckDB connection, got {type(con).__name__}")
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    pin_utc(con)
    summary = ExtractSummary()
    (threads,) = con.execute(read_query("extract/bulk_settings_read.sql")).fetchone()
    _settings(con, 1)
    try:
        with checkpoints_deferred(con):
            _run(con, refs, workers, batch_size, max_file_bytes, progress, summary)
    finally:
        _settings(con, int(threads))
    return summary


def _run(con: duckdb.DuckDBPyConnection, refs: list[CaseRef], workers: int, batch_size: int,
         max_file_bytes: int, progress: bool, summary: ExtractSummary) -> None:
    batch: list[tuple[_Group, GroupTables]] = []

    def flush() -> None:
        summary.rows.update(_flush(con, batch))
        summary.batches += 1
        batch.clear()
        # commits do not checkpoint (checkpoints_deferred): the log is checkpointed here, once
        # the batch's tables are gone and before the cache is given back, when it has grown
        # past BULK_CHECKPOINT_WAL. A checkpoint's memory follows the log it writes: at
        # 512 MiB it took ~600-900 MiB for a few seconds.
        checkpoint(con, wal_over=BULK_CHECKPOINT_WAL)
        # the blocks just written stay cached up to memory_limit unless given back: without
        # this the process grows with the store, not with the batch
        release_cache(con)

    with _progress(progress) as bar:
        task = bar.add_task("extract", total=len(refs))
        for group, tables in _results(_groups(refs, batch_size), workers, max_file_bytes):
            bundle = tables["raw_bundle"]
            statuses = bundle.column("status").to_pylist()
            reasons = bundle.column("reason").to_pylist()
            for ref, status, reason in zip(group.refs, statuses, reasons, strict=True):
                summary.cases += 1
                summary.statuses[status] += 1
                if status == EXTRACT_ERROR:
                    summary.errors.append((ref.run_id, ref.case_id, reason))
            batch.append((group, tables))
            if group.last:
                flush()
            bar.advance(task, len(group.refs))
