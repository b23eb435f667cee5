"""Forward-only schema migrations: numbered ``NNNN_name.sql`` files applied in order.

Each applied migration is recorded in ``schema_migrations`` with the SHA-256 of its text (line
endings normalised to ``\\n``), so an edited migration is detected instead of silently diverging.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from rcaeval._paths import queries_dir, read_statement
from rcaeval.errors import InputError
from rcaeval.store._tx import transaction

MIGRATIONS_TABLE = "schema_migrations"
_FILE_RE = re.compile(r"^(\d{4})_([a-z0-9][a-z0-9_]*)\.sql$")


@dataclass(frozen=True)
class Migration:
    """One migration file: ``0002_add_x.sql`` has version 2 and name ``add_x``."""

    version: int
    name: str
    path: Path
    checksum: str

    @property
    def filename(self) -> str:
        return self.path.name

    def sql(self) -> str:
        return self.path.read_text(encoding="utf-8")


@dataclass(frozen=True)
class AppliedMigration:
    version: int
    name: str
    checksum: str
    applied_at: datetime


def default_migrations_dir() -> Path:
    """``queries/migrations`` of the checkout (``_queries/migrations`` in a wheel)."""
    return queries_dir() / "migrations"


def checksum_text(text: str) -> str:
    """SHA-256 of a migration's text with CRLF/CR normalised to LF."""
    norm = text.replace("\r\n", "\n").replace("\r", "\n")
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def discover_migrations(directory: str | Path | None = None) -> list[Migration]:
    """The migrations in ``directory`` (default: the package's), ordered by version.

    Every ``*.sql`` file must be named ``NNNN_name.sql`` (four digits, lower-case name) and the
    versions must be unique and >= 1; anything else is an :class:`InputError` naming the file.
    """
    root = Path(directory) if directory is not None else default_migrations_dir()
    if not root.is_dir():
        raise InputError("migrations directory does not exist", file=str(root))
    found: dict[int, Migration] = {}
    for path in sorted(root.glob("*.sql")):
        m = _FILE_RE.match(path.name)
        if m is None:
            raise InputError(
                "migration files must be named NNNN_name.sql (four digits, lower-case name)",
                file=str(path),
            )
        version = int(m.group(1))
        if version < 1:
            raise InputError("migration versions start at 0001", file=str(path))
        if version in found:
            raise InputError(
                f"duplicate migration version {version:04d} (also {found[version].filename})",
                file=str(path),
            )
        found[version] = Migration(
            version=version,
            name=m.group(2),
            path=path,
            checksum=checksum_text(path.read_text(encoding="utf-8")),
        )
    return [found[v] for v in sorted(found)]


def has_migrations_table(con: duckdb.DuckDBPyConnection) -> bool:
    row = con.execute(read_statement("store/migrations_table_exists.sql"),
                      [MIGRATIONS_TABLE]).fetchone()
    return bool(row and row[0])


def applied_migrations_sql() -> str:
    """The query listing the applied migrations, oldest first (queries/store/
    migrations_applied.sql)."""
    return read_statement("store/migrations_applied.sql", table=MIGRATIONS_TABLE)


def applied_migrations(con: duckdb.DuckDBPyConnection) -> list[AppliedMigration]:
    """What ``schema_migrations`` records (empty when the table does not exist yet)."""
    if not has_migrations_table(con):
        return []
    rows = con.execute(applied_migrations_sql()).fetchall()
    return [AppliedMigration(int(v), str(n), str(c), a) for v, n, c, a in rows]


def plan_migrations(
    db_label: str,
    known: list[Migration],
    applied: list[AppliedMigration],
    *,
    allow_checksum_mismatch: bool = False,
) -> list[Migration]:
    """Check a store's migration history against the known files; return the pending ones.

    Raises :class:`InputError` when the store is newer than this package, when an applied
    migration's file is missing or was edited (unless ``allow_checksum_mismatch``), or when a
    not-yet-applied file is numbered below the store's current version (out-of-order).
    """
    by_version = {m.version: m for m in known}
    latest_known = known[-1].version if known else 0
    for a in applied:
        mig = by_version.get(a.version)
        if mig is None:
            if a.version > latest_known:
                raise InputError(
                    f"store was created by a newer rcaeval: it has schema version {a.version} "
                    f"({a.version:04d}_{a.name}) but this rcaeval knows migrations up to "
                    f"{latest_known}; upgrade rcaeval or use another store (--db / RCAEVAL_DB)",
                    file=db_label,
                )
            raise InputError(
                f"store has migration {a.version:04d}_{a.name} applied but no such file exists",
                file=db_label,
            )
        if mig.checksum != a.checksum and not allow_checksum_mismatch:
            raise InputError(
                f"migration {mig.filename} was edited after it was applied to this store "
                f"(checksum {a.checksum[:12]} recorded, {mig.checksum[:12]} on disk); migrations "
                "are forward-only: restore the file and add a new NNNN_*.sql, or rebuild the "
                "store, or pass --allow-checksum-mismatch",
                file=str(mig.path),
            )
    done = {a.version for a in applied}
    current = max(done, default=0)
    pending = [m for m in known if m.version not in done]
    for m in pending:
        if m.version < current:
            raise InputError(
                f"migration {m.filename} is not applied but the store is already at version "
                f"{current}; new migrations must be numbered after the latest one",
                file=str(m.path),
            )
    return pending


def ensure_migrations_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(read_statement("store/migrations_table.sql", table=MIGRATIONS_TABLE))


def apply_migration(con: duckdb.DuckDBPyConnection, mig: Migration, db_label: str) -> None:
    """Run one migration and record it, in a single transaction."""
    text = mig.sql()
    if checksum_text(text) != mig.checksum:
        raise InputError("migration file changed while being applied", file=str(mig.path))
    try:
        with transaction(con):
            con.execute(text)
            con.execute(
                read_statement("store/migrations_record.sql", table=MIGRATIONS_TABLE),
                [mig.version, mig.name, mig.checksum, datetime.now(UTC)],
            )
    except duckdb.Error as exc:
        raise InputError(
            f"migration failed on {db_label} (nothing from it was applied): {exc}",
            file=str(mig.path),
        ) from exc
