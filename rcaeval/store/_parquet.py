"""Parquet export/import of store tables (DuckDB ``COPY ... (FORMAT parquet)`` / ``read_parquet``).

Layout: one ``<table>.parquet`` per table plus ``schema_migrations.parquet`` (the exporting
store's migration history). Import never writes ``schema_migrations``: it only reads it to
refuse files from a newer schema and to allow older exports that lack later-added columns.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from rcaeval._inputs import check_input_file, make_output_dir
from rcaeval._paths import read_statement
from rcaeval._vocab import BUCKET_STATUSES, CASE_RUN_STATUSES, RUN_STATUSES, VERDICTS
from rcaeval.errors import InputError, NotFoundError
from rcaeval.store._keys import require_unique_keys
from rcaeval.store._migrations import MIGRATIONS_TABLE
from rcaeval.store._sqlnames import quote_ident, table_columns

if TYPE_CHECKING:
    from rcaeval.store._store import Store

IMPORT_MODES = ("append", "replace")


def export_parquet(store: Store, directory: Path, tables: Sequence[str] | None) -> list[Path]:
    existing = store.tables()
    if tables is None:
        chosen = list(existing)
    else:
        chosen = []
        for t in tables:
            if t not in existing:
                raise NotFoundError(
                    f"{store.label}: no table named {t!r} to export (tables: {', '.join(existing)})"
                )
            if t not in chosen:
                chosen.append(t)
    if MIGRATIONS_TABLE in existing and MIGRATIONS_TABLE not in chosen:
        chosen.append(MIGRATIONS_TABLE)
    chosen.sort()
    make_output_dir(directory, field="DIRECTORY")
    written: list[Path] = []
    for t in chosen:
        target = directory / f"{t}.parquet"
        tmp = directory / f".{t}.parquet.tmp"
        store.con.execute(
            read_statement("store/parquet_export.sql", table=quote_ident(t)),
            [str(tmp)],
        )
        os.replace(tmp, target)
        written.append(target)
    return written


def _brief(exc: duckdb.Error) -> str:
    """DuckDB's message without the echoed SQL (``LINE 1: ...`` and its caret line)."""
    return str(exc).split("\n\nLINE ")[0].split("\nLINE ")[0].strip()


def _parquet_columns(store: Store, path: Path) -> list[str]:
    try:
        rows = store.con.execute(
            read_statement("store/parquet_columns.sql"), [str(path)]
        ).fetchall()
    except duckdb.Error as exc:
        raise InputError(f"not a readable Parquet file: {_brief(exc)}", file=str(path)) from exc
    return [r[0] for r in rows]


