"""A field of the wrong JSON type, or a number no date can hold, in a real-format export is
an input error naming the file and the field (exit 3), never an internal error (exit 5):
every importer through its public Python API, and one through the CLI."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from ingest_kit import DATA, rcaeval

from rcaeval.errors import InputError
from rcaeval.ingest import (
    import_alertmanager,
    import_journal,
    import_kube_events,
    import_kube_pods,
    import_loki,
    import_otlp,
    import_prometheus,
    incident_update,
)

HUGE = 10**40


def _in_work(fn: Callable[[Path, list[Path]], Any]) -> Callable[[Path, Path], Any]:
    def run(src: Path, out: Path) -> Any:
        with incident_update(out) as work:
            return fn(work, [src])
    return run


IMPORTERS: dict[str, Callable[[Path, Path], Any]] = {
    "otlp": _in_work(lambda w, f: import_otlp(w, f, None)),
    "loki": _in_work(lambda w, f: import_loki(w, f, None)),
    "journal": _in_work(lambda w, f: import_journal(w, f, None)),
    "kube-events": _in_work(lambda w, f: import_kube_events(w, f, None)),
    "kube-pods": _in_work(lambda w, f: import_kube_pods(w, f)),
    "prometheus": lambda src, out: import_prometheus([src], out),
    "alertmanager": lambda src, out: import_alertmanager([src], out),
}
SPAN = ("resourceSpans", 0, "scopeSpans", 0, "spans", 1)
CASES = [
    ("otlp", "otlp_checkout.json", ("resourceSpans", 0, "scopeSpans"), 1e308,
     "resourceSpans[0].scopeSpans"),
    ("otlp", "otlp_checkout.json", (*SPAN, "events"), "x",
     "resourceSpans[0].scopeSpans[0].spans[1].events"),
    ("otlp", "otlp_checkout.json", (*SPAN, "events", 0, "timeUnixNano"), str(HUGE),
     "resourceSpans[0].scopeSpans[0].spans[1].events[0].timeUnixNano"),
    ("otlp", "otlp_checkout.json", (*SPAN, "startTimeUnixNano"), HUGE,
     "resourceSpans[0].scopeSpans[0].spans[1].startTimeUnixNano"),
    ("loki", "loki_query_range.json", ("data", "result", 0, "values", 0, 0), str(HUGE),
     "data.result[0].values[0][0]"),
    ("journal", "node-3.journal.json", (0, "__REALTIME_TIMESTAMP"), str(HUGE),
     "__REALTIME_TIMESTAMP"),
    ("kube-events", "kube_events.json", ("items", 0, "count"), "x", "items[0].count"),
    ("kube-events", "kube_events.json", ("items", 0, "count"), [[1]], "items[0].count"),
    ("kube-events", "kube_events.json", ("items", 0, "count"), HUGE, "items[0].count"),
    ("kube-pods", "kube_pods.json", ("items", 0, "status", "conditions"), 7,
     "items[0].status.conditions"),
    ("kube-pods", "kube_pods.json",
     ("items", 0, "status", "containerStatuses", 0, "restartCount"), "many",
     "items[0].status.containerStatuses[0].restartCount"),
    ("prometheus", "prom_latency.json", ("data", "result", 0, "values", 0, 0), 1e308,
     "data.result[0].values[0]"),
    ("alertmanager", "am_alerts.json", (0, "status"), [], "[0].status"),
]


def _load(name: str) -> tuple[Any, bool]:
    raw = (DATA / name).read_bytes()
    try:
        return orjson.loads(raw), False
    except orjson.JSONDecodeError:
        return [orjson.loads(ln) for ln in raw.splitlines() if ln.strip()], True


def _write(tmp: Path, name: str, doc: Any, lines: bool) -> Path:
    path = tmp / name
    # the stdlib writes integers past 64 bits, as a hostile exporter could
    path.write_text("\n".join(json.dumps(x) for x in doc) if lines else json.dumps(doc))
    return path


@pytest.mark.parametrize(("source", "name", "at", "value", "field"), CASES,
                         ids=[f"{c[0]}-{c[4]}-{type(c[3]).__name__}" for c in CASES])
def test_a_wrong_type_is_an_input_error_naming_the_field(tmp_path: Path, source: str,
                                                         name: str, at: tuple, value: Any,
                                                         field: str) -> None:
    doc, lines = _load(name)
    doc = copy.deepcopy(doc)
    node = doc
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = value
    src = _write(tmp_path, name, doc, lines)
    out = tmp_path / "incident"
    with pytest.raises(InputError) as err:
        IMPORTERS[source](src, out)
    assert err.value.file == str(src)
    assert err.value.field == field, str(err.value)
    assert not out.exists()


def test_an_attribute_integer_past_64_bits_is_kept_as_text(tmp_path: Path) -> None:
    doc, _ = _load("otlp_checkout.json")
    attrs = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["attributes"]
    attrs.append({"key": "big", "value": {"intValue": str(HUGE)}})  # int64 as JSON text
    src = _write(tmp_path, "otlp.json", doc, False)
    IMPORTERS["otlp"](src, tmp_path / "incident")
    spans = orjson.loads((tmp_path / "incident" / "traces.json").read_bytes())["spans"]
    assert spans[1]["attributes"]["big"] == str(HUGE)


def test_the_cli_says_exit_3_not_5(tmp_path: Path) -> None:
    doc, _ = _load("kube_events.json")
    doc["items"][0]["count"] = "x"
    src = _write(tmp_path, "events.json", doc, False)
    got = rcaeval("import", "kube-events", str(src), "--out", str(tmp_path / "incident"))
    assert got.returncode == 3, got.stderr
    assert f"{src} [items[0].count]: expected a count" in got.stderr
    assert "Traceback" not in got.stderr


EDGE = "9999-12-31T23:30:00-01:00"  # a valid ISO-8601 text whose UTC time is past year 9999


@pytest.mark.parametrize("source", ["logs", "alertmanager", "kube-events", "window",
                                    "capture-window"])
def test_a_time_past_year_9999_in_utc_is_exit_3(tmp_path: Path, source: str) -> None:
    out = str(tmp_path / "incident")
    if source == "logs":
        src = tmp_path / "app.log"
        src.write_text(f"{EDGE} ERROR boom\n")
        args, field = ["import", "logs", str(src), "--out", out], f"{src}:1"
    elif source in ("alertmanager", "kube-events"):
        doc, _ = _load("am_alerts.json" if source == "alertmanager" else "kube_events.json")
        if source == "alertmanager":
            doc[0]["startsAt"] = EDGE
        else:
            doc["items"][0]["lastTimestamp"] = EDGE
        src = _write(tmp_path, "export.json", doc, False)
        args = ["import", source, str(src), "--out", out]
        field = (f"{src} [[0].startsAt]" if source == "alertmanager"
                 else f"{src} [items[0].lastTimestamp]")
    elif source == "window":
        args = ["import", "logs", str(DATA / "checkout-app.log"), "--out", out,
                "--window", f"2026-01-01T00:00:00Z..{EDGE}"]
        field = "[--window]"
    else:
        args = ["case", "capture", "--window", "99999999999999..now", "--out",
                str(tmp_path / "reg" / "cases" / "c-001"), "--prometheus",
                "http://127.0.0.1:9", "--query", "up"]
        field = "[--window]"
    got = rcaeval(*args)
    assert got.returncode == 3, got.stderr
    assert field in got.stderr
    assert "Traceback" not in got.stderr
