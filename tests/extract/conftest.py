from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from rcaeval._paths import read_query

Files = dict[str, Any]


def write_files(base: Path, files: Files) -> Path:
    """Write ``{relative path: content}``; bytes/str verbatim, anything else as JSON."""
    base.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(orjson.dumps(content))
    return base


def bundle_files(run_id: str = "run-1", case_id: str = "case-1", **extra: Any) -> Files:
    """A small but complete bundle; ``extra`` adds or overrides files (None removes one)."""
    files: Files = {
        "manifest.json": {"run_id": run_id, "case_id": case_id, "workspace_id": "ws-1",
                          "status": "completed"},
        "evidences/workspace_evidence_report.json": {
            "metadata": {"cluster_id": "prod-tidb-017",
                         "time_window": {"start": "2026-10-03T14:00:00Z",
                                         "end": "2026-10-03T15:00:00Z"}},
            "channels": {"logs": {"attempted": True, "status": "ok", "count": 1}},
            "evidence": {"events": [{"id": "EV-R1", "ts": "2026-10-03T14:06:00Z",
                                     "type": "Warning", "reason": "Killing"}]},
        },
        "evidences/metrics.json": {"series": [
            {"id": "M-1", "name": "tikv_restart_total", "labels": {"instance": "tikv-2"},
             "points": [["2026-10-03T14:05:00Z", 0.0], ["2026-10-03T14:06:00Z", 1]]}]},
        "evidences/queries.json": {"queries": [
            {"id": "Q-1", "digest": "9c1e", "kind": "slow_query", "sql_text": "SELECT 1",
             "instance": "tidb-0", "exec_count": 1200, "avg_latency_ms": 3400.5}]},
        "evidences/logs.json": {"entries": [
            {"id": "L-1", "ts": "2026-10-03T14:05:30Z", "component": "tikv",
             "instance": "tikv-2", "level": "fatal", "message": "[panic] raft entry corrupted"}]},
        "evidences/events.json": {"events": [
            {"id": "EV-1", "ts": "2026-10-03T14:06:10Z", "type": "Warning",
             "object": "pod/tikv-2", "reason": "BackOff", "message": "Back-off restarting"}]},
        "evidences/evidence_summary_for_agent.txt": "summary text\n",
        "analysis_patch.json": {"items": [
            {"id": "A1", "claim": "tikv-2 panicked", "role": "key",
             "refs": [{"type": "log", "id": "L-1"}, {"type": "metric", "id": "M-1"}]}]},
        ".opencode/telemetry.log": (
            '{"ts": "2026-10-03T14:10:00Z", "event": "diagnosis_run.initialized",'
            ' "status": "ok"}\n'
            '{"ts": "2026-10-03T14:11:00Z", "event": "tool.call", "tool": "query_logs"}\n'
        ),
        "logs/tikv-2.log": "2026-10-03T14:05:30Z FATAL [tikv] panic: raft entry corrupted\n",
        "output.txt": "## Root cause\nTiKV tikv-2 panicked.\n\n## Ruled out\n- Network.\n",
        "transcript.json": [
            {"turn": 1, "role": "user", "text": "find it"},
            {"turn": 1, "role": "assistant", "text": "## Root cause\nTiKV tikv-2 panicked."},
            {"turn": 2, "role": "user", "text": "which version fixes it?"},
            {"turn": 2, "role": "assistant", "text": "Upgrade to v8.5.2. It fixes the bug."},
        ],
    }
    for rel, content in extra.items():
        if content is None:
            files.pop(rel, None)
        else:
            files[rel] = content
    return files


@pytest.fixture
def make_case(tmp_path: Path) -> Callable[..., Path]:
    """``make_case(name, files)`` → a case dir under tmp_path holding ``files``."""

    def _make(name: str = "case-1", files: Files | None = None) -> Path:
        return write_files(tmp_path / "audits" / "run-1" / name,
                           bundle_files(case_id=name) if files is None else files)

    return _make


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute("SET TimeZone='UTC'")
    c.execute(read_query("migrations/0001_init.sql"))
    c.execute(read_query("migrations/0009_raw_bundle_seq.sql"))
    c.execute(read_query("migrations/0014_raw_json_elided.sql"))
    c.execute(read_query("migrations/0017_output_item.sql"))
    c.execute(read_query("migrations/0019_raw_evidence_check.sql"))
    yield c
    c.close()


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[Any, ...]]:
    return con.execute(sql).fetchall()


@pytest.fixture
def q(con: duckdb.DuckDBPyConnection) -> Callable[[str], list[tuple[Any, ...]]]:
    return lambda sql: rows(con, sql)


@pytest.fixture
def bundle() -> Callable[..., Files]:
    """``bundle(**extra)`` → the standard bundle's files (see :func:`bundle_files`)."""
    return bundle_files


@pytest.fixture
def write() -> Callable[[Path, Files], Path]:
    """``write(dir, files)`` → writes the files, returns the dir."""
    return write_files