def _export_version(store: Store, path: Path) -> int:
    cols = _parquet_columns(store, path)
    if "version" not in cols:
        raise InputError("schema_migrations.parquet has no 'version' column", file=str(path))
    row = store.con.execute(
        read_statement("store/parquet_schema_version.sql"), [str(path)]
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


IMPORT_DOMAINS: dict[str, dict[str, tuple[str, ...]]] = {
    "eval_judgment": {"verdict": VERDICTS},
    "eval_runs": {"status": RUN_STATUSES},
    "eval_case_runs": {"status": CASE_RUN_STATUSES},
    "eval_bucket": {"status": BUCKET_STATUSES},
}
"""Enumerated columns an import checks: a value outside its list refuses the file."""


def _check_domain(store: Store, path: Path, column: str, allowed: tuple[str, ...]) -> None:
    try:
        rows = store.con.execute(
            read_statement("store/parquet_bad_values.sql", column=quote_ident(column)),
            [str(path), list(allowed)]).fetchall()
    except duckdb.Error as exc:
        raise InputError(f"not a readable Parquet file: {_brief(exc)}", file=str(path),
                         field=column) from exc
    if rows:
        bad = ", ".join(repr(r[0]) for r in rows)
        raise InputError(f"{bad} is not a valid {column} (one of {', '.join(allowed)}); "
                         "nothing was imported", file=str(path), field=column)


def import_parquet(store: Store, directory: Path, *, mode: str = "append") -> dict[str, int]:
    """Load ``<table>.parquet`` files into the store.

    * every file's stem must name a table of the store, and its columns must be the table's
      columns (names, any order); a mismatch is an :class:`InputError` naming the file;
    * when ``schema_migrations.parquet`` shows the export is from an *older* schema version,
      columns added since may be absent (they get their defaults); from a *newer* version the
      import is refused;
    * ``mode="replace"`` empties each table that has a file first; everything runs in one
      transaction, so a failure leaves the store unchanged.
    """
    if mode not in IMPORT_MODES:
        raise InputError(f"import mode must be one of {', '.join(IMPORT_MODES)}, got {mode!r}")
    if not directory.is_dir():
        raise NotFoundError(f"no such directory: {directory}")
    files = sorted(p for p in directory.glob("*.parquet") if not p.is_dir())
    for f in files:  # a FIFO or device named *.parquet is refused, not skipped (or read)
        check_input_file(f, "import")
    if not files:
        raise InputError("no <table>.parquet files to import", file=str(directory))

    store_version = store.schema_version
    older_export = False
    data_files: list[Path] = []
    for f in files:
        if f.stem == MIGRATIONS_TABLE:
            exported = _export_version(store, f)
            if exported > store_version:
                raise InputError(
                    f"the export is from schema version {exported} but the store is at "
                    f"{store_version}; migrate the store (`rcaeval db migrate`) or upgrade "
                    "rcaeval first",
                    file=str(f),
                )
            older_export = exported < store_version
        else:
            data_files.append(f)

    tables = set(store.tables())
    plan: list[tuple[str, Path, list[str]]] = []
    for f in data_files:
        table = f.stem
        if table not in tables:
            raise InputError(f"no table named {table!r} in the store for this file", file=str(f))
        table_cols = [c for c, _ in table_columns(store.con, table)]
        file_cols = _parquet_columns(store, f)
        dupes = sorted({c for c in file_cols if file_cols.count(c) > 1})
        if dupes:
            raise InputError(f"column(s) {', '.join(dupes)} appear more than once",
                             file=str(f), field=dupes[0])
        unknown = [c for c in file_cols if c not in table_cols]
        missing = [c for c in table_cols if c not in file_cols]
        if unknown or (missing and not older_export):
            parts = []
            if unknown:
                parts.append(f"columns not in table {table}: {', '.join(unknown)}")
            if missing and not older_export:
                parts.append(f"missing columns of table {table}: {', '.join(missing)}")
            raise InputError(
                "Parquet columns do not match the table: " + "; ".join(parts), file=str(f)
            )
        for column, allowed in IMPORT_DOMAINS.get(table, {}).items():
            if column in file_cols:
                _check_domain(store, f, column, allowed)
        plan.append((table, f, file_cols))

    counts: dict[str, int] = {}
    current: Path | None = None
    try:
        with store.transaction():
            if mode == "replace":
                for table, f, _ in plan:
                    current = f
                    store.con.execute(read_statement("store/parquet_clear_table.sql",
                                                     table=quote_ident(table)))
            for table, f, cols in plan:
                current = f
                col_list = ", ".join(quote_ident(c) for c in cols)
                store.con.execute(
                    read_statement("store/parquet_import.sql", table=quote_ident(table),
                                   columns=col_list),
                    [str(f)],
                )
                row = store.con.execute(
                    read_statement("store/parquet_row_count.sql"), [str(f)]
                ).fetchone()
                counts[table] = int(row[0]) if row else 0
                require_unique_keys(store.con, [table], file=str(f))
    except InputError as exc:
        raise InputError(f"import failed, the store is unchanged: {exc.message}",
                         file=exc.file, field=exc.field) from exc
    except duckdb.Error as exc:
        raise InputError(
            f"import failed, the store is unchanged: {_brief(exc)}",
            file=str(current) if current else str(directory),
        ) from exc
    return counts
