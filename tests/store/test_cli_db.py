from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rcaeval.store as st
from rcaeval.cli import main
from rcaeval.errors import ExitCode


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_db_init_is_idempotent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "a" / "s.duckdb"
    code, out, _ = _run(capsys, "db", "init", "--db", str(db))
    assert code == 0 and db.exists()
    assert f"created {db}" in out and "applied 0001_init.sql" in out
    code, out, _ = _run(capsys, "db", "init", "--db", str(db))
    assert code == 0 and f"opened {db}" in out and "applied" not in out


def test_db_flag_falls_back_to_env(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "env.duckdb"
    monkeypatch.setenv("RCAEVAL_DB", str(db))
    assert _run(capsys, "db", "init")[0] == 0
    assert db.exists()


def test_db_info_shows_version_and_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.duckdb"
    with st.connect(db) as s:
        s.sql("INSERT INTO eval_runs (run_id) VALUES ('r1'), ('r2')")
        version = s.schema_version
    code, out, _ = _run(capsys, "db", "info", "--db", str(db))
    assert code == 0
    assert str(db) in out
    assert f"schema version: {version}" in out
    assert "pending:        none" in out
    line = next(ln for ln in out.splitlines() if " eval_runs " in ln)
    assert line.split()[-2] == "2"


def test_db_info_missing_store_is_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "db", "info", "--db", str(tmp_path / "none.duckdb"))
    assert code == ExitCode.NOT_FOUND
    assert "rcaeval db init" in err
    assert not (tmp_path / "none.duckdb").exists()


def test_db_export_import_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, dst, out_dir = tmp_path / "src.duckdb", tmp_path / "dst.duckdb", tmp_path / "exp"
    with st.connect(src) as s:
        s.sql(
            "INSERT INTO raw_metric_point (run_id, case_id, series_idx, labels, ts, value) VALUES "
            "('r', 'c', 0, MAP {'instance': 'tikv-2'}, TIMESTAMPTZ '2026-10-03 16:05:00+02', 1)"
        )
        s.sql("INSERT INTO eval_runs (run_id, status) VALUES ('r', 'completed')")
    code, out, _ = _run(
        capsys, "db", "export", str(out_dir), "--db", str(src), "--tables", "raw_metric_point"
    )
    assert code == 0
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "raw_metric_point.parquet",
        "schema_migrations.parquet",
    ]
    assert "raw_metric_point.parquet  (1 rows)" in out
    assert _run(capsys, "db", "init", "--db", str(dst))[0] == 0
    code, out, _ = _run(capsys, "db", "import", str(out_dir), "--db", str(dst))
    assert code == 0 and "raw_metric_point: 1 rows appended" in out
    # appending again clashes on nothing (no key) but --replace keeps it at one copy
    code, out, _ = _run(capsys, "db", "import", str(out_dir), "--db", str(dst), "--replace")
    assert code == 0 and "raw_metric_point: 1 rows replaced" in out
    with st.connect(src) as a, st.connect(dst) as b:
        assert a.table("raw_metric_point").equals(b.table("raw_metric_point"))
        assert b.runs().height == 0


def test_db_import_bad_file_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "bad"
    d.mkdir()
    (d / "eval_runs.parquet").write_text("nope", encoding="utf-8")
    db = tmp_path / "s.duckdb"
    code, _, err = _run(capsys, "db", "import", str(d), "--db", str(db))
    assert code == ExitCode.INVALID_INPUT
    assert "eval_runs.parquet: not a readable Parquet file" in err.replace("\n", "")


def test_db_sql_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.duckdb"
    with st.connect(db) as s:
        s.sql(
            "INSERT INTO raw_metric_point (run_id, case_id, series_idx, labels, ts) VALUES "
            "('r', 'c', 0, MAP {'k': 'v'}, TIMESTAMPTZ '2026-10-03 16:05:00+02')"
        )
    q = "SELECT run_id, labels, ts FROM raw_metric_point"
    code, out, _ = _run(capsys, "db", "sql", q, "--db", str(db))
    assert code == 0 and "run_id" in out and "2026-10-03 14:05:00" in out
    code, out, _ = _run(capsys, "db", "sql", q, "--db", str(db), "--format", "csv")
    assert code == 0
    assert out.splitlines() == [
        "run_id,labels,ts",
        'r,"{""k"": ""v""}",2026-10-03T14:05:00.000000+0000',
    ]
    code, out, _ = _run(capsys, "db", "sql", q, "--db", str(db), "-f", "json")
    assert code == 0
    assert json.loads(out) == {
        "run_id": "r",
        "labels": {"k": "v"},
        "ts": "2026-10-03T14:05:00+00:00",
    }


def test_db_sql_is_read_only_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.duckdb"
    st.connect(db).close()
    ins = "INSERT INTO eval_runs (run_id) VALUES ('x')"
    code, _, err = _run(capsys, "db", "sql", ins, "--db", str(db))
    assert code == ExitCode.INVALID_INPUT and "read-only" in err.lower()
    assert _run(capsys, "db", "sql", ins, "--db", str(db), "--write")[0] == 0
    code, out, _ = _run(capsys, "db", "sql", "SELECT run_id FROM eval_runs", "--db", str(db))
    assert "x" in out
    code, _, err = _run(capsys, "db", "sql", "SELEKT 1", "--db", str(db))
    assert code == ExitCode.INVALID_INPUT and "syntax error" in err.lower()


def test_db_sql_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.duckdb"
    st.connect(db).close()
    q = "SELECT range AS n FROM range(50)"
    code, out, _ = _run(capsys, "db", "sql", q, "--db", str(db), "--limit", "5")
    assert code == 0 and "(50 rows, 45 not shown; use --limit 0)" in out


def test_db_migrate_reports_up_to_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.duckdb"
    code, out, _ = _run(capsys, "db", "migrate", "--db", str(db))
    assert code == 0 and "applied 0001_init.sql" in out
    code, out, _ = _run(capsys, "db", "migrate", "--db", str(db))
    assert code == 0 and "is up to date" in out


def test_db_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "db", "--help")
    assert code == 0
    for cmd in ("init", "info", "migrate", "export", "import", "sql"):
        assert cmd in out


@pytest.mark.slow
def test_db_commands_through_the_installed_script(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "rcaeval"
    if not exe.exists():
        exe = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "rcaeval"
    assert exe.exists(), exe
    env = {**os.environ, "RCAEVAL_DB": str(tmp_path / "env.duckdb")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(exe), "db", *args], capture_output=True, text=True, env=env, timeout=120
        )

    r = run("init")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "env.duckdb").exists()
    r = run(
        "sql",
        "--write",
        "INSERT INTO eval_judgment (run_id, case_id, verdict) VALUES ('r', 'c', 'pass')",
    )
    assert r.returncode == 0, r.stderr
    r = run("info")
    assert r.returncode == 0 and "eval_judgment" in r.stdout
    r = run("export", str(tmp_path / "exp"))
    assert r.returncode == 0, r.stderr
    other = tmp_path / "other.duckdb"
    r = run("import", str(tmp_path / "exp"), "--db", str(other))
    assert r.returncode == 0, r.stderr
    assert "eval_judgment: 1 rows appended" in r.stdout
    r = run("import", str(tmp_path / "exp"), "--db", str(other))
    assert r.returncode == ExitCode.INVALID_INPUT
    assert "store is unchanged" in r.stderr
    with st.connect(other, read_only=True) as s:
        assert (
            s.judgments().rows()
            == st.connect(tmp_path / "env.duckdb", read_only=True).judgments().rows()
        )
