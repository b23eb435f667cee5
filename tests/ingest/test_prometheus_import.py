"""`rcaeval import prometheus` on query_range responses a real Prometheus 2.42 wrote
(tests/ingest/data/prom_*.json: see README.md there): series, ids, merging, the incident
tools serving them, and bad input named by file and line/field with the dir untouched."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from rcaeval.errors import InputError
from rcaeval.ingest import import_prometheus, prometheus_series
from rcaeval.tools import IncidentTools, load_case_data
from tests.ingest.capture_kit import rcaeval

DATA = Path(__file__).parent / "data"
LATENCY, INFLIGHT = DATA / "prom_latency.json", DATA / "prom_inflight.json"


def _series(inc: Path) -> list[dict]:
    return orjson.loads((inc / "metrics.json").read_bytes())["series"]


def test_query_range_files_become_series_the_tools_serve(tmp_path: Path) -> None:
    inc = tmp_path / "case" / "incident"
    proc = rcaeval("import", "prometheus", str(LATENCY), str(INFLIGHT), "--out", str(inc))
    assert proc.returncode == 0, proc.stderr
    assert "4 series, 40 points from 2 file(s)" in proc.stdout
    series = {s["id"]: s for s in _series(inc)}
    sid = ("M-checkout_request_latency_seconds-instance:10.0.4.17:9100-job:shop"
           "-pod:checkout-0-service:checkout")
    slow = series[sid]
    assert slow["name"] == "checkout_request_latency_seconds"
    assert slow["labels"] == {"instance": "10.0.4.17:9100", "job": "shop", "pod": "checkout-0",
                              "service": "checkout"}
    assert slow["unit"] == "seconds"
    assert slow["points"][0] == ["2026-12-01T22:56:00.891Z", 0.12]
    assert [v for _, v in slow["points"]] == [0.12] * 5 + [1.2] * 5
    (tmp_path / "case" / "case.json").write_text('{"case_id": "x"}')
    tools = IncidentTools(load_case_data(tmp_path / "case"), tmp_path / "bundle")
    got = tools.query_metrics("checkout_request_latency_seconds", {"pod": "checkout-0"})
    assert [s["id"] for s in got["series"]] == [sid]
    assert max(p[1] for p in got["series"][0]["points"]) == 1.2


def test_importing_twice_or_overlapping_exports_gives_one_series(tmp_path: Path) -> None:
    inc = tmp_path / "incident"
    import_prometheus([LATENCY], inc)
    first = (inc / "metrics.json").read_bytes()
    import_prometheus([LATENCY], inc)
    assert (inc / "metrics.json").read_bytes() == first
    doc = orjson.loads(LATENCY.read_bytes())
    for s in doc["data"]["result"]:  # a later window: the last 3 samples and 2 new ones
        last = s["values"][-1][0]
        s["values"] = s["values"][-3:] + [[last + 2, "1.3"], [last + 4, "1.4"]]
    later = tmp_path / "later.json"
    later.write_bytes(orjson.dumps(doc))
    import_prometheus([later], inc)
    series = _series(inc)
    assert len(series) == 2
    assert [v for _, v in series[0]["points"]][-4:] == [1.2, 1.2, 1.3, 1.4]
    assert len(series[0]["points"]) == 12


def test_an_expression_result_needs_a_name(tmp_path: Path) -> None:
    expr = DATA / "prom_max_by_pod.json"
    with pytest.raises(InputError, match="no __name__ label") as err:
        import_prometheus([expr], tmp_path / "incident")
    assert err.value.field == "data.result[0].metric.__name__"
    assert not (tmp_path / "incident").exists()
    got = import_prometheus([expr], tmp_path / "incident", name="checkout_p99_max")
    assert {s["id"] for s in got.series} == {"M-checkout_p99_max-pod:checkout-0",
                                             "M-checkout_p99_max-pod:checkout-1"}


def test_nan_samples_are_left_out_and_a_series_of_only_nan_is_skipped() -> None:
    doc = orjson.loads(LATENCY.read_bytes())
    doc["data"]["result"][0]["values"][2][1] = "NaN"
    doc["data"]["result"][1]["values"] = [[1796165760.0, "NaN"], [1796165761.0, "+Inf"]]
    got = prometheus_series(doc, "x.json")
    assert got.dropped_samples == 3
    assert len(got.series) == 1 and len(got.series[0]["points"]) == 9
    assert got.skipped == ["checkout_request_latency_seconds{instance='10.0.4.17:9100', "
                           "job='shop', pod='checkout-1', service='checkout'}: every sample is "
                           "NaN or infinite"]


def test_a_long_or_unusual_label_set_gets_a_safe_unique_id() -> None:
    doc = {"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "m", "path": "/a b"}, "values": [[1, "1"]]},
        {"metric": {"__name__": "m", "path": "/a_b"}, "values": [[1, "1"]]},
        {"metric": {"__name__": "m", "url": "x" * 300}, "values": [[1, "1"]]}]}}
    ids = [s["id"] for s in prometheus_series(doc, "x.json").series]
    assert ids[1] == "M-m-path:/a_b"
    assert ids[0].startswith("M-m-path:/a_b-") and len(set(ids)) == 3
    assert all(len(i) <= 200 for i in ids)


@pytest.mark.parametrize(("text", "message", "line", "field"), [
    ('{"status": "success",\n "data": {"resultType": "matrix",\n "result": [}}', "not valid "
     "JSON", 3, None),
    ((DATA / "prom_bad_query.json").read_text(), "bad_data: 1:38: parse error", None,
     "status"),
    ((DATA / "prom_instant.json").read_text(), "resultType must be 'matrix'", None,
     "data.resultType"),
    ('{"status": "success", "data": {"resultType": "matrix", "result": ['
     '{"metric": {"__name__": "up"}, "values": []}]}}', "series up{} has no samples", None,
     "data.result[0].values"),
    ('{"status": "success", "data": {"resultType": "matrix", "result": ['
     '{"metric": {"__name__": "up"}, "values": [[1, "x"]]}]}}', "'x' is not a number", None,
     "data.result[0].values[0]"),
    ('{"status": "success", "data": {"resultType": "matrix", "result": ['
     '{"metric": {"__name__": "up"}, "values": [[1, 2]]}]}}', "expected a sample", None,
     "data.result[0].values[0]"),
    ('{"status": "success", "data": {"resultType": "matrix", "result": []}}',
     "the result is empty (no data in the queried window)", None, "data.result"),
])
def test_bad_input_names_the_file_and_changes_nothing(tmp_path: Path, text: str, message: str,
                                                       line: int | None,
                                                       field: str | None) -> None:
    inc = tmp_path / "incident"
    import_prometheus([INFLIGHT], inc)
    before = (inc / "metrics.json").read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(InputError) as err:
        import_prometheus([LATENCY, bad], inc)
    where = str(bad) + (f":{line}" if line else "") + (f" [{field}]" if field else "")
    assert err.value.render().startswith(where) and message in err.value.message, err.value
    assert (inc / "metrics.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "incident"]


def test_the_cli_exits_3_on_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"status": "success",\n "data": [}')
    proc = rcaeval("import", "prometheus", str(LATENCY), str(bad), "--out",
                   str(tmp_path / "incident"))
    assert proc.returncode == 3, proc.stderr
    assert f"{bad}:2: not valid JSON" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
