"""`rcaeval case capture --kube-events FILE` and `--loki URL --loki-query LOGQL`.

The kube events come from a `kubectl get events -o json` export, read by the same importer
as `rcaeval import kube-events`. There is no Loki on these machines (Debian's `loki` package
is another program), so the Loki client is tested against a server on 127.0.0.1 that answers
`GET /loki/api/v1/query_range` in Loki's documented format - the streams answer of
tests/ingest/data/loki_query_range.json, cut to the request's `start`, `end`, `limit` and
`direction=forward` as Loki does - over real HTTP. Bad input is one clear error (exit 3)
and writes nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import orjson
import pytest

from rcaeval.errors import InputError
from rcaeval.ingest import capture_case, parse_window_bounds
from rcaeval.ingest._live import loki_query_range
from tests.ingest.capture_kit import rcaeval

DATA = Path(__file__).resolve().parent / "data"
EVENTS = DATA / "kube_events.json"
WINDOW_TEXT = "2026-10-03T14:00:00Z..2026-10-03T14:30:00Z"
WINDOW = parse_window_bounds(WINDOW_TEXT)
QUERY = '{namespace="shop"}'


class Loki:
    """Answers query_range from the fixture's streams as Loki would: the lines with
    start <= ts <= end, oldest first, at most ``limit`` in all; a query other than
    :data:`QUERY` or ``{app="payment-db"}`` is refused with HTTP 400 and Loki's text."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        doc = orjson.loads((DATA / "loki_query_range.json").read_bytes())
        streams = doc["data"]["result"]
        loki = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urlparse(self.path)
                q = {k: v[0] for k, v in parse_qs(url.query).items()}
                loki.requests.append(q)
                if url.path != "/loki/api/v1/query_range":
                    return self._send(404, b"404 page not found\n")
                if q.get("query") not in (QUERY, '{app="payment-db"}'):
                    return self._send(400, b"parse error at line 1, col 1: syntax error\n")
                lo, hi, limit = int(q["start"]), int(q["end"]), int(q["limit"])
                want = [(s, v) for s in streams for v in s["values"]
                        if lo <= int(v[0]) <= hi and (q["query"] == QUERY
                                                      or s["stream"].get("app") == "payment-db")]
                want.sort(key=lambda sv: int(sv[1][0]))
                out: dict[str, Any] = {}
                for s, v in want[:limit]:
                    key = orjson.dumps(s["stream"], option=orjson.OPT_SORT_KEYS)
                    out.setdefault(key, {"stream": s["stream"], "values": []})["values"].append(v)
                body = {"status": "success", "data": {"resultType": "streams",
                                                      "result": list(out.values()),
                                                      "stats": {}}}
                return self._send(200, orjson.dumps(body), "application/json")

            def _send(self, code: int, body: bytes, ctype: str = "text/plain") -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def loki() -> Iterator[Loki]:
    srv = Loki()
    thread = threading.Thread(target=srv.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.server.shutdown()
        srv.server.server_close()
        thread.join()


def test_kube_events_file_alone_drafts_an_events_case(tmp_path: Path) -> None:
    out = tmp_path / "reg" / "cases" / "kube-1"
    res = rcaeval("case", "capture", "--window", WINDOW_TEXT, "--kube-events", str(EVENTS),
                  "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "kube events: " in res.stdout
    events = orjson.loads((out / "incident" / "events.json").read_bytes())["events"]
    assert events and all(e["ts"] >= "2026-10-03T14:00:00Z" for e in events)
    assert "channels with data: events" in res.stdout
    assert "event_" in res.stdout  # a drafted check on a Warning event's reason


def test_loki_lines_are_captured_in_the_window(tmp_path: Path, loki: Loki) -> None:
    out = tmp_path / "reg" / "cases" / "loki-1"
    got = capture_case(out, WINDOW, loki=loki.url, loki_queries=[QUERY],
                       kube_events_files=[EVENTS])
    assert got.log_lines == 5 and got.events > 0
    req = loki.requests[0]
    assert (req["query"], req["direction"], req["start"], req["end"]) == (
        QUERY, "forward", str(int(WINDOW[0].timestamp() * 1e9)),
        str(int(WINDOW[1].timestamp() * 1e9)))
    logs = sorted((out / "incident" / "logs").glob("*.log"))
    assert [p.name for p in logs] == ["checkout-7f9c6-x2kq.log", "payment-db-0.log"]
    text = logs[0].read_text()
    assert "remaining connection slots are reserved" in text
    assert "logs" in got.drafted.channels and "events" in got.drafted.channels


def test_loki_pages_until_a_short_page(loki: Loki) -> None:
    pages = loki_query_range(loki.url, QUERY, *WINDOW, limit=2)
    assert [len([v for s in p["data"]["result"] for v in s["values"]]) for p in pages] == [
        2, 2, 1]
    starts = [int(r["start"]) for r in loki.requests]
    assert starts[0] == int(WINDOW[0].timestamp() * 1e9) and starts == sorted(starts)


def test_a_refused_loki_query_names_the_query_and_writes_nothing(tmp_path: Path,
                                                                 loki: Loki) -> None:
    out = tmp_path / "reg" / "cases" / "loki-2"
    res = rcaeval("case", "capture", "--window", WINDOW_TEXT, "--loki", loki.url,
                  "--loki-query", "{bad", "--out", str(out))
    assert res.returncode == 3, res.stderr
    assert "Loki refused the request (HTTP 400)" in res.stderr
    assert "--loki-query {bad" in res.stderr
    assert not (tmp_path / "reg" / "cases").exists() or not any(
        (tmp_path / "reg" / "cases").iterdir())


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"loki": "http://127.0.0.1:9"}, "--loki URL and --loki-query LOGQL go together"),
    ({"loki_queries": [QUERY]}, "--loki URL and --loki-query LOGQL go together"),
    ({"loki": "localhost:3100", "loki_queries": [QUERY]}, "must be an http"),
])
def test_bad_loki_arguments(tmp_path: Path, kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        capture_case(tmp_path / "reg" / "cases" / "c-1", WINDOW, **kwargs)
    assert not (tmp_path / "reg").exists()


def test_bad_kube_events_files_name_the_file_and_write_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "events.json"
    bad.write_text('{"kind": "List", "items": [')
    out = tmp_path / "reg" / "cases" / "kube-2"
    res = rcaeval("case", "capture", "--window", WINDOW_TEXT, "--kube-events", str(bad),
                  "--out", str(out))
    assert res.returncode == 3, res.stderr
    assert str(bad) in res.stderr
    assert not out.exists()
    # a valid export with nothing in the window: no data, said with the note
    with pytest.raises(InputError, match="no event in the window") as err:
        capture_case(out, parse_window_bounds("2020-01-01T00:00:00Z..2020-01-01T01:00:00Z"),
                     kube_events_files=[EVENTS])
    assert err.value.field == "--window"
    assert not out.exists()
