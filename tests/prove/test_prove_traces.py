"""A traces case end to end (tests/prove/traces_registry, incident data written by `rcaeval
import otlp` and `rcaeval import logs`): its critical evidence is an error span, so the oracle
(which searches traces) passes and the lazy agent - which never calls search_traces - fails,
through the real runner, the MCP tools and the judge (slow: three agents)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prove_kit import rcaeval

pytestmark = pytest.mark.slow

REGISTRY = Path(__file__).resolve().parent / "traces_registry"
CASE = "checkout-db-pool-001"


def _run(out: Path, role: str) -> tuple[dict, set[str], Path]:
    (case_dir,) = (out / "audits").glob(f"proof-{role}-*/{CASE}")
    judgment = json.loads((case_dir / "judgment.json").read_text())
    tele = [json.loads(x) for x in (case_dir / ".opencode/telemetry.log").read_text()
            .splitlines()]
    return judgment, {t.get("tool") for t in tele if t.get("event") == "tool.call"}, case_dir


def _check(judgment: dict, check_id: str) -> dict:
    (bucket,) = [b for b in judgment["buckets"] if b["bucket"] == "critical_evidence"]
    return next(c for c in bucket["checks"] if c["check_id"] == check_id)


@pytest.mark.timeout(900)
def test_the_error_span_case_is_passed_by_the_oracle_and_failed_without_traces(tmp_path):
    res = rcaeval("case", "prove", "--registry", str(REGISTRY), "--suite", "traces",
                  "--json", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    (row,) = json.loads(res.stdout)["cases"]
    assert (row["status"], row["oracle"], row["lazy"], row["wrong"]) == (
        "proven", "pass", "fail", "fail")
    assert row["lazy_skipped_channel"] == "traces"

    oracle, oracle_tools, oracle_dir = _run(tmp_path, "oracle")
    assert oracle["verdict"] == "pass" and "search_traces" in oracle_tools
    span = _check(oracle, "error_span_shows_refused_connection")
    assert span["passed"] and span["evidence"]["file"] == "evidences/traces.json"
    assert "error span T-5b8efff798038103d269b633813fc60c-eee19b7ec3c1b175" in span["reason"]
    spans = json.loads((oracle_dir / "evidences/traces.json").read_text())["spans"]
    assert spans[0]["status"] == "error"  # error spans first
    assert any("remaining connection slots" in (s.get("status_message") or "") for s in spans)

    lazy, lazy_tools, lazy_dir = _run(tmp_path, "lazy")
    assert lazy["verdict"] == "fail" and "search_traces" not in lazy_tools
    assert "search_logs" in lazy_tools  # it investigated, just never searched traces
    assert not (lazy_dir / "evidences/traces.json").exists()
    assert not _check(lazy, "error_span_shows_refused_connection")["passed"]
    assert _check(lazy, "checkout_logged_the_failure")["passed"]
