"""Opening a store: path resolution, the UTC session, migration of older stores."""

from __future__ import annotations

from pathlib import Path

import duckdb

from rcaeval._paths import default_db_path
from rcaeval.errors import InputError, NotFoundError
from rcaeval.store._migrations import (
    applied_migrations,
    apply_migration,
    discover_migrations,
    ensure_migrations_table,
    plan_migrations,
)
from rcaeval.store._store import Store

MEMORY = ":memory:"


def resolve_db_path(path: str | Path | None = None) -> Path | None:
    """The store file ``path`` names (``None``: ``$RCAEVAL_DB`` or the default), or ``None``
    for an in-memory store (``":memory:"``)."""
    if path is None:
        return default_db_path().expanduser()
    if str(path) == MEMORY:
        return None
    return Path(path).expanduser()


def open_connection(path: Path | None, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with ``TimeZone`` pinned to UTC."""
    if path is None:
        if read_only:
            raise InputError("an in-memory store cannot be opened read-only", file=MEMORY)
        con = duckdb.connect(MEMORY)
    else:
        if read_only and not path.exists():
            raise NotFoundError(f"no store at {path}; create it with `rcaeval db init`")
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            con = duckdb.connect(str(path), read_only=read_only)
        except duckdb.Error as exc:  # locked by another process, not a DuckDB file, ...
            raise InputError(f"cannot open the store: {exc}", file=str(path)) from exc
    try:
        con.execute("SET TimeZone = 'UTC'")
    except BaseException:
        con.close()
        raise
    return con


def connect(
    path: str | Path | None = None,
    *,
    read_only: bool = False,
    migrate: bool = True,
    migrations_dir: str | Path | None = None,
    allow_checksum_mismatch: bool = False,
) -> Store:
    """Open (creating if needed) the rcaeval store and bring its schema up to date.

    ``path``: a file (parent dirs are created), ``":memory:"``, or ``None`` for
    ``$RCAEVAL_DB`` / ``<data>/rcaeval.duckdb``. Every pending ``NNNN_name.sql`` of
    ``migrations_dir`` (default: the package's ``queries/migrations``) is applied in version
    order, each in its own transaction, unless ``migrate=False``.

    Raises :class:`InputError` when the store was created by a newer rcaeval, when an applied
    migration file was edited (unless ``allow_checksum_mismatch``), or when a read-only open
    finds pending migrations; :class:`NotFoundError` for a read-only open of a missing file.
    """
    db_path = resolve_db_path(path)
    mig_dir = Path(migrations_dir) if migrations_dir is not None else None
    known = discover_migrations(mig_dir)
    con = open_connection(db_path, read_only=read_only)
    label = str(db_path) if db_path is not None else MEMORY
    applied_now = []
    try:
        pending = plan_migrations(
            label, known, applied_migrations(con), allow_checksum_mismatch=allow_checksum_mismatch
        )
        if pending and migrate:
            if read_only:
                names = ", ".join(m.filename for m in pending)
                raise InputError(
                    f"the store needs migrations ({names}) and was opened read-only; open it "
                    "read-write once (`rcaeval db migrate`)",
                    file=label,
                )
            ensure_migrations_table(con)
            for mig in pending:
                apply_migration(con, mig, label)
                applied_now.append(mig)
    except BaseException:
        con.close()
        raise
    return Store(
        con,
        db_path,
        read_only=read_only,
        migrations_dir=mig_dir,
        applied_now=applied_now,
        allow_checksum_mismatch=allow_checksum_mismatch,
    )
