"""`--db` naming something that is not a DuckDB store: a FIFO, a device, a directory, an
empty file, or an existing JSON/CSV/Parquet file (which DuckDB itself would open as an
in-memory database, so a judge "into" it lost every row with exit 0). Each is exit 3 naming
the file, before anything is read or judged, and never blocks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import rcaeval.store as st
from rcaeval.errors import InputError

REPO = Path(__file__).resolve().parents[2]
THOROUGH = REPO / "data" / "recorded" / "rec-thorough"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=env)


def _refused(r: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert r.returncode == 3, (r.returncode, r.stderr[-1500:])
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, (n, r.stderr[-1500:])


def test_judge_into_an_existing_json_file_is_refused_not_judged_into_memory(tmp_path):
    target = tmp_path / "answers.json"
    target.write_text('{"a": 1}\n')
    r = _cli("judge", str(THOROUGH), "--registry", str(REPO / "data" / "registry"),
             "--db", str(target), "--no-files", cwd=tmp_path)
    _refused(r, "answers.json [--db]", "not a DuckDB store file")
    assert target.read_text() == '{"a": 1}\n'


@pytest.mark.parametrize("command", [["db", "init"], ["db", "info"], ["db", "sql", "SELECT 1"],
                                     ["report", "rec-thorough"], ["explain", "r", "c"]])
def test_store_commands_refuse_a_fifo_a_csv_and_an_empty_file(tmp_path, command):
    fifo = tmp_path / "pipe.duckdb"
    os.mkfifo(fifo)
    _refused(_cli(*command, "--db", str(fifo), cwd=tmp_path), "pipe.duckdb", "is a FIFO")
    duckdb.sql(f"COPY (SELECT 1 AS a) TO '{tmp_path / 'rows.csv'}'")
    _refused(_cli(*command, "--db", str(tmp_path / "rows.csv"), cwd=tmp_path),
             "rows.csv [--db]", "no DuckDB header")
    (tmp_path / "empty.duckdb").touch()
    _refused(_cli(*command, "--db", str(tmp_path / "empty.duckdb"), cwd=tmp_path),
             "empty.duckdb [--db]", "is empty")


def test_connect_refuses_parquet_and_a_directory_but_creates_a_new_file(tmp_path):
    duckdb.sql(f"COPY (SELECT 1 AS a) TO '{tmp_path / 't.parquet'}'")
    with pytest.raises(InputError, match="no DuckDB header"):
        st.connect(tmp_path / "t.parquet")
    with pytest.raises(InputError, match="is a directory"):
        st.connect(tmp_path)
    with st.connect(tmp_path / "new.parquet") as s:  # a new file is a store, whatever its name
        s.sql("INSERT INTO eval_runs (run_id) VALUES ('r1')")
    with st.connect(tmp_path / "new.parquet", read_only=True) as s:
        assert s.sql("SELECT count(*) AS n FROM eval_runs")["n"][0] == 1
