"""Shared builders for the judge tests: an in-memory store from every migration, a
judge spec in the documented judge.yaml shape, and the raw rows of a healthy run that tests
then break one piece at a time."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from rcaeval._paths import queries_dir
from rcaeval.judge import CaseRules, register_cases, run_judge_sql

RUN = "run-1"
CASE = "tikv-panic-restart-001"

CASE_DOC: dict[str, Any] = {
    "case_id": CASE,
    "case_type": "known",
    "environment": {"cluster_id": "prod-tidb-017"},
    "time_window": {
        "start": "2026-10-03T14:00:00Z",
        "end": "2026-10-03T15:00:00Z",
        "tolerance_s": 600,
    },
}

_RAW_SPEC: dict[str, Any] = {
    "case_id": CASE,
    "ground_truth": {"root_cause": {"family": "storage_node_panic",
                                    "summary": "TiKV store panicked and crash-looped."}},
    "detectors": {
        "asserts_storage_panic": {
            "description": "A TiKV/storage node panic is the root cause.",
            "any": [r"tikv\S*\s+(?:node\s+|store\s+)?(?:panic|crash)", "storage node panic"],
            "scope": "root_cause",
        },
        "blames_network": {
            "description": "Network partition named as the root cause.",
            "any": [r"network\s+partition"],
            "scope": "root_cause",
        },
        "mentions_restart": {
            "description": "Mentions the restarts.",
            "any": [r"restart"],
            "scope": "anywhere",
            "negation": False,
        },
    },
    "judge": {
        "critical_evidence": {"checks": [
            {"id": "panic_in_logs", "all_of": [
                {"method": "keyword_any", "source": "logs", "keywords": ["panic"]}]},
            {"id": "termination_reason_panic", "all_of": [
                {"method": "json_text_contains_any", "file": "component_health.json",
                 "path": "$.components[*].last_termination_reason", "needles": ["panic"]}]},
            {"id": "restart_metric", "weight": 2, "all_of": [
                {"method": "numeric_series_any_gt", "series": "tikv_restart_total",
                 "labels": {"instance": "tikv-2"}, "threshold": 0}]},
        ]},
        "diagnosis": {
            "hard_checks": [
                {"id": "names_storage_panic", "all_of": [{"detector": "asserts_storage_panic"}]},
                {"id": "no_network_blame",
                 "all_of": [{"detector": "blames_network", "expect": False}]},
            ],
            "supporting_checks": [
                {"id": "explains_restarts", "all_of": [{"detector": "mentions_restart"}]},
            ],
        },
    },
}


def judge_spec(mutate: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The sample judge spec with registry defaults applied, as a plain dict (what
    ``JudgeSpec.model_dump(mode="json")`` of a merged case gives)."""
    from rcaeval.registry import JudgeSpec, apply_defaults

    raw = copy.deepcopy(_RAW_SPEC)
    if mutate:
        mutate(raw)
    return apply_defaults(JudgeSpec.model_validate(raw)).model_dump(mode="json")


def make_db() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")
    for path in sorted((queries_dir() / "migrations").glob("*.sql")):
        con.execute(path.read_text(encoding="utf-8"))
    return con


@pytest.fixture
def db() -> duckdb.DuckDBPyConnection:
    con = make_db()
    yield con
    con.close()


OUTPUT_GOOD = [
    # (section_idx, section, kind, sentence_idx, line_no, text)
    (0, "", "other", 0, 1, "Alert: p99 latency spiked on prod-tidb-017."),
    (1, "Root cause", "root_cause", 0, 3,
     "TiKV store 5 on tikv-2 hit a panic on a corrupted raft log entry and crash-looped."),
    (1, "Root cause", "root_cause", 1, 4,
     "The root cause is a tikv-2 panic; it restarted 4 times."),
    (2, "Ruled out", "alternatives", 0, 6, "Network partition: no packet loss observed."),
]


