"""`rcaeval db ...`: create, inspect, migrate, export/import and query the DuckDB store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer
from rich.console import Console
from rich.table import Table

from rcaeval.cli._opts import DbOpt

ChecksumOpt = Annotated[
    bool,
    typer.Option(
        "--allow-checksum-mismatch",
        help="Open even if an applied migration file was edited since (development only).",
    ),
]

_out = Console()


def _render_value(value: Any) -> str:
    if value is None:
        return "NULL"
    return str(value)


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with nested columns (MAP, STRUCT, LIST) rendered as JSON text, for CSV."""
    nested = [n for n, t in frame.schema.items() if t.is_nested()]
    if not nested:
        return frame
    return frame.with_columns(
        pl.Series(n, [None if v is None else json.dumps(v, default=str) for v in frame[n]])
        for n in nested
    )


def frame_table(
    frame: pl.DataFrame, *, title: str | None = None, limit: int | None = None
) -> Table:
    """A rich table of ``frame`` (first ``limit`` rows)."""
    table = Table(title=title, show_lines=False, title_justify="left")
    for name, dtype in frame.schema.items():
        numeric = dtype.is_numeric()
        table.add_column(name, justify="right" if numeric else "left", overflow="fold")
    shown = frame if limit is None else frame.head(limit)
    for row in shown.iter_rows():
        table.add_row(*(_render_value(v) for v in row))
    return table


def register(app: typer.Typer) -> None:
    db = typer.Typer(
        name="db",
        help="Create, inspect, migrate, export/import and query the DuckDB store.",
        no_args_is_help=True,
    )

    @db.command("init")
    def init(db_path: DbOpt = None, allow_checksum_mismatch: ChecksumOpt = False) -> None:
        """Create the store (if missing) and apply every migration."""
        from rcaeval.store import connect, resolve_db_path

        target = resolve_db_path(db_path)
        existed = target is not None and target.exists()
        with connect(db_path, allow_checksum_mismatch=allow_checksum_mismatch) as s:
            verb = "opened" if existed else "created"
            typer.echo(f"{verb} {s.label} at schema version {s.schema_version}")
            for m in s.applied_now:
                typer.echo(f"  applied {m.filename}")

    @db.command("migrate")
    def migrate(db_path: DbOpt = None, allow_checksum_mismatch: ChecksumOpt = False) -> None:
        """Apply pending migrations (forward-only, numbered queries/migrations/NNNN_*.sql)."""
        from rcaeval.store import connect

        with connect(db_path, allow_checksum_mismatch=allow_checksum_mismatch) as s:
            if not s.applied_now:
                typer.echo(f"{s.label} is up to date at schema version {s.schema_version}")
                return
            for m in s.applied_now:
                typer.echo(f"applied {m.filename}")
            typer.echo(f"{s.label} is now at schema version {s.schema_version}")

    @db.command("info")
    def info(db_path: DbOpt = None, allow_checksum_mismatch: ChecksumOpt = False) -> None:
        """Show the store's path, schema version, pending migrations and row counts.

        A store file is opened read-only and never migrated.
        """
        from rcaeval.store import connect, resolve_db_path

        on_disk = resolve_db_path(db_path) is not None
        with connect(
            db_path,
            read_only=on_disk,  # ':memory:' cannot be read-only; it is created migrated
            migrate=not on_disk,
            allow_checksum_mismatch=allow_checksum_mismatch,
        ) as s:
            pending = s.pending_migrations()
            size = s.path.stat().st_size if s.path is not None and s.path.exists() else None
            _out.print(f"store:          {s.label}", highlight=False, soft_wrap=True)
            if size is not None:
                _out.print(f"size:           {size:,} bytes", highlight=False)
            _out.print(f"schema version: {s.schema_version}", highlight=False)
            _out.print(
                "pending:        "
                + (", ".join(m.filename for m in pending) if pending else "none"),
                highlight=False,
            )
            counts = s.row_counts()
            table = Table(title="tables", title_justify="left")
            table.add_column("table")
            table.add_column("rows", justify="right")
            for name, n in counts.items():
                table.add_row(name, f"{n:,}")
            _out.print(table)

    @db.command("export")
    def export(
        directory: Annotated[Path, typer.Argument(help="Directory to write <table>.parquet into.")],
        tables: Annotated[
            list[str] | None,
            typer.Option(
                "--tables",
                "-t",
                help="Tables to export (repeat or comma-separate; default: all). "
                "schema_migrations is always included.",
            ),
        ] = None,
        db_path: DbOpt = None,
    ) -> None:
        """Export tables to Parquet, one <table>.parquet per table."""
        from rcaeval.store import connect, resolve_db_path

        chosen = [t.strip() for item in tables or [] for t in item.split(",") if t.strip()]
        read_only = resolve_db_path(db_path) is not None  # export never writes to the store
        with connect(db_path, read_only=read_only) as s:
            paths = s.export_parquet(directory, chosen or None)
            counts = s.row_counts()
        for p in paths:
            typer.echo(f"{p}  ({counts.get(p.stem, 0)} rows)")

    @db.command("import")
    def import_(
        directory: Annotated[Path, typer.Argument(help="Directory holding <table>.parquet files.")],
        replace: Annotated[
            bool,
            typer.Option("--replace", help="Empty each imported table first (default: append)."),
        ] = False,
        db_path: DbOpt = None,
    ) -> None:
        """Import <table>.parquet files (e.g. from `rcaeval db export`) into the store.

        Columns must match the table (older exports may lack later-added columns). The
        import is one transaction: on any error the store is unchanged.
        """
        from rcaeval.store import connect

        with connect(db_path) as s:
            counts = s.import_parquet(directory, mode="replace" if replace else "append")
        for table, n in counts.items():
            typer.echo(f"{table}: {n} rows {'replaced' if replace else 'appended'}")

    @db.command("sql")
    def sql(
        query: Annotated[str, typer.Argument(help='SQL to run, e.g. "SELECT * FROM eval_runs".')],
        db_path: DbOpt = None,
        write: Annotated[
            bool,
            typer.Option("--write", help="Open read-write (default: read-only)."),
        ] = False,
        fmt: Annotated[
            str,
            typer.Option("--format", "-f", help="Output: table, csv or json (one object a line)."),
        ] = "table",
        limit: Annotated[
            int,
            typer.Option("--limit", help="At most this many rows in table output (0: all)."),
        ] = 200,
    ) -> None:
        """Run one SQL statement against the store and print the result."""
        import duckdb

        from rcaeval._paths import read_statement
        from rcaeval.errors import InputError
        from rcaeval.store import connect, resolve_db_path

        if fmt not in ("table", "csv", "json"):
            raise InputError(f"--format must be table, csv or json, not {fmt!r}")
        read_only = not write and resolve_db_path(db_path) is not None
        with connect(db_path, read_only=read_only) as s:
            if read_only:  # nothing but the store: no file written or read, no ATTACH
                s.con.execute(read_statement("store/no_file_access.sql"))
            try:
                frame = s.sql(query)
            except duckdb.Error as exc:
                raise InputError(str(exc), file="<sql>") from exc
        if fmt == "csv":
            typer.echo(_flat(frame).write_csv(), nl=False)
        elif fmt == "json":
            if frame.height:
                typer.echo(frame.write_ndjson(), nl=False)
        else:
            shown = limit if limit > 0 else None
            _out.print(frame_table(frame, limit=shown))
            more = frame.height - (shown if shown is not None else frame.height)
            if more > 0:
                _out.print(f"({frame.height} rows, {more} not shown; use --limit 0)")

    app.add_typer(db, name="db")
