"""Helpers for the end-to-end tests: copy recorded runs, run the real CLI, read the store."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

REPO = Path(__file__).resolve().parents[2]
RECORDED = REPO / "data" / "recorded"
REGISTRY = REPO / "data" / "registry"
HAVE_SAMPLE = (RECORDED / "rec-thorough").is_dir() and (REGISTRY / "cases").is_dir()

CLI_TIMEOUT_S = 180
VALIDATE_MEMORY_CAP = 4 << 30
"""Address-space cap for ``rcaeval validate``: a YAML blow-up (10**9 nodes once expanded) fails
fast instead of eating the machine. 4 GiB, not less: validate loads DuckDB (its RE2 checks
detector patterns), whose thread arenas reserve address space that a 1 GiB cap sometimes
refused under load. Not usable for ``judge``: DuckDB reserves far more address space there."""


def rcaeval_cmd() -> list[str]:
    """The installed console script next to the running interpreter (the real CLI)."""
    script = Path(sys.executable).with_name("rcaeval")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "rcaeval"]


@dataclass(frozen=True)
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_cli(*args: str | os.PathLike[str], timeout: float = CLI_TIMEOUT_S,
            memory_cap: int | None = None) -> CliResult:
    """Run ``rcaeval ARGS`` as a subprocess (no terminal: no progress bar, wide output);
    ``memory_cap`` limits its address space (RLIMIT_AS, bytes)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RCAEVAL_DB", "RCAEVAL_REGISTRY", "RCAEVAL_DATA")}
    env["COLUMNS"] = "250"
    proc = subprocess.run(
        [*rcaeval_cmd(), *map(str, args)], capture_output=True, text=True, timeout=timeout,
        env=env, stdin=subprocess.DEVNULL,
        preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_AS, (memory_cap, memory_cap)))
        if memory_cap is not None else None,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def copy_case(src_run: str, case_id: str, dest: Path, *, run_id: str | None = None) -> Path:
    """Copy ``data/recorded/<src_run>/<case_id>`` to ``dest``; ``run_id`` rewrites the
    manifest's run id (discovery takes ids from the manifest)."""
    shutil.copytree(RECORDED / src_run / case_id, dest, symlinks=True)
    if run_id is not None:
        manifest = dest / "manifest.json"
        doc = json.loads(manifest.read_text(encoding="utf-8"))
        doc["run_id"] = run_id
        manifest.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return dest


def expected_verdicts() -> dict[tuple[str, str], str]:
    """``(run_id, case_id) -> expected verdict`` from data/recorded/EXPECTED.csv."""
    out: dict[tuple[str, str], str] = {}
    lines = (RECORDED / "EXPECTED.csv").read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        run_id, case_id, _, verdict, *_ = line.split(",")
        out[(run_id, case_id)] = verdict
    return out


def query(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def judgments(db: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = query(db, "SELECT run_id, case_id, verdict, subtype, score, raw_score, reason "
                     "FROM eval_judgment")
    return {(r[0], r[1]): {"verdict": r[2], "subtype": r[3], "score": r[4], "raw_score": r[5],
                           "reason": r[6]} for r in rows}


def tables_containing(db: Path, needle: str) -> list[str]:
    """``table.column`` of every column (cast to text) of every table holding ``needle``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        cols = con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() "
            "WHERE NOT internal AND schema_name = 'main' ORDER BY ALL").fetchall()
        hits = []
        for table, column in cols:
            n = con.execute(f'SELECT count(*) FROM "{table}" '
                            f'WHERE contains(CAST("{column}" AS VARCHAR), ?)', [needle]
                            ).fetchone()
            if n and n[0]:
                hits.append(f"{table}.{column}")
        return hits
    finally:
        con.close()