def healthy_rows(run_id: str = RUN, case_id: str = CASE) -> dict[str, list[dict[str, Any]]]:
    """Raw rows of a run that passes every bucket of the sample spec."""
    k = {"run_id": run_id, "case_id": case_id}
    rep = "evidences/workspace_evidence_report.json"
    files = ["manifest.json", rep, "evidences/metrics.json", "evidences/queries.json",
             "evidences/logs.json", "evidences/events.json", "evidences/component_health.json",
             "evidences/evidence_summary_for_agent.txt", ".opencode/telemetry.log",
             "analysis_patch.json", "output.txt", "logs/tikv-2.log"]

    def js(file: str, path: str, type_: str, text: Any = None, num: float | None = None,
           length: int | None = None) -> dict[str, Any]:
        return {**k, "file": file, "path": path, "type": type_, "value_text": text,
                "value_num": num, "length": length}

    tele = ["architecture_context.loaded", "guardrails.loaded", "diagnosis_run.initialized",
            "evidence_collection.started", "evidence_collection.completed", "summary.read",
            "log_query.completed", "final_answer.emitted"]
    return {
        "raw_bundle": [{**k, "case_dir": f"/audits/{run_id}/{case_id}", "bundle_dir": ".",
                        "status": "resolved", "reason": "one bundle at the case dir",
                        "workspace_id": "ws-1", "manifest_status": "completed"}],
        "raw_file": [{**k, "file": f, "kind": None, "size": 10, "sha256": None,
                      "status": "ok", "detail": None} for f in files],
        "raw_json": [
            js("manifest.json", "$", "object", length=5),
            js("manifest.json", "$.cluster_id", "string", "prod-tidb-017"),
            js("manifest.json", "$.time_window.start", "string", "2026-10-03T14:00:00Z"),
            js("manifest.json", "$.time_window.end", "string", "2026-10-03T15:00:00Z"),
            js(rep, "$", "object", length=3),
            js(rep, "$.metadata.cluster_id", "string", "prod-tidb-017"),
            js(rep, "$.metadata.time_window.start", "string", "2026-10-03T14:05:00Z"),
            js(rep, "$.metadata.time_window.end", "string", "2026-10-03T14:55:00Z"),
            js(rep, "$.channels.events.attempted", "boolean", "true"),
            js("evidences/component_health.json", "$.components", "array", length=1),
            js("evidences/component_health.json", "$.components[0].name", "string", "tikv"),
            js("evidences/component_health.json", "$.components[0].last_termination_reason",
               "string", "panic: corrupted raft log entry"),
            js("evidences/metrics.json", "$.series[0].id", "string", "M-restart"),
            js("analysis_patch.json", "$", "object", length=1),
            js("analysis_patch.json", "$.items", "array", length=1),
        ],
        "raw_log_line": [
            {**k, "file": "evidences/logs.json", "line_no": 1, "entry_id": "L-1", "ts": None,
             "level": "FATAL", "component": "tikv", "instance": "tikv-2",
             "text": "[panic] corrupted raft log entry at index 4411"},
            {**k, "file": "logs/tikv-2.log", "line_no": 7, "entry_id": None, "ts": None,
             "level": "INFO", "component": "tikv", "instance": None,
             "text": "2026-10-03T14:06:00Z INFO [tikv] store 5 starting"},
        ],
        "raw_telemetry": [
            {**k, "line_no": i + 1, "ts": None, "event": e, "tool": None, "status": "ok",
             "detail": None, "text": f'{{"event": "{e}"}}'} for i, e in enumerate(tele)
        ],
        "raw_metric_point": [
            {**k, "series_idx": 0, "series_id": "M-restart", "name": "tikv_restart_total",
             "labels": [("instance", "tikv-2")], "ts": None, "value": v} for v in (0.0, 1.0)
        ],
        "raw_query": [{**k, "idx": 0, "query_id": "Q-1", "digest": "d", "kind": "slow_query",
                       "sql_text": "SELECT 1", "instance": "tidb-0", "exec_count": 1,
                       "avg_latency_ms": 1.0, "note": None}],
        "raw_event": [{**k, "idx": 0, "source": "events.json", "event_id": "EV-1", "ts": None,
                       "type": "Warning", "object": "pod/tikv-2", "reason": "BackOff",
                       "message": "Back-off restarting failed container"}],
        "raw_patch_item": [{**k, "idx": 0, "item_id": "A1", "role": "key",
                            "claim": "tikv-2 panicked", "shape_ok": True, "problem": None}],
        "raw_patch_ref": [
            {**k, "item_idx": 0, "ref_idx": 0, "ref_type": "log", "ref_id": "L-1"},
            {**k, "item_idx": 0, "ref_idx": 1, "ref_type": "metric", "ref_id": "M-restart"},
            {**k, "item_idx": 0, "ref_idx": 2, "ref_type": "query", "ref_id": "Q-1"},
            {**k, "item_idx": 0, "ref_idx": 3, "ref_type": "event", "ref_id": "EV-1"},
        ],
        "raw_output_sentence": [
            {**k, "section_idx": s, "section": name, "section_kind": kind, "sentence_idx": i,
             "line_no": line, "text": text}
            for s, name, kind, i, line, text in OUTPUT_GOOD
        ],
    }


