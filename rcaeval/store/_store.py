"""The :class:`Store`: one open DuckDB store plus analyst-friendly frame accessors."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import duckdb
import polars as pl
import pyarrow as pa

from rcaeval._paths import read_statement
from rcaeval._vocab import BUCKETS
from rcaeval.errors import InputError, NotFoundError
from rcaeval.store import _parquet
from rcaeval.store._keys import duplicate_keys, require_unique_keys, unenforced_keys
from rcaeval.store._migrations import (
    MIGRATIONS_TABLE,
    Migration,
    applied_migrations,
    applied_migrations_sql,
    discover_migrations,
    plan_migrations,
)
from rcaeval.store._sqlnames import base_tables, primary_key, quote_ident, table_columns
from rcaeval.store._tx import transaction

#: The judge's buckets in report order; ``buckets()``/``checks()`` sort by it (unknown last).
BUCKET_ORDER: tuple[str, ...] = BUCKETS

Filter = str | Sequence[str] | None
F = TypeVar("F", bound=Callable[..., Any])


def _released(method: F) -> F:
    """Release the connection after the outermost call when the store releases after use."""

    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
        self._use_depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            self._use_depth -= 1
            if not self._use_depth:
                self._after_use()

    return wrapper  # type: ignore[return-value]


class Store:
    """An open rcaeval store. Get one from :func:`rcaeval.store.connect`.

    ``con`` is the DuckDB connection (``TimeZone`` is UTC) for ad-hoc SQL; the frame methods
    return polars DataFrames in a deterministic order.
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        path: Path | None,
        *,
        read_only: bool,
        migrations_dir: Path | None,
        applied_now: list[Migration],
        allow_checksum_mismatch: bool = False,
        reopen: Callable[..., duckdb.DuckDBPyConnection] | None = None,
        release_after_use: bool = False,
    ) -> None:
        self._con: duckdb.DuckDBPyConnection | None = con
        self._use_depth = 0
        self._reopen = reopen
        self.release_after_use = release_after_use
        """Close the connection after every frame method / ``sql()`` call (analysis stores)."""
        self.path = path
        self.read_only = read_only
        self.migrations_dir = migrations_dir
        self.applied_now = applied_now
        """Migrations applied by the ``connect`` call that opened this store."""
        self._allow_checksum_mismatch = allow_checksum_mismatch
        self._tx_depth = 0
        self._closed = False

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def label(self) -> str:
        """The store's path as text, or ``:memory:``."""
        return str(self.path) if self.path is not None else ":memory:"

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, (re)opened on demand after :meth:`release` (waiting while
        another process holds the lock). It keeps the file locked until the next
        :meth:`release` - prefer the frame methods and ``sql()`` in a long session."""
        if self._con is None:
            if self._closed or self._reopen is None:
                raise duckdb.ConnectionException("the store is closed")
            extra = {} if self.lock_timeout is None else {"lock_timeout": self.lock_timeout}
            self._con = self._reopen(on_wait=self._on_wait, **extra)
        return self._con

    def _on_wait(self, message: str) -> None:
        if self.on_wait is not None:
            self.on_wait(message)

    lock_timeout: float | None = None
    """Overrides the lock wait of reopens (the runner waits longer than an analyst)."""

    on_wait: Callable[[str], None] | None = None
    """Called once when a reopen has to wait for another process's lock (the runner prints
    a line)."""

    def release(self) -> None:
        """Close the DuckDB connection (unlocking the file for other processes) while keeping
        the store usable: the next use reopens it. No-op for ``:memory:``, inside a
        transaction, or when already released."""
        if self._con is not None and self._reopen is not None and not self._tx_depth:
            con, self._con = self._con, None
            con.close()

    def _after_use(self) -> None:
        if self.release_after_use:
            self.release()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._con is not None:
                self._con.close()
                self._con = None

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"schema v{self.schema_version}"
        mode = ", read-only" if self.read_only else ""
        return f"<rcaeval Store {self.label} ({state}{mode})>"

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """A transaction; nested uses join the outermost one (also the judge's and
        extraction's own, :func:`rcaeval.store._tx.transaction`). Rolls back on any
        exception."""
        self._tx_depth += 1
        try:
            with transaction(self.con):
                yield self
        finally:
            self._tx_depth -= 1

    # -- schema ----------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        """The highest applied migration version (0 for an empty store)."""
        return max((a.version for a in applied_migrations(self.con)), default=0)

    @_released
    def migrations(self) -> pl.DataFrame:
        """The ``schema_migrations`` rows (version, name, checksum, applied_at)."""
        if MIGRATIONS_TABLE not in self.tables():
            return pl.DataFrame(
                schema={
                    "version": pl.Int32,
                    "name": pl.String,
                    "checksum": pl.String,
                    "applied_at": pl.Datetime("us", "UTC"),
                }
            )
        return self.sql(applied_migrations_sql())

    @_released
    def pending_migrations(self) -> list[Migration]:
        """Known migration files not yet applied to this store."""
        return plan_migrations(
            self.label,
            discover_migrations(self.migrations_dir),
            applied_migrations(self.con),
            allow_checksum_mismatch=self._allow_checksum_mismatch,
        )

    @_released
    def tables(self) -> list[str]:
        """Base tables (``schema_migrations`` included), sorted by name."""
        return base_tables(self.con)

    @_released
    def columns(self, table: str) -> list[tuple[str, str]]:
        """``(column, DuckDB type)`` of ``table`` in declaration order."""
        self._require_table(table)
        return table_columns(self.con, table)

    @_released
    def row_counts(self) -> dict[str, int]:
        """Row count of every base table."""
        out: dict[str, int] = {}
        for t in self.tables():
            query = read_statement("store/table_row_count.sql", table=quote_ident(t))
            row = self.con.execute(query).fetchone()
            out[t] = int(row[0]) if row else 0
        return out

    @_released
    def duplicate_keys(self) -> dict[str, list[tuple[str, int]]]:
        """The judge detail tables whose key (unenforced by DuckDB) a value holds twice:
        ``{table: [(key value, rows), ...]}``, at most five values each; empty when sound."""
        out: dict[str, list[tuple[str, int]]] = {}
        for table, key in unenforced_keys(self.con).items():
            if table in self.tables():
                dupes = duplicate_keys(self.con, table, key)
                if dupes:
                    out[table] = dupes
        return out

    def _require_table(self, table: str) -> None:
        if table not in self.tables():
            raise NotFoundError(f"{self.label}: no table named {table!r} in the store")

    # -- querying --------------------------------------------------------------------------
    @_released
    def sql(self, query: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pl.DataFrame:
        """Run ``query`` (``?`` or ``$name`` parameters) and return the result as polars."""
        rel = self.con.sql(query, params=params)
        if rel is None:
            return pl.DataFrame()
        return rel.pl()

    @_released
    def table(self, name: str, **filters: Filter) -> pl.DataFrame:
        """All rows of ``name`` (optionally ``column=value`` / ``column=[values]`` filtered),
        ordered by its key (the primary key, or the unenforced key of a judge detail table)
        then every column."""
        self._require_table(name)
        key = primary_key(self.con, name) or unenforced_keys(self.con).get(name, [])
        return self._select(name, filters, key)

    @_released
    def runs(self) -> pl.DataFrame:
        """``eval_runs``: one row per run, ordered by run_id."""
        return self._select("eval_runs", {}, ["run_id"])

    @_released
    def case_runs(self, run_id: Filter = None) -> pl.DataFrame:
        """``eval_case_runs``: execution record per (run, case)."""
        return self._select("eval_case_runs", {"run_id": run_id}, ["run_id", "case_id"])

    @_released
    def judgments(self, run_id: Filter = None, case_id: Filter = None) -> pl.DataFrame:
        """``eval_judgment``: verdict, score and judgment packet per (run, case)."""
        return self._select(
            "eval_judgment", {"run_id": run_id, "case_id": case_id}, ["run_id", "case_id"]
        )

    @_released
    def buckets(self, run_id: Filter = None, case_id: Filter = None) -> pl.DataFrame:
        """``eval_bucket``: status and score per (run, case, bucket), buckets in report order."""
        return self._select(
            "eval_bucket",
            {"run_id": run_id, "case_id": case_id},
            ["run_id", "case_id", _BUCKET_RANK, "bucket"],
        )

    @_released
    def checks(
        self, run_id: Filter = None, case_id: Filter = None, bucket: Filter = None
    ) -> pl.DataFrame:
        """``eval_check``: one row per check with why it passed and the deciding evidence."""
        return self._select(
            "eval_check",
            {"run_id": run_id, "case_id": case_id, "bucket": bucket},
            ["run_id", "case_id", _BUCKET_RANK, "bucket", "check_id"],
        )

    @_released
    def trajectory(self, run_id: Filter = None, case_id: Filter = None) -> pl.DataFrame:
        """``eval_trajectory``: steps, failed and repeated calls, steps and seconds to the first
        cited evidence, tokens, cost, wall time and efficiency per (run, case)."""
        return self._select(
            "eval_trajectory", {"run_id": run_id, "case_id": case_id}, ["run_id", "case_id"]
        )

    def _select(self, table: str, filters: dict[str, Filter], order: list[str]) -> pl.DataFrame:
        """The rows of ``table`` for a frame accessor, built with DuckDB's relational API (the
        library quotes every name and value): ``column = value`` / ``list_contains(values,
        column)`` per filter, ordered by ``order`` then every other column, so ties never
        depend on storage (``bucket`` by its report rank)."""
        names = [c for c, _ in table_columns(self.con, table)]
        if not names:  # the table is missing (e.g. a store opened with migrate=False)
            raise NotFoundError(f"{self.label}: no table named {table!r} in the store")
        rel = self.con.table(table)
        for col, value in filters.items():
            if value is None:
                continue
            if col not in names:
                raise InputError(f"table {table} has no column {col!r} to filter on")
            column = duckdb.ColumnExpression(col)
            rel = rel.filter(column == duckdb.ConstantExpression(value)
                             if isinstance(value, str) else
                             duckdb.FunctionExpression(
                                 "list_contains", duckdb.ConstantExpression(list(value)), column))
        keys = [_bucket_rank() if o == _BUCKET_RANK else duckdb.ColumnExpression(o)
                for o in order]
        keys += [duckdb.ColumnExpression(c) for c in names if c not in order]
        return rel.sort(*keys).pl()

    # -- writing ---------------------------------------------------------------------------
    def write_frame(
        self,
        table: str,
        frame: pl.DataFrame | pa.Table,
        *,
        replace_keys: list[str] | None = None,
    ) -> int:
        """Insert ``frame``'s rows into ``table`` by column name; return the rows inserted.

        Columns the frame lacks get the table's default (NULL unless declared); a frame column
        the table lacks is an :class:`InputError`. With ``replace_keys``, rows of ``table``
        whose key values equal any (distinct) key tuple of ``frame`` are deleted first, in
        the same transaction, so re-writing a judgment is idempotent. A write that would
        duplicate a key (a primary-key clash, or a repeated key of a judge detail table,
        whose keys DuckDB does not enforce) is an :class:`InputError`; nothing is written.
        """
        self._require_table(table)
        if table == MIGRATIONS_TABLE:
            raise InputError(f"{MIGRATIONS_TABLE} is maintained by the migration runner")
        arrow = _to_arrow(frame)
        table_cols = [c for c, _ in table_columns(self.con, table)]
        cols = list(arrow.column_names)
        unknown = [c for c in cols if c not in table_cols]
        if unknown:
            raise InputError(
                f"write_frame({table}): columns not in the table: {', '.join(unknown)} "
                f"(table columns: {', '.join(table_cols)})"
            )
        keys = list(replace_keys or [])
        bad_keys = [k for k in keys if k not in cols]
        if bad_keys:
            raise InputError(
                f"write_frame({table}): replace_keys not among the frame's columns: "
                f"{', '.join(bad_keys)}"
            )
        if not cols:
            if arrow.num_rows:
                raise InputError(f"write_frame({table}): frame has rows but no columns")
            return 0
        view = f"__rcaeval_frame_{uuid.uuid4().hex}"
        names = {"table": quote_ident(table), "view": quote_ident(view)}
        col_list = ", ".join(quote_ident(c) for c in cols)
        self.con.register(view, arrow)
        try:
            with self.transaction():
                if keys:
                    match = " AND ".join(
                        f"t.{quote_ident(k)} IS NOT DISTINCT FROM f.{quote_ident(k)}" for k in keys
                    )
                    self.con.execute(
                        read_statement("store/frame_replace_keys.sql", match=match, **names)
                    )
                self.con.execute(
                    read_statement("store/frame_insert.sql", columns=col_list, **names)
                )
                require_unique_keys(self.con, [table])
        except InputError as exc:
            raise InputError(f"write_frame({table}) failed, nothing written: {exc.message}",
                             field=exc.field) from exc
        except duckdb.Error as exc:
            raise InputError(f"write_frame({table}) failed, nothing written: {exc}") from exc
        finally:
            self.con.unregister(view)
        return arrow.num_rows

    # -- parquet ---------------------------------------------------------------------------
    @_released
    def export_parquet(
        self, directory: str | Path, tables: Sequence[str] | None = None
    ) -> list[Path]:
        """Write ``<table>.parquet`` per table (default: all) into ``directory``.

        ``schema_migrations.parquet`` is always written too, so an import can tell which
        schema version the files come from. Rows are sorted, so the files are reproducible.
        """
        return _parquet.export_parquet(self, Path(directory), tables)

    def import_parquet(self, directory: str | Path, *, mode: str = "append") -> dict[str, int]:
        """Load every ``<table>.parquet`` of ``directory`` into the matching table.

        ``mode="append"`` adds rows (a primary-key clash is an error); ``"replace"`` first
        empties each table that has a file. All-or-nothing: one transaction. Returns the rows
        loaded per table. See :func:`rcaeval.store._parquet.import_parquet`.
        """
        return _parquet.import_parquet(self, Path(directory), mode=mode)


_BUCKET_RANK = "bucket rank"
"""In an accessor's order: ``bucket`` by its rank in the report (:data:`rcaeval._vocab.BUCKETS`),
unknown buckets last."""


def _bucket_rank() -> duckdb.Expression:
    return duckdb.CoalesceOperator(
        duckdb.FunctionExpression("list_position", duckdb.ConstantExpression(list(BUCKET_ORDER)),
                                  duckdb.ColumnExpression("bucket")),
        duckdb.ConstantExpression(1000))


def _to_arrow(frame: Any) -> pa.Table:
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame.to_arrow()
    if isinstance(frame, pa.Table):
        return frame
    if isinstance(frame, pa.RecordBatch):
        return pa.Table.from_batches([frame])
    raise InputError(
        f"write_frame expects a polars DataFrame or a pyarrow Table, got {type(frame).__name__}"
    )


Connectable = duckdb.DuckDBPyConnection | Store
"""What a function reading or writing the store takes: a DuckDB connection or a
:class:`Store` (whose ``.con`` it then uses)."""


def connection_of(con: Connectable) -> duckdb.DuckDBPyConnection:
    """The DuckDB connection of ``con`` (a connection, or a :class:`Store`); a
    :class:`TypeError` naming the type for anything else."""
    inner = con.con if isinstance(con, Store) else con
    if not isinstance(inner, duckdb.DuckDBPyConnection):
        raise TypeError(f"expected a DuckDB connection or a store, got {type(con).__name__}")
    return inner
