"""The live tools' readers of the lab's own files: the PostgreSQL log and the service's JSON
log become log lines with stable ids; the injector's log becomes change events that never
name the scenario or its script."""

from __future__ import annotations

import json

from rcaeval.lab._live import _postgres_logs, _service_logs, change_events, live_metrics

PG = "\n".join([
    "2026-12-02 02:25:16.517 UTC [3171] app@lab LOG:  process 3171 still waiting for "
    "RowExclusiveLock on relation 16391 of database 16384 after 1000.073 ms at character 8",
    "2026-12-02 02:25:16.518 UTC [3171] app@lab DETAIL:  Process holding the lock: 3160. "
    "Wait queue: 3171.",
    "not a log line",
    "2026-12-02 02:23:35.251 UTC [3315] app@lab FATAL:  remaining connection slots are "
    "reserved for non-replication superuser connections",
]) + "\n"


def test_postgres_log_lines(tmp_path):
    path = tmp_path / "postgres.log"
    path.write_text(PG)
    got = _postgres_logs(path)
    assert [ln.id for ln in got] == ["L-postgres-00001", "L-postgres-00002", "L-postgres-00004"]
    assert got[0].ts == "2026-12-02T02:25:16.517Z" and got[0].at is not None
    assert got[0].level == "INFO" and "still waiting for RowExclusiveLock" in got[0].message
    assert got[2].level == "ERROR" and got[2].component == "postgresql"


def test_service_log_lines(tmp_path):
    path = tmp_path / "service.jsonl"
    path.write_text(json.dumps({"ts": "2026-12-02T02:30:35.951Z", "level": "error",
                                "msg": "database error: canceling statement due to statement "
                                       "timeout", "route": "deposit", "status": 503}) + "\n")
    (line,) = _service_logs(path)
    assert line.id == "L-service-00001" and line.level == "ERROR"
    assert "statement timeout" in line.message and '"status": 503' in line.message