def insert_rows(con: duckdb.DuckDBPyConnection, rows: dict[str, list[dict[str, Any]]]) -> None:
    for table, items in rows.items():
        if not items:
            continue
        cols = [c[0] for c in con.execute(f"DESCRIBE {table}").fetchall()]
        types = {c[0]: c[1] for c in con.execute(f"DESCRIBE {table}").fetchall()}
        data = {c: [r.get(c) for r in items] for c in cols}
        arrays = {}
        for c in cols:
            t = types[c]
            if t.startswith("MAP"):
                arrays[c] = pa.array(data[c], pa.map_(pa.string(), pa.string()))
            elif t == "TIMESTAMP WITH TIME ZONE":
                arrays[c] = pa.array(data[c], pa.timestamp("us", tz="UTC"))
            else:
                arrays[c] = pa.array(data[c])
        tbl = pa.table({c: arrays[c] for c in cols if not all(v is None for v in data[c])})
        con.register("__t", tbl)
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM __t")
        con.unregister("__t")


def setup_case(con: duckdb.DuckDBPyConnection, rows: dict[str, list[dict[str, Any]]],
               spec: dict[str, Any] | None = None, *, case_doc: dict[str, Any] | None = None,
               runs: list[str] | None = None, profile: str | None = None) -> None:
    spec = spec if spec is not None else judge_spec()
    runs = runs or sorted({r["run_id"] for r in rows.get("raw_bundle", [])}) or [RUN]
    register_cases(con, [(r, CASE) for r in runs],
                   {CASE: CaseRules(CASE, case_doc or CASE_DOC, spec)},
                   scoring_profile=profile)
    insert_rows(con, rows)


def judge_rows(con: duckdb.DuckDBPyConnection, rows: dict[str, list[dict[str, Any]]],
               spec: dict[str, Any] | None = None, **kw: Any):
    setup_case(con, rows, spec, **kw)
    return run_judge_sql(con)


def fact(frames, name: str, run_id: str = RUN) -> dict[str, Any]:
    rows = frames.facts.filter((frames.facts["fact"] == name)
                               & (frames.facts["run_id"] == run_id)).to_dicts()
    assert len(rows) == 1, f"fact {name}: {rows}"
    return rows[0]


def bucket(frames, name: str, run_id: str = RUN) -> dict[str, Any]:
    rows = frames.buckets.filter((frames.buckets["bucket"] == name)
                                 & (frames.buckets["run_id"] == run_id)).to_dicts()
    assert len(rows) == 1, f"bucket {name}: {rows}"
    return rows[0]


def check(frames, bucket_name: str, check_id: str, run_id: str = RUN) -> dict[str, Any]:
    c = frames.checks
    rows = c.filter((c["bucket"] == bucket_name) & (c["check_id"] == check_id)
                    & (c["run_id"] == run_id)).to_dicts()
    assert len(rows) == 1, f"check {bucket_name}.{check_id}: {rows}"
    return rows[0]


def verdict(frames, run_id: str = RUN) -> dict[str, Any]:
    rows = frames.judgments.filter(frames.judgments["run_id"] == run_id).to_dicts()
    assert len(rows) == 1
    return rows[0]
