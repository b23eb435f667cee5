"""`rcaeval import alertmanager` on an /api/v2/alerts response a real Alertmanager 0.25 wrote
(tests/ingest/data/am_alerts.json): checks get_alerts serves and a drafted case checks, the
states, the window, and bad input named by file and field with the dir untouched."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from rcaeval.errors import InputError
from rcaeval.ingest import alertmanager_checks, import_alertmanager, parse_window_bounds
from rcaeval.tools import IncidentTools, load_case_data
from tests.ingest.capture_kit import rcaeval

DATA = Path(__file__).parent / "data"
ALERTS = DATA / "am_alerts.json"
EXPECTED = {
    "id": "G-am-7d0cc17748bd7400", "name": "CheckoutLatencyHigh", "status": "fail",
    "detail": "checkout p99 latency above 500 ms on checkout-0 - p99 is 1.2 s",
    "ts": "2026-12-01T22:56:10.317Z", "state": "active",
    "ends_at": "2026-12-01T23:00:10.317Z", "severity": "page", "component": "checkout",
    "instance": "10.0.4.17:9100", "rule": "checkout_request_latency_seconds > 0.5"}


def test_v2_alerts_become_checks_get_alerts_serves(tmp_path: Path) -> None:
    inc = tmp_path / "case" / "incident"
    proc = rcaeval("import", "alertmanager", str(ALERTS), "--out", str(inc))
    assert proc.returncode == 0, proc.stderr
    assert "1 alert(s) (1 fail, 0 warn, 0 pass)" in proc.stdout
    checks = orjson.loads((inc / "alerts.json").read_bytes())["checks"]
    assert len(checks) == 1
    got = checks[0]
    assert {k: got[k] for k in EXPECTED} == EXPECTED
    assert got["labels"]["pod"] == "checkout-0" and got["annotations"]["description"]
    (tmp_path / "case" / "case.json").write_text('{"case_id": "x"}')
    tools = IncidentTools(load_case_data(tmp_path / "case"), tmp_path / "bundle")
    page = tools.get_alerts(status="fail", component="checkout")
    assert [c["id"] for c in page["checks"]] == ["G-am-7d0cc17748bd7400"]
    import_alertmanager([ALERTS], inc)  # twice: the same record, merged by id
    assert len(orjson.loads((inc / "alerts.json").read_bytes())["checks"]) == 1


def test_states_and_webhook_payloads_map_to_check_statuses() -> None:
    alert = orjson.loads(ALERTS.read_bytes())[0]
    silenced = copy.deepcopy(alert) | {"fingerprint": "b"}
    silenced["status"] = {"state": "suppressed", "silencedBy": ["s1"], "inhibitedBy": []}
    bare = copy.deepcopy(alert) | {"fingerprint": "c", "annotations": {}}
    bare["status"]["state"] = "unprocessed"
    got = alertmanager_checks([alert, silenced, bare], "a.json")
    assert [c["status"] for c in got.checks] == ["fail", "warn", "warn"]
    assert got.checks[2]["detail"].startswith("alert CheckoutLatencyHigh unprocessed (instance=")
    hook = {"receiver": "sink", "status": "resolved", "alerts": [
        {k: v for k, v in alert.items() if k not in ("fingerprint", "status")}
        | {"status": "resolved", "endsAt": "2026-12-01T22:58:00Z"}]}
    done = alertmanager_checks(hook, "hook.json").checks[0]
    assert done["status"] == "pass" and done["id"].startswith("G-am-")


def test_the_window_keeps_alerts_active_in_it() -> None:
    doc = orjson.loads(ALERTS.read_bytes())
    inside = parse_window_bounds("2026-12-01T22:50:00Z..2026-12-01T22:57:00Z")
    assert len(alertmanager_checks(doc, "a.json", window=inside).checks) == 1
    before = parse_window_bounds("2026-12-01T22:00:00Z..2026-12-01T22:56:00Z")
    got = alertmanager_checks(doc, "a.json", window=before)
    assert not got.checks and "outside the window" in got.skipped[0]
    assert parse_window_bounds("now-30m..now", now=datetime(2026, 1, 1, 12, tzinfo=UTC)) == (
        datetime(2026, 1, 1, 11, 30, tzinfo=UTC), datetime(2026, 1, 1, 12, tzinfo=UTC))
    for bad in ("2026-12-01T22:00:00Z", "later..now", "now..now-1h"):
        with pytest.raises(InputError) as err:
            parse_window_bounds(bad)
        assert err.value.field == "--window"


def _mutate(**changes: object) -> bytes:
    alert = orjson.loads(ALERTS.read_bytes())[0]
    for path, value in changes.items():
        *head, last = path.split("__")
        node = alert
        for key in head:
            node = node[key]
        if value is None:
            del node[last]
        else:
            node[last] = value
    return orjson.dumps([alert], option=orjson.OPT_INDENT_2)


@pytest.mark.parametrize(("text", "message", "where"), [
    (b'[\n  {"labels": {"alertname": "X"},\n  "status": }\n]', "not valid JSON", ":3"),
    (b'{"data": []}', "a JSON list of alerts", ""),
    (_mutate(labels__alertname=None), "no alertname label", " [[0].labels.alertname]"),
    (_mutate(status__state="firing?"), "alert state 'firing?'", " [[0].status.state]"),
    (_mutate(startsAt="yesterday"), "not an RFC 3339 time", " [[0].startsAt]"),
    (_mutate(labels__severity=3), "labels values must be strings", " [[0].labels.severity]"),
])
def test_bad_input_names_the_file_and_changes_nothing(tmp_path: Path, text: bytes,
                                                       message: str, where: str) -> None:
    inc = tmp_path / "incident"
    import_alertmanager([ALERTS], inc)
    before = (inc / "alerts.json").read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_bytes(text)
    with pytest.raises(InputError) as err:
        import_alertmanager([bad], inc)
    assert err.value.render().startswith(f"{bad}{where}: ") and message in err.value.message
    assert (inc / "alerts.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "incident"]


def test_no_alert_in_the_window_is_an_error(tmp_path: Path) -> None:
    proc = rcaeval("import", "alertmanager", str(ALERTS), "--out", str(tmp_path / "inc"),
                   "--window", "2026-01-01T00:00:00Z..2026-01-02T00:00:00Z")
    assert proc.returncode == 3, proc.stderr
    assert f"{ALERTS}: no alerts in the window" in proc.stderr
    assert not (tmp_path / "inc").exists()