def test_change_events_never_name_the_scenario(tmp_path):
    path = tmp_path / "injector.jsonl"
    recs = [
        {"ts": "2026-12-02T02:30:33.558Z", "action": "inject", "kind": "session",
         "scenario": "lab-lock-contention", "script": "long_transaction.sql", "clients": 1,
         "role": "lab"},
        {"ts": "2026-12-02T02:31:00.000Z", "action": "revert", "kind": "session",
         "scenario": "lab-lock-contention"},
        {"ts": "2026-12-02T02:32:00.000Z", "action": "inject", "kind": "sql",
         "scenario": "lab-dropped-index", "sql": "-- Scenario lab-dropped-index: ...\n"
         "ALTER TABLE pgbench_accounts DROP CONSTRAINT pgbench_accounts_pkey;\n"},
        {"ts": "2026-12-02T02:33:00.000Z", "action": "inject", "kind": "stop_component",
         "scenario": "lab-false-alarm-exporter-stopped", "component": "node_exporter"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    got = change_events(path)
    assert [e["reason"] for e in got] == ["JobStarted", "JobStopped", "StatementExecuted",
                                          "Stopped"]
    text = json.dumps(got)
    assert "scenario" not in text and "long_transaction" not in text and "lab-" not in text
    assert got[2]["message"] == ("role lab ran: ALTER TABLE pgbench_accounts DROP CONSTRAINT "
                                 "pgbench_accounts_pkey;")
    assert got[3]["object"] == "process/node_exporter"


def test_live_metrics_are_selectors():
    got = live_metrics()
    assert "lab_activity_lock_waiting_backends" in got and "up" in got
    assert all(not m.startswith("#") for m in got)


def test_process_and_volume_faults_are_neutral_change_events(tmp_path):
    path = tmp_path / "injector.jsonl"
    recs = [
        {"ts": "2026-12-02T02:30:00.000Z", "action": "inject", "kind": "cpu_hog",
         "scenario": "lab-cpu-hog", "program": "stress-ng",
         "argv": ["--cpu", "4", "--cpu-load", "100"], "user": "nobody"},
        {"ts": "2026-12-02T02:31:00.000Z", "action": "inject", "kind": "fill_volume",
         "scenario": "lab-disk-full", "volume": "spill", "mount": "/tmp/l/volumes/spill",
         "file": "orders-export.csv"},
        {"ts": "2026-12-02T02:32:00.000Z", "action": "inject", "kind": "squat_port",
         "scenario": "lab-service-crash-loop", "component": "service", "port": 4242},
        {"ts": "2026-12-02T02:33:00.000Z", "action": "revert", "kind": "squat_port",
         "scenario": "lab-service-crash-loop"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    got = change_events(path)
    assert [(e["object"], e["reason"]) for e in got] == [
        ("process/stress-ng", "Started"), ("job/export", "JobStarted"),
        ("process/http-debug-server", "Started"), ("process/http-debug-server", "Stopped")]
    assert "stress-ng --cpu 4" in got[0]["message"] and "nobody" in got[0]["message"]
    assert "orders-export.csv" in got[1]["message"] and "4242" in got[2]["message"]
    text = json.dumps(got)
    assert "scenario" not in text and "lab-" not in text and "crash" not in text


def test_every_shipped_injector_kind_has_its_change_events(tmp_path):
    """The event texts are the table config/change_events.yaml: each injector kind a shipped
    scenario uses shows an event for its injection, with every field filled in."""
    import json

    from rcaeval.lab import load_scenarios

    kinds = sorted({sc.injector.kind for sc in load_scenarios()})
    path = tmp_path / "injector.jsonl"
    path.write_text("".join(json.dumps({"action": "inject", "kind": k, "ts": "t"}) + "\n"
                            for k in kinds))
    got = change_events(path)
    assert len(got) == len(kinds), (kinds, got)
    for ev in got:
        assert {"type", "object", "reason", "message"} <= ev.keys()
        assert "{" not in ev["message"] and "lab-" not in ev["message"]


def test_captured_log_lines_keep_their_live_ids_offline(tmp_path):
    """Live log → capture → the offline log reader: every entry has the same id and text. A
    message with line breaks stays one line (else every later id would shift), and a last
    line still being written (no newline yet) is not read until it is whole."""
    import json

    from rcaeval.lab._capture import _log_text
    from rcaeval.tools._logstore import parse_logs

    recs = [{"ts": f"2026-12-02T10:00:0{i}Z", "level": "error", "route": "/r",
             "msg": m} for i, m in enumerate(["database error: x\nDETAIL: y\r\nz",
                                               "served\u2028twice", "fine"])]
    path = tmp_path / "service.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs) + "not json\n"
                    + json.dumps(recs[2])[:-5])
    live = _service_logs(path)
    assert [ln.id for ln in live] == ["L-service-00001", "L-service-00002",
                                      "L-service-00003"]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "service.log").write_text(_log_text(live))
    offline = {ln.id: ln for ln in parse_logs([logs / "service.log"])}
    assert list(offline) == [ln.id for ln in live]
    for ln in live:
        assert offline[ln.id].message == ln.message and offline[ln.id].ts == ln.ts
    pg = tmp_path / "postgres.log"
    entry = "2026-12-02 10:00:01.123 UTC [42] lab@lab LOG:  process 42 still waiting for lock"
    pg.write_text("2026-12-02 10:00:00.001 UTC [41] LOG:  checkpoint starting: time\n"
                  + entry[:60])
    assert [ln.id for ln in _postgres_logs(pg)] == ["L-postgres-00001"]
    with pg.open("a") as out:  # the writer finishes its line: read whole, under its number
        out.write(entry[60:] + "\n")
    last = _postgres_logs(pg)[-1]
    assert last.id == "L-postgres-00002" and last.message.endswith("still waiting for lock")
