"""`rcaeval bundle lint`: one test per contract rule - a complete bundle written with
BundleWriter lints clean, and breaking one rule yields exactly that rule with its consequence."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from rcaeval.bundle import RULES, BundleWriter, lint_bundle
from rcaeval.cli import main

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "data" / "registry" / "cases" / "tikv-panic-restart-001"
WINDOW = ("2026-10-03T14:00:00Z", "2026-10-03T15:00:00Z")


def good_bundle(root: Path) -> Path:
    w = BundleWriter(root, cluster_id="prod-tidb-017", time_window=WINDOW)
    w.milestone("diagnosis_run.initialized")
    w.milestone("guardrails.loaded")
    w.set_architecture({"components": [{"name": "tikv", "instance": "tikv-2"}]})
    w.add_log_entries([{"id": "L-1", "ts": "2026-10-03T14:05:00Z", "level": "FATAL",
                        "message": "TiKV panic"}])
    w.add_series([{"id": "M-1", "name": "tikv_restart_total", "labels": {"instance": "tikv-2"},
                   "points": [["2026-10-03T14:05:00Z", 3]]}])
    w.add_queries([{"id": "Q-1", "kind": "slow_query", "sql_text": "SELECT 1"}])
    w.add_events([{"id": "EV-1", "ts": "2026-10-03T14:06:00Z", "reason": "BackOff"}])
    w.add_gate_checks([{"name": "infra_healthy", "status": "fail",
                        "detail": "tikv-2 restarted 4 times"}])
    w.write_summary()
    w.add_finding("tikv-2 panicked", [("log", "L-1"), ("metric", "M-1")])
    w.set_analysis("tikv-2 panicked")
    w.complete_collection()
    w.final_answer("## Root cause\n\nThe TiKV node tikv-2 panicked.\n")
    (root / "manifest.json").write_bytes(orjson.dumps({"workspace_id": "ws-1"}))
    return root


def _json(root: Path, rel: str, fn: Callable[[dict], object]) -> None:
    doc = orjson.loads((root / rel).read_bytes())
    fn(doc)
    (root / rel).write_bytes(orjson.dumps(doc))


def _drop_tele(root: Path, event: str) -> None:
    p = root / ".opencode/telemetry.log"
    p.write_text("".join(x + "\n" for x in p.read_text().splitlines()
                         if f'"event":"{event}"' not in x))


BREAKS: dict[str, Callable[[Path], object]] = {
    "bundle_resolved": lambda r: (r / "evidences/workspace_evidence_report.json").unlink(),
    "json": lambda r: (r / "evidences/queries.json").write_text("{oops"),
    "manifest_present": lambda r: (r / "manifest.json").unlink(),
    "cluster_id": lambda r: _json(r, "evidences/workspace_evidence_report.json",
                                  lambda d: d["metadata"].pop("cluster_id")),
    "time_window": lambda r: _json(r, "evidences/workspace_evidence_report.json",
                                   lambda d: d["metadata"].update(time_window={
                                       "start": "2026-10-03T16:00:00Z",
                                       "end": "2026-10-03T15:00:00Z"})),
    "core_file": lambda r: (r / "evidences/logs.json").unlink(),
    "channel_observed": lambda r: _json(r, "evidences/events.json",
                                        lambda d: d.update(events=[])),
    "no_channel_observed": lambda r: [
        _json(r, f"evidences/{f}.json", lambda d: [d.__setitem__(k, []) for k in list(d)
                                                     if isinstance(d[k], list)])
        for f in ("logs", "metrics", "queries", "events")],
    "events_persisted": lambda r: (r / "evidences/events.json").unlink(),
    "evidence_id": lambda r: _json(r, "evidences/queries.json",
                                   lambda d: d["queries"].append(dict(d["queries"][0]))),
    "metric_series": lambda r: _json(r, "evidences/metrics.json",
                                     lambda d: d["series"][0]["points"].append(["x", "high"])),
    "log_entry": lambda r: _json(r, "evidences/logs.json",
                                 lambda d: d["entries"].append({"id": "L-2"})),
    "query_kind": lambda r: _json(r, "evidences/queries.json",
                                  lambda d: d["queries"][0].update(kind="slowish")),
    "gate_check": lambda r: _json(r, "evidences/gate_checks.json",
                                  lambda d: d["checks"][0].pop("detail")),
    "trace_span": lambda r: (r / "evidences/traces.json").write_text(
        '{"spans": [{"id": "T-1", "trace_id": "ab", "span_id": "cd", "status": "error"}]}'),
    "milestone": lambda r: _drop_tele(r, "guardrails.loaded"),
    "milestone_optional": lambda r: (_drop_tele(r, "summary.read"), (
        r / "evidences/evidence_summary_for_agent.json").unlink()),
    "telemetry_event": lambda r: open(r / ".opencode/telemetry.log", "a").write(
        '{"event": "thinking"}\n'),
    "patch_present": lambda r: (r / "analysis_patch.json").unlink(),
    "patch_valid": lambda r: (r / "analysis_patch.json").write_text("[]"),
    "patch_item": lambda r: _json(r, "analysis_patch.json",
                                  lambda d: d["items"].append({"id": "A9", "claim": "x"})),
    "key_evidence": lambda r: _json(r, "analysis_patch.json",
                                    lambda d: d["items"][0].update(role="supporting")),
    "ref_resolvable": lambda r: _json(r, "analysis_patch.json", lambda d: d["items"][0][
        "refs"].append({"type": "metric", "id": "M-404"})),
    "final_answer": lambda r: (r / "output.txt").write_text("  \n"),
}


def test_every_rule_has_a_test():
    assert set(BREAKS) | {"too_large"} == set(RULES)


def test_good_bundle_is_clean(tmp_path: Path):
    assert lint_bundle(good_bundle(tmp_path / "b"), case=CASE) == []


@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_each_broken_rule_is_named(tmp_path: Path, rule: str):
    root = good_bundle(tmp_path / "b")
    BREAKS[rule](root)
    found = lint_bundle(root, case=CASE)
    assert rule in {f.rule for f in found}, found
    f = next(f for f in found if f.rule == rule)
    assert f.consequence == RULES[rule][1] and f.file


def test_too_large_file(tmp_path: Path):
    root = good_bundle(tmp_path / "b")
    found = lint_bundle(root, max_file_bytes=300)
    assert "too_large" in {f.rule for f in found}


def test_scope_against_the_case(tmp_path: Path):
    root = good_bundle(tmp_path / "b")
    _json(root, "evidences/workspace_evidence_report.json",
          lambda d: d["metadata"].update(cluster_id="prod-other"))
    found = lint_bundle(root, case=CASE)
    assert [f.message for f in found if f.rule == "cluster_id"] == [
        "cluster 'prod-other' is not the case's 'prod-tidb-017'"]


def test_cli_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    root = good_bundle(tmp_path / "b")
    assert main(["bundle", "lint", str(root)]) == 0
    shutil.rmtree(root / ".opencode")
    assert main(["bundle", "lint", str(root), "--json"]) == 3
    lines = [orjson.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert {x["rule"] for x in lines} >= {"milestone"}
    assert all(x["bucket"] == "workflow" for x in lines if x["rule"] == "milestone")
    assert main(["bundle", "lint", str(tmp_path / "nope")]) == 6
