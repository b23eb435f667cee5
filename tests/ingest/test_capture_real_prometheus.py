"""`rcaeval case capture` against a REAL Prometheus (and Alertmanager) on 127.0.0.1
(tests/ingest/capture_kit.py): the exporter's checkout-0 latency jumps 10x at a moment the test
chooses; the capture must find that fault shape - the drafted judge.yaml's critical-evidence
check names the series - and `rcaeval case prove` proves the drafted case. A window with no
data is an error that writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
import yaml

from tests.ingest.capture_kit import (
    ALERT,
    BASE_LATENCY,
    FAULT_LATENCY,
    LATENCY,
    PROMETHEUS,
    Stack,
    rcaeval,
    running_stack,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    PROMETHEUS is None, reason="prometheus is not installed (make prometheus-deps)")]
SLOW_POD = LATENCY + '{pod="checkout-0"}'
BASELINE_N = FAULT_N = 8


def _iso(unix: float) -> str:
    return datetime.fromtimestamp(unix, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


@pytest.fixture(scope="module")
def incident(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str, float]]:
    """The stack with BASELINE_N healthy samples, then FAULT_N 10x samples (and the alert
    listed by Alertmanager); yields it, the window over both and the fault's first sample."""
    with running_stack(tmp_path_factory.mktemp("stack")) as stack:
        base = stack.wait_samples(SLOW_POD, BASELINE_N, BASE_LATENCY)
        stack.exporter.fault()
        high = stack.wait_samples(SLOW_POD, FAULT_N, FAULT_LATENCY)
        if stack.am_url:
            stack.wait_alert(ALERT)
        yield stack, f"{_iso(base[0][0] - 1)}..{_iso(high[-1][0] + 0.5)}", high[0][0]


def _review(path: Path) -> None:
    """What the case's author adds before proving: the misdiagnosis this incident invites
    (a database outage), guarded by an expect: false hard check (docs/registry.md)."""
    judge = yaml.safe_load(path.read_text(encoding="utf-8"))
    judge["detectors"]["asserts_database_outage"] = {
        "description": "The answer blames a database outage.",
        "any": [r"\bdatabase (?:outage|down)\b"], "scope": "root_cause", "negation": True,
        "examples": {"fires": ["Root cause: a database outage."],
                     "silent": ["Ruled out: a database outage."]}}
    judge["judge"]["diagnosis"]["hard_checks"].append({
        "id": "avoids_database_outage_misdiagnosis",
        "description": "The answer does not blame a database outage.",
        "all_of": [{"detector": "asserts_database_outage", "expect": False}]})
    path.write_text(yaml.safe_dump(judge, sort_keys=False), encoding="utf-8")


def test_capture_finds_the_fault_and_prove_credits_it(
        incident: tuple[Stack, str, float], tmp_path: Path) -> None:
    stack, window, fault_at = incident
    queries = tmp_path / "queries.txt"
    queries.write_text(f"# the checkout service\n{LATENCY}\n\ncheckout_inflight_requests\n")
    case_dir = tmp_path / "registry" / "cases" / "checkout-latency-001"
    args = ["case", "capture", "--window", window, "--prometheus", stack.prom_url,
            "--query-file", str(queries), "--step", "1s", "--cluster", "shop-prod",
            "--family", "checkout_latency_regression", "--summary", "A checkout latency "
            "regression: checkout-0's p99 latency rose 10x", "--out", str(case_dir)]
    if stack.am_url:
        args += ["--alertmanager", stack.am_url]
    proc = rcaeval(*args)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "prometheus: 4 series" in proc.stdout
    judge = yaml.safe_load((case_dir / "judge.yaml").read_text(encoding="utf-8"))
    checks = judge["judge"]["critical_evidence"]["checks"]
    fault_ids = [c["id"] for c in checks if c["any_of"][0].get("series") == LATENCY]
    fault = [c["any_of"][0] for c in checks if c["any_of"][0].get("series") == LATENCY]
    assert len(fault) == 1, checks
    assert fault[0]["method"] == "numeric_series_any_gt"
    assert fault[0]["labels"]["pod"] == "checkout-0"
    assert BASE_LATENCY < fault[0]["threshold"] < FAULT_LATENCY
    # only the faulty pod's series: the steady ones raise no check
    assert not [c for c in checks if c["any_of"][0].get("series") ==
                "checkout_inflight_requests"]
    case = yaml.safe_load((case_dir / "case.yaml").read_text(encoding="utf-8"))
    assert case["environment"]["cluster_id"] == "shop-prod"
    start = datetime.fromisoformat(case["time_window"]["start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(case["time_window"]["end"].replace("Z", "+00:00"))
    assert start.timestamp() <= fault_at <= end.timestamp()
    channels = judge["judge"]["evidence_collection"]["preferred_channels"]
    if stack.am_url:
        assert channels == ["metrics", "alerts"]
        assert ALERT in case["prompt"]["text"]
        assert [c for c in checks if c["id"] == "alert_checkoutlatencyhigh"]
    _review(case_dir / "judge.yaml")
    proc = rcaeval("case", "prove", "checkout-latency-001", "--registry",
                   str(case_dir.parent.parent), "--json", "--out", str(tmp_path / "proof"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proof = yaml.safe_load(proc.stdout)
    (row,) = proof["cases"]
    assert row["status"] == "proven", row
    assert row["oracle"] == "pass" and row["lazy"] != "pass"
    assert row["lazy_skipped_channel"] == "metrics"
    # the judge credits the drafted fault check to the oracle, not to the lazy agent
    with duckdb.connect(str(tmp_path / "proof" / "proof.duckdb"), read_only=True) as db:
        credit = dict(db.execute(
            "SELECT run_id, passed FROM eval_check WHERE bucket = 'critical_evidence' "
            "AND check_id = ?", fault_ids).fetchall())
    assert credit == {proof["run_ids"]["oracle"]: True, proof["run_ids"]["lazy"]: False,
                      proof["run_ids"]["wrong"]: True}


def test_a_window_with_no_data_is_an_error_and_writes_nothing(
        incident: tuple[Stack, str, float], tmp_path: Path) -> None:
    stack, _, _ = incident
    out = tmp_path / "registry" / "cases" / "empty-001"
    proc = rcaeval("case", "capture", "--window", "2020-01-01T00:00:00Z..2020-01-01T00:10:00Z",
                   "--prometheus", stack.prom_url, "--query", LATENCY, "--out", str(out))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "[--window]: no data in the window 2020-01-01T00:00:00Z..2020-01-01T00:10:00Z" \
        in proc.stderr
    assert f"query {LATENCY!r}: no data in the window" in proc.stderr
    assert not (tmp_path / "registry").exists()


def test_a_query_prometheus_refuses_is_named(incident: tuple[Stack, str, float],
                                             tmp_path: Path) -> None:
    stack, window, _ = incident
    out = tmp_path / "registry" / "cases" / "bad-001"
    proc = rcaeval("case", "capture", "--window", window, "--prometheus", stack.prom_url,
                   "--query", LATENCY, "--query", LATENCY + "{pod=", "--out", str(out))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Prometheus refused the request (HTTP 400)" in proc.stderr
    assert f"[--query {LATENCY}{{pod=]" in proc.stderr and "parse error" in proc.stderr
    assert not (tmp_path / "registry").exists()

