"""`rcaeval db sql` without --write reads the store and nothing else: a query cannot write a
file (COPY ... TO, EXPORT DATABASE), read another one (read_csv), ATTACH a database or install
an extension (docs/store.md, "CLI"). Each is exit 3 and leaves no file behind; --write lifts it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import rcaeval.store as st
from rcaeval.errors import ExitCode


def _db_sql(db: Path, query: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", "db", "sql", query, "--db", str(db),
                           *flags], capture_output=True, text=True, timeout=120)


def test_read_only_db_sql_touches_no_file_but_the_store(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with st.connect(db) as s:
        s.sql("INSERT INTO eval_runs (run_id) VALUES ('r1')")
    secret = tmp_path / "secret.csv"
    secret.write_text("k,v\npassword,hunter2\n", encoding="utf-8")
    out = tmp_path / "out"
    hostile = {
        "copy": f"COPY eval_runs TO '{out / 'copy.csv'}'",
        "export": f"EXPORT DATABASE '{out / 'export'}'",
        "read": f"SELECT * FROM read_csv('{secret}')",
        "attach": f"ATTACH '{out / 'other.duckdb'}' AS o",
    }
    out.mkdir()
    for name, query in hostile.items():
        got = _db_sql(db, query)
        assert got.returncode == ExitCode.INVALID_INPUT, (name, got.returncode, got.stderr)
        assert "hunter2" not in got.stdout + got.stderr, name
    assert list(out.iterdir()) == []
    # the store itself is still read, and --write is the switch that lifts the seal
    got = _db_sql(db, "SELECT run_id FROM eval_runs", "--format", "csv")
    assert got.returncode == 0 and "r1" in got.stdout, got.stderr
    got = _db_sql(db, hostile["copy"], "--write")
    assert got.returncode == 0, got.stderr
    assert (out / "copy.csv").read_text(encoding="utf-8").splitlines()[1].startswith("r1")
