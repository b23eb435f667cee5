"""rcaeval import kube-events / kube-pods: `kubectl get events -o json` into incident/events.json
(served by list_events) and `kubectl get pods -o json` into incident/component_health.json
(restarts, last termination reason, readiness; served by get_component_health)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from ingest_kit import DATA, case_copy, rcaeval, snapshot

from rcaeval.errors import InputError
from rcaeval.ingest import (
    import_kube_events,
    import_kube_pods,
    incident_update,
    kube_events,
    parse_window,
)
from rcaeval.tools import IncidentTools, load_case_data

EVENTS, PODS = DATA / "kube_events.json", DATA / "kube_pods.json"


def test_events_are_imported_merged_by_uid_and_served(tmp_path: Path):
    case = case_copy(tmp_path)
    before = len(orjson.loads((case / "incident/events.json").read_bytes())["events"])
    done = rcaeval("import", "kube-events", str(EVENTS), "--out", str(case))
    assert done.returncode == 0, done.stderr
    assert "imported 2 event(s) (1 Warning)" in done.stdout
    assert rcaeval("import", "kube-events", str(EVENTS), "--out", str(case)).returncode == 0
    events = orjson.loads((case / "incident/events.json").read_bytes())["events"]
    assert len(events) == before + 2  # the second import replaced its own records
    backoff = next(e for e in events if e["id"].startswith("EV-k8s-c0a8"))
    assert backoff == {
        "id": "EV-k8s-c0a8e5f2-51d4-4a40-a0a3-7c1b2e3d4f50", "ts": "2026-10-03T14:12:40Z",
        "first_ts": "2026-10-03T14:05:04Z", "type": "Warning", "object": "pod/payment-db-0",
        "reason": "BackOff", "message": backoff["message"], "count": 7, "namespace": "shop",
        "source": "kubelet", "host": "node-3"}
    tools = IncidentTools(load_case_data(case), tmp_path / "b")
    got = tools.list_events(object_contains="payment-db-0", reason="BackOff")
    assert [e["id"] for e in got["events"]] == [backoff["id"]]


def test_the_events_k8s_io_shape_and_a_window(tmp_path: Path):
    doc = {"apiVersion": "v1", "kind": "List", "items": [{
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "payment-db-0.1", "namespace": "shop", "uid": "u-1"},
        "eventTime": "2026-10-03T14:05:04.000000Z", "reportingController": "kubelet",
        "reason": "Unhealthy", "type": "Warning", "note": "Readiness probe failed",
        "regarding": {"kind": "Pod", "name": "payment-db-0", "namespace": "shop"},
        "series": {"count": 12, "lastObservedTime": "2026-10-03T14:09:00.000000Z"}}]}
    src = tmp_path / "ev.json"
    src.write_bytes(orjson.dumps(doc))
    (ev,) = kube_events(src)
    assert (ev["ts"], ev["first_ts"], ev["count"], ev["message"], ev["source"]) == (
        "2026-10-03T14:09:00Z", "2026-10-03T14:05:04Z", 12, "Readiness probe failed",
        "kubelet")
    # the BackOff event's 14:05:04..14:12:40 overlaps the window; the 13:40 scale-up does not
    got = kube_events(EVENTS, parse_window("2026-10-03T14:10:00Z..2026-10-03T14:20:00Z"))
    assert [e["reason"] for e in got] == ["BackOff"]


def test_pods_become_component_health(tmp_path: Path):
    case = case_copy(tmp_path)
    done = rcaeval("import", "kube-pods", str(PODS), "--out", str(case / "incident"))
    assert done.returncode == 0, done.stderr
    assert "imported 2 pod(s) (1 not ready)" in done.stdout
    tools = IncidentTools(load_case_data(case), tmp_path / "b")
    (db,) = tools.get_component_health("payment-db-0")["components"]
    assert {k: db[k] for k in ("name", "instance", "status", "ready", "restarts",
                               "last_termination_reason", "node")} == {
        "name": "payment-db", "instance": "payment-db-0", "status": "CrashLoopBackOff",
        "ready": False, "restarts": 4, "last_termination_reason": "OOMKilled (exit code 137)",
        "node": "node-3"}
    (web,) = tools.get_component_health("checkout-7f9c6-x2kq")["components"]
    assert web["status"] == "Running" and web["ready"] is True and web["restarts"] == 1
    assert web["last_termination_reason"] == "Error (exit code 1): envoy exited"


@pytest.mark.parametrize("fn, doc, field, needle", [
    (import_kube_events, {"kind": "List"}, "items", "an 'items' list of Events"),
    (import_kube_events, {"items": [{"kind": "Pod"}]}, "items[0].kind", "not 'Event'"),
    (import_kube_events, {"items": [{"reason": "BackOff"}]}, "items[0].involvedObject",
     "involvedObject"),
    (import_kube_events, {"items": [{"reason": "X", "involvedObject": {"name": "p"},
                                     "lastTimestamp": "yesterday"}]},
     "items[0].lastTimestamp", "ISO-8601"),
    (import_kube_events, {"items": []}, None, "no event"),
    (import_kube_pods, {"items": [{"kind": "Pod", "metadata": {}}]}, "items[0].metadata.name",
     "metadata.name"),
    (import_kube_pods, {"items": []}, "items", "no pod"),
])
def test_bad_exports_name_file_and_field_and_change_nothing(tmp_path: Path, fn, doc, field,
                                                            needle):
    case = case_copy(tmp_path)
    src = tmp_path / "bad.json"
    src.write_bytes(orjson.dumps(doc))
    before = snapshot(case / "incident")
    with pytest.raises(InputError, match=needle) as err:
        with incident_update(case / "incident") as work:
            fn(work, [EVENTS if fn is import_kube_events else PODS, src])
    assert err.value.file == str(src) and err.value.field == field
    assert snapshot(case / "incident") == before


def test_not_json_names_the_line(tmp_path: Path):
    src = tmp_path / "bad.json"
    src.write_text('{"items": [\n  {"kind": "Event",}\n]}\n')
    done = rcaeval("import", "kube-events", str(src), "--out", str(tmp_path / "inc"))
    assert done.returncode == 3 and f"{src}:2: not valid JSON" in done.stderr + done.stdout
