"""`rcaeval case capture`'s checks before it asks any server, and an unreachable server:
each is one clear error, and nothing is written. (The capture itself is tested against a
real Prometheus: test_capture_real_prometheus.py, slow.)"""

from __future__ import annotations

import socket
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rcaeval.errors import InfraError, InputError
from rcaeval.ingest import capture_case, parse_window_bounds
from rcaeval.ingest._capture import read_queries
from rcaeval.ingest._live import parse_step
from tests.ingest.capture_kit import rcaeval

WINDOW = parse_window_bounds("2026-12-01T22:00:00Z..2026-12-01T23:00:00Z")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("kwargs", "out", "message", "field"), [
    ({}, "reg/cases/c-1", "nothing to capture", "--prometheus"),
    ({"prometheus": "http://127.0.0.1:9"}, "reg/cases/c-1", "needs at least one --query",
     "--query"),
    ({"queries": ["up"]}, "reg/cases/c-1", "a --query needs --prometheus", "--query"),
    ({"prometheus": "127.0.0.1:9090", "queries": ["up"]}, "reg/cases/c-1",
     "must be an http:// or https:// URL", "--prometheus"),
    ({"prometheus": "http://127.0.0.1:9", "queries": ["up"], "step": "fast"},
     "reg/cases/c-1", "--step must be a positive duration", "--step"),
    ({"prometheus": "http://127.0.0.1:9", "queries": ["up"]}, "reg/c-1",
     "REGISTRY/cases/CASE_ID", "--out"),
    ({"prometheus": "http://127.0.0.1:9", "queries": ["up"]}, "reg/cases/Bad..id",
     "invalid case id", "case_id"),
])
def test_bad_arguments_are_named_before_any_request(tmp_path: Path, kwargs: dict, out: str,
                                                     message: str, field: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        capture_case(tmp_path / out, WINDOW, **kwargs)
    assert err.value.field == field
    assert not (tmp_path / "reg").exists()


def test_an_existing_case_is_kept_without_force(tmp_path: Path) -> None:
    (tmp_path / "cases" / "c-1").mkdir(parents=True)
    with pytest.raises(InputError, match="already exists"):
        capture_case(tmp_path / "cases" / "c-1", WINDOW, prometheus="http://127.0.0.1:9",
                     queries=["up"])


def test_an_unreachable_server_is_an_infrastructure_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(InfraError, match=f"could not reach Prometheus at {url}"):
        capture_case(tmp_path / "cases" / "c-1", WINDOW, prometheus=url, queries=["up"])
    proc = rcaeval("case", "capture", "--window", "now-10m..now", "--alertmanager", url,
                   "--out", str(tmp_path / "cases" / "c-2"))
    assert proc.returncode == 7, proc.stderr
    assert f"could not reach Alertmanager at {url}/api/v2/alerts" in proc.stderr
    assert not (tmp_path / "cases").exists()


def test_query_files_and_steps(tmp_path: Path) -> None:
    qf = tmp_path / "q.txt"
    qf.write_text("# latency\nhistogram_quantile(0.99, rate(x_bucket[5m]))\n\n  up  \n")
    assert read_queries(qf) == ["histogram_quantile(0.99, rate(x_bucket[5m]))", "up"]
    qf.write_bytes(b"up\n\xff\n")
    with pytest.raises(InputError, match="not UTF-8") as err:
        read_queries(qf)
    assert err.value.line == 2
    start = datetime(2026, 1, 1, tzinfo=UTC)
    assert parse_step(None, start, start.replace(hour=1)) == 6.0
    assert parse_step(None, start, start.replace(minute=5)) == 1.0
    assert [parse_step(s, start, start) for s in ("15s", "1m", "500ms", "30")] == [
        15.0, 60.0, 0.5, 30.0]
