"""BundleWriter validates as it writes and continues an existing bundle."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from rcaeval.bundle import BundleError, BundleWriter

WINDOW = ("2026-10-03T14:00:00Z", "2026-10-03T15:00:00Z")


@pytest.mark.parametrize(("call", "rule"), [
    (lambda w: w.milestone("thinking.done"), "telemetry_event"),
    (lambda w: w.milestone("tool.call"), "telemetry_tool"),
    (lambda w: w.add_log_entries([{"id": "", "message": "x"}]), "evidence_id"),
    (lambda w: w.add_log_entries([{"id": "L-1", "message": 3}]), "log_entry"),
    (lambda w: w.add_log_entries([{"id": "L-1", "message": "x", "ts": "noon"}]), "timestamp"),
    (lambda w: w.add_series([{"id": "M-1", "name": "m", "points": [["2026-10-03T14:00:00Z",
                                                                    "high"]]}]), "metric_point"),
    (lambda w: w.add_series([{"id": "M-1", "name": "m", "labels": {"a": 1}}]), "metric_series"),
    (lambda w: w.add_queries([{"id": "Q-1", "kind": "slowish"}]), "query_kind"),
    (lambda w: w.add_finding("x", [("log", "L-404")]), "ref_resolvable"),
    (lambda w: w.add_finding("x", [("trace", "T-1")]), "ref_type"),
    (lambda w: w.add_finding("x", []), "key_evidence"),
    (lambda w: w.set_ticket({"summary": "no id"}), "ticket_context"),
    (lambda w: w.add_gate_checks([{"status": "fail", "detail": "x"}]), "gate_check"),
    (lambda w: w.add_gate_checks([{"name": "g", "status": "firing", "detail": "x"}]),
     "gate_check"),
    (lambda w: w.add_gate_checks([{"name": "g", "status": "fail", "detail": None}]),
     "gate_check"),
    (lambda w: w.add_gate_checks([{"id": "", "name": "g", "status": "fail", "detail": "x"}]),
     "evidence_id"),
    (lambda w: w.channel_error("profiles", "HTTP 503"), "channel"),
    (lambda w: w.final_answer(" "), "final_answer"),
])
def test_refuses_what_the_contract_forbids(tmp_path: Path, call, rule: str):
    w = BundleWriter(tmp_path, cluster_id="c", time_window=WINDOW)
    with pytest.raises(BundleError) as exc:
        call(w)
    assert exc.value.rule == rule


def test_bad_scope_is_refused(tmp_path: Path):
    with pytest.raises(BundleError, match="after end"):
        BundleWriter(tmp_path, time_window=(WINDOW[1], WINDOW[0]))
    with pytest.raises(BundleError, match="cluster_id"):
        BundleWriter(tmp_path, cluster_id="  ")


def test_a_second_writer_continues_the_bundle(tmp_path: Path):
    w = BundleWriter(tmp_path, cluster_id="c", time_window=WINDOW)
    w.add_series([{"id": "M-1", "name": "m", "labels": {"i": "a"},
                   "points": [["2026-10-03T14:01:00Z", 1]]}])
    w2 = BundleWriter(tmp_path)
    w2.add_series([{"id": "M-1", "name": "m", "labels": {"i": "a"},
                    "points": [["2026-10-03T14:00:00Z", 0], ["2026-10-03T14:01:00Z", 1]]}])
    doc = orjson.loads((tmp_path / "evidences/metrics.json").read_bytes())
    assert doc["series"][0]["points"] == [["2026-10-03T14:00:00Z", 0.0],
                                          ["2026-10-03T14:01:00Z", 1.0]]
    report = orjson.loads((tmp_path / "evidences/workspace_evidence_report.json").read_bytes())
    assert report["metadata"]["cluster_id"] == "c"
    assert report["channels"]["metrics"] == {"attempted": True, "status": "ok", "count": 1}
    with pytest.raises(BundleError, match="already names"):
        w2.add_series([{"id": "M-1", "name": "other"}])


def test_gate_checks_merge_by_id_and_are_summarised(tmp_path: Path):
    w = BundleWriter(tmp_path, cluster_id="c", time_window=WINDOW)
    assert w.add_gate_checks([{"name": "scrape health", "status": "fail", "detail": "missed 6"},
                              {"id": "G-2", "name": "infra", "status": "pass",
                               "detail": "all pods running"}]) == ["G-scrape_health", "G-2"]
    w2 = BundleWriter(tmp_path)  # continues the bundle
    w2.add_gate_checks([{"id": "G-2", "name": "infra", "status": "warn", "detail": "1 restart",
                         "severity": "warning"}])
    doc = orjson.loads((tmp_path / "evidences/gate_checks.json").read_bytes())
    assert doc == {"checks": [
        {"id": "G-scrape_health", "name": "scrape health", "status": "fail",
         "detail": "missed 6"},
        {"id": "G-2", "name": "infra", "status": "warn", "detail": "1 restart",
         "severity": "warning"}]}
    assert w2.write_summary()["ids"]["alerts"] == ["G-scrape_health", "G-2"]
    w2.channel_error("alerts", "HTTP 503")  # the alerts channel has no report entry
    report = orjson.loads((tmp_path / "evidences/workspace_evidence_report.json").read_bytes())
    assert "alerts" not in report["channels"]
    errors = orjson.loads((tmp_path / "evidences/collection_errors.json").read_bytes())
    assert [e["channel"] for e in errors["errors"]] == ["alerts"]


def test_interleaved_writers_see_each_others_records(tmp_path: Path):
    """Two writers open at once on one bundle (two tool servers): each write re-reads what
    the other wrote, so neither's flush drops the other's records or findings."""
    a = BundleWriter(tmp_path, cluster_id="c1", time_window=WINDOW)
    b = BundleWriter(tmp_path, cluster_id="c1", time_window=WINDOW)
    a.add_log_entries([{"id": "L-a", "message": "from a"}])
    b.add_log_entries([{"id": "L-b", "message": "from b"}])
    a.add_series([{"id": "M-1", "name": "m", "points": [["2026-10-03T14:00:00Z", 1]]}])
    b.add_series([{"id": "M-1", "name": "m", "points": [["2026-10-03T14:01:00Z", 2]]}])
    a.add_gate_checks([{"id": "G-a", "name": "a", "status": "fail", "detail": "x"}])
    b.add_gate_checks([{"id": "G-b", "name": "b", "status": "pass", "detail": "y"}])
    a.add_finding("cites b's record", [("log", "L-b")])  # a never wrote L-b itself
    b.add_finding("cites a's record", [("log", "L-a")], item_id="A2")
    logs = orjson.loads((tmp_path / "evidences/logs.json").read_bytes())
    assert [e["id"] for e in logs["entries"]] == ["L-a", "L-b"]
    assert logs["stats"]["total"] == 2
    series = orjson.loads((tmp_path / "evidences/metrics.json").read_bytes())["series"]
    assert [p[1] for p in series[0]["points"]] == [1.0, 2.0]
    gates = orjson.loads((tmp_path / "evidences/gate_checks.json").read_bytes())["checks"]
    assert [g["id"] for g in gates] == ["G-a", "G-b"]
    items = orjson.loads((tmp_path / "analysis_patch.json").read_bytes())["items"]
    assert [i["id"] for i in items] == ["A1", "A2"]
    report = orjson.loads((tmp_path / "evidences/workspace_evidence_report.json").read_bytes())
    assert report["channels"]["logs"]["count"] == 2


def test_the_lock_is_held_across_a_series_of_writes(tmp_path: Path):
    """``exclusive()`` is the bundle's flock: another process's lock attempt fails while a
    writer holds it, and succeeds once it is released."""
    import fcntl
    import os

    from rcaeval.bundle._lock import LOCK_FILE

    w = BundleWriter(tmp_path)

    def try_lock() -> bool:
        fd = os.open(tmp_path / LOCK_FILE, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)  # closing drops a lock taken here
        return True

    with w.exclusive():
        w.add_log_entries([{"id": "L-1", "message": "m"}])
        assert not try_lock()  # an open file description of its own is a separate lock
    assert try_lock()
