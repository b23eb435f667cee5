"""The judging session: one store, one typed DuckDB connection, one sequence.

:class:`Judging` owns what every judging pass needs: the connection (UTC pinned, schema
checked), Arrow registration and transactions (:func:`rcaeval.store.registered` /
:func:`rcaeval.store.transaction`), the chunk and memory loop, and the write phase (eval_*
rows, judgment.json files, the unloadable cases). :meth:`Judging.judge` is the one place
where "register -> extract -> judge -> record unloadable" is written; ``judge_audit`` (audit
dirs), ``rejudge_store`` (the stored raw rows), the runner's per-case judging and the
authoring preview feed it keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._paths import read_query
from rcaeval._vocab import DEFAULT_CHUNK_SIZE
from rcaeval.errors import InputError
from rcaeval.judge._load import (
    case_fields,
    case_meta_table,
    concat_rule_tables,
    load_case_meta,
    load_rules,
)
from rcaeval.judge._manifest import run_phase
from rcaeval.judge._packet import build_packets, judgments_frame, write_packets, write_results
from rcaeval.judge._pipeline import detect_outputs, run_judge_sql, scope_keys
from rcaeval.judge._profiles import load_profiles
from rcaeval.judge._rules import compute_rules_hash, flatten_rules
from rcaeval.judge._shadow import Provider, redecider
from rcaeval.judge._unloadable import record_unloadable
from rcaeval.judge._version import JUDGE_VERSION
from rcaeval.store import (
    Connectable,
    base_tables,
    checkpoint,
    checkpoints_deferred,
    connection_of,
    pin_utc,
    registered,
    release_cache,
    transaction,
)

Key = tuple[str, str]
"""A judged case run: ``(run_id, case_id)``."""
Failure = tuple[str, str]
"""Why a case cannot be judged: ``(subtype, reason)`` (rcaeval.judge._unloadable)."""
T = TypeVar("T")

DETECTOR_BLOCK_CHUNKS = 10
"""Judging chunks per detector block: the output detectors run once over a block's case runs
(:func:`rcaeval.judge._pipeline.detect_outputs`), their fixed per-query cost (RE2 compiling
the grammar's regexes) paid once per block; a block keeps only its output sentences and
detector matches, a small fraction of a chunk's raw rows."""

REQUIRED_TABLES = frozenset({"case_meta", "raw_bundle", "rule_check", "eval_fact",
                             "eval_judgment"})


@dataclass(frozen=True)
class CaseRules:
    """One case as the judge needs it: the case.yaml-shaped dict (``case_type``,
    ``environment.cluster_id``, ``time_window``) and the judge spec dict (judge.yaml shape,
    defaults applied), with the registry's ``rules_hash`` when known."""

    case_id: str
    case_doc: Mapping[str, Any]
    judge_doc: Mapping[str, Any]
    rules_hash: str | None = None

    @property
    def effective_hash(self) -> str:
        return self.rules_hash or compute_rules_hash(self.judge_doc)


def raw_connection(con: Connectable) -> duckdb.DuckDBPyConnection:
    """The DuckDB connection of ``con`` (:func:`rcaeval.store.connection_of`)."""
    return connection_of(con)


def check_chunk_size(chunk_size: int | None) -> None:
    if chunk_size is not None and chunk_size < 1:
        raise InputError(f"chunk_size must be >= 1, got {chunk_size}", field="chunk_size")


def chunks(keys: pa.Table, chunk_size: int | None) -> Iterator[pa.Table]:
    """``keys`` in consecutive slices of ``chunk_size`` rows (one slice when ``None`` or when
    there are no keys, so an empty judging pass still yields an empty frame)."""
    if chunk_size is None or keys.num_rows <= chunk_size:
        yield keys
        return
    for start in range(0, keys.num_rows, chunk_size):
        yield keys.slice(start, chunk_size)


def oom_guard(con: duckdb.DuckDBPyConnection, n_runs: int, call: Callable[[], T]) -> T:
    """``call()``; DuckDB running out of memory becomes an :class:`InputError` naming both
    knobs (the memory limit and the chunk size)."""
    try:
        return call()
    except (duckdb.OutOfMemoryException, RuntimeError) as exc:
        oom = exc if isinstance(exc, duckdb.OutOfMemoryException) else exc.__cause__
        if not isinstance(oom, duckdb.OutOfMemoryException):
            raise
        limit = con.execute(read_query("store/current_memory_limit.sql")).fetchall()[0][0]
        raise InputError(
            f"DuckDB ran out of memory judging {n_runs} case runs in one pass "
            f"(memory_limit {limit}): raise it (--memory-limit, $RCAEVAL_DB_MEMORY_LIMIT, "
            f"connect(memory_limit=...)) or lower the chunk size (--chunk-size). {oom}",
            field="memory_limit",
        ) from exc


class Judging:
    """A judging session on one store (a :class:`rcaeval.store.Store` or a DuckDB connection,
    migrated). Constructing it checks the schema and pins the connection to UTC.

    ``out_dir`` / ``write_files``: where judgment.json goes (``out_dir/<run>/<case>/``, else
    the case dir extraction recorded). ``chunk_size``: case runs per SQL pass (``None``: one
    pass). ``semantic``: the [shadow] phase's :class:`rcaeval.judge.Provider` after each
    chunk (a :class:`rcaeval.semantic.SemanticConfig` is one). ``profiles``: the scoring
    profiles (default ``profiles.yaml``)."""

    def __init__(self, store: Connectable, *, out_dir: str | Path | None = None,
                 write_files: bool = True, chunk_size: int | None = DEFAULT_CHUNK_SIZE,
                 semantic: Provider | None = None, profiles: dict[str, Any] | None = None,
                 profiles_path: str | Path | None = None,
                 scoring_profile: str | None = None) -> None:
        check_chunk_size(chunk_size)
        self.con: duckdb.DuckDBPyConnection = raw_connection(store)
        have = set(base_tables(self.con))
        if not REQUIRED_TABLES <= have:
            raise InputError(
                f"the store lacks tables {sorted(REQUIRED_TABLES - have)}: open it with "
                "rcaeval.store.connect() so migrations 0001/0002 are applied")
        pin_utc(self.con)
        self.out_dir = out_dir
        self.write_files = write_files
        self.chunk_size = chunk_size
        self.semantic = semantic
        self.scoring_profile = scoring_profile
        self._profiles = profiles
        self._profiles_path = profiles_path

    def load_profiles(self) -> dict[str, Any]:
        """The scoring profiles (``profiles``, else ``profiles_path``, else the shipped
        profiles.yaml), loaded once; a bad file fails here (callers load them early)."""
        if self._profiles is None:
            self._profiles = load_profiles(self._profiles_path)
        return self._profiles

    @property
    def profiles(self) -> dict[str, Any]:
        return self.load_profiles()

    # -- the connection's helpers ----------------------------------------------------------
    def transaction(self) -> Any:
        """:func:`rcaeval.store.transaction` on the session's connection."""
        return transaction(self.con)

    def registered(self, tables: Mapping[str, Any]) -> Any:
        """:func:`rcaeval.store.registered` on the session's connection."""
        return registered(self.con, tables)

    # -- the one sequence ------------------------------------------------------------------
    def judge(self, keys: Iterable[Key] | None, cases: Mapping[str, CaseRules] | None = None,
              *, refs: Iterable[Any] | None = None, workers: int | None = None,
              progress: bool = False, failures: Mapping[str, Failure] | None = None,
              per_ref: Mapping[Key, Failure] | None = None,
              unloadable: Iterable[Any] | None = None,
              bookkeeping: Callable[[], None] | None = None) -> pl.DataFrame:
        """Judge ``keys``: register their ``cases`` (rule tables + case_meta; skipped when
        ``cases`` is ``None``: already loaded), extract ``refs`` (case dirs, :class:`rcaeval.
        extract.CaseRef`; ``None``: the raw rows are in the store), judge in chunks and write,
        run the caller's ``bookkeeping``, then record the ``unloadable`` refs (those whose
        case id is in ``failures`` or key in ``per_ref``) as ``invalid``. Returns one row per
        judged or unloadable case run, ordered by (run_id, case_id)."""
        keys = list(keys) if keys is not None else None
        frames: list[pl.DataFrame] = []
        if keys is None or keys:
            if cases is not None and keys is not None:
                self.register(keys, cases)
            if refs is not None:
                self.extract(refs, workers=workers, progress=progress)
            frames.append(self.judge_loaded(keys, cases=cases))
        if bookkeeping is not None:
            bookkeeping()
        if unloadable is not None:
            bad = self.record_unloadable(failures or {}, unloadable, per_ref=per_ref)
            if bad:
                frames.append(pl.DataFrame(bad))
        if not frames:
            return pl.DataFrame()
        result = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
        return result.sort(["run_id", "case_id"])

    # -- phases ----------------------------------------------------------------------------
    def register(self, runs: Iterable[Key], cases: Mapping[str, CaseRules]) -> None:
        """Load rule tables for the cases of ``runs`` and their ``case_meta`` rows."""
        runs = list(runs)
        used = sorted({c for _, c in runs})
        unknown = [c for c in used if c not in cases]
        if unknown:
            raise InputError(f"no registry case for case id(s) {unknown}")
        tables = concat_rule_tables(
            flatten_rules(cid, cases[cid].judge_doc, rules_hash=cases[cid].effective_hash)
            for cid in used
        )
        load_rules(self.con, tables)
        self.record_case_meta(runs, cases)

    def record_case_meta(self, runs: Iterable[Key], cases: Mapping[str, CaseRules]) -> None:
        """Upsert the ``case_meta`` rows (case type, cluster, window, rules hash, profile)."""
        meta = []
        for run_id, case_id in runs:
            spec = cases[case_id]
            profile = (self.scoring_profile or spec.judge_doc.get("scoring_profile")
                       or "default")
            meta.append({
                "run_id": run_id, "case_id": case_id, "rules_hash": spec.effective_hash,
                "scoring_profile": profile, **case_fields(spec.case_doc),
            })
        if meta:
            load_case_meta(self.con, case_meta_table(meta))

    def extract(self, refs: Iterable[Any], *, workers: int | None = None,
                progress: bool = False) -> Any:
        """Extract case dirs into ``raw_*`` (:func:`rcaeval.extract.extract_cases`)."""
        from rcaeval.extract import extract_cases

        return extract_cases(self.con, list(refs), workers=workers, progress=progress)

    def judge_loaded(self, keys: Iterable[Key] | None = None, *,
                     cases: Mapping[str, CaseRules] | None = None) -> pl.DataFrame:
        """The chunk and memory loop over keys whose raw rows, rules and case_meta are loaded
        (docs/judge.md "Chunks and memory"): validate every key, then per detector block run
        the detectors, per chunk judge and write. ``cases`` give the semantic shadow its
        ground truth."""
        con = self.con
        profiles = self.profiles
        all_keys = scope_keys(con, keys, profiles=profiles)
        judged_at = datetime.now(UTC)
        parts: list[pl.DataFrame] = []
        block_size = (None if self.chunk_size is None
                      else self.chunk_size * DETECTOR_BLOCK_CHUNKS)
        with checkpoints_deferred(con):
            for block in chunks(all_keys, block_size):
                if parts:
                    self._release_chunk_inputs()
                self._oom_guard(block.num_rows, lambda b=block: detect_outputs(
                    con, b, profiles=profiles))
                for i, chunk in enumerate(chunks(block, self.chunk_size)):
                    if i:
                        self._release_chunk_inputs()
                    parts.append(self._judge_chunk(chunk, judged_at, cases))
        return parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical")

    def _judge_chunk(self, chunk: pa.Table, judged_at: datetime,
                     cases: Mapping[str, CaseRules] | None) -> pl.DataFrame:
        """Judge one chunk whose detector block already ran; write its eval_* rows (one
        transaction) and packets, then the semantic shadow."""
        con = self.con
        frames = self._oom_guard(chunk.num_rows, lambda: run_judge_sql(
            con, chunk, profiles=self.profiles, detected=True))
        packets = build_packets(frames, judge_version=JUDGE_VERSION)
        write_results(con, frames, packets, judge_version=JUDGE_VERSION, judged_at=judged_at)
        if self.write_files:
            case_dirs = {
                (r["run_id"], r["case_id"]): r["case_dir"]
                for r in frames.scope.iter_rows(named=True)
            }
            write_packets(packets, case_dirs, self.out_dir)
        if self.semantic is not None:
            self.semantic.shadow(con, frames, redecide=redecider(con, self.profiles),
                                 cases=cases, out_dir=self.out_dir,
                                 write_files=self.write_files, judged_at=judged_at)
        return judgments_frame(frames)

    def _release_chunk_inputs(self) -> None:
        """Between chunks (and before a detector block): drop the last chunk's input tables,
        checkpoint what its commit wrote, and give DuckDB's cached blocks back
        (``rcaeval.store.release_cache``), so each chunk starts from the same memory whatever
        the store's size and the number of chunks before it. The checkpoint runs here, not in
        the chunk's commit (``checkpoints_deferred``), so that its own memory comes on top of
        the least the judge holds."""
        run_phase(self.con, "release")
        checkpoint(self.con)
        release_cache(self.con)

    def _oom_guard(self, n_runs: int, call: Callable[[], T]) -> T:
        return oom_guard(self.con, n_runs, call)

    def record_unloadable(self, failures: Mapping[str, Failure], refs: Iterable[Any], *,
                          per_ref: Mapping[Key, Failure] | None = None) -> list[dict[str, Any]]:
        """An ``invalid`` judgment (rows and judgment.json) for each unloadable case dir."""
        return record_unloadable(self.con, failures, refs, judge_version=JUDGE_VERSION,
                                 out_dir=self.out_dir, write_files=self.write_files,
                                 per_ref=per_ref)
