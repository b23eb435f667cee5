"""Fixtures for report/baseline tests: a store with hand-written judge rows, a tiny registry
and audit dirs. Helpers are plain functions so tests can add runs of their own."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
import yaml

import rcaeval.store as st
from rcaeval.registry import CaseSpec, JudgeSpec, SuiteSpec
from rcaeval.registry._suite import SuiteCase
from rcaeval.store import BUCKET_ORDER

SUITE = "smoke"
T0 = datetime(2026, 10, 3, 14, 0, tzinfo=UTC)
SUITE_CASES = {  # case_id -> suite status
    "case-a": "active", "case-b": "active", "case-c": "active", "case-d": "active",
    "case-q": "quarantined",
}
BASE_CASES = {  # case_id -> (verdict, score)
    "case-a": ("pass", 85.0), "case-b": ("pass", 80.0), "case-c": ("fail", 40.0),
    "case-d": ("pass", 90.0), "case-q": ("pass", 75.0),
}
WORSE_CASES = {
    "case-a": ("pass", 85.0), "case-b": ("fail", 45.0), "case-c": ("fail", 40.0),
    "case-q": ("fail", 30.0), "case-e": ("pass", 88.0),
}
BUCKET_MAX = {"contract": 0.0, "workflow": 10.0, "execution_contract": 0.0,
              "evidence_collection": 5.0, "critical_evidence": 30.0, "evidence_routing": 5.0,
              "diagnosis": 50.0}


def write_registry(root: Path, *, version: str = "1.0", extra: tuple[str, ...] = ()) -> Path:
    """A valid registry: suite ``smoke`` over SUITE_CASES (+ ``extra`` active cases)."""
    cases = {**SUITE_CASES, **{c: "active" for c in extra}}
    suite = SuiteSpec(suite_id=SUITE, version=version, description="test suite",
                      cases=[SuiteCase(id=c, status=s) for c, s in cases.items()])
    (root / "suites").mkdir(parents=True, exist_ok=True)
    (root / "suites" / f"{SUITE}.yaml").write_text(
        yaml.safe_dump(suite.model_dump(mode="json"), sort_keys=False))
    for cid in cases:
        d = root / "cases" / cid
        d.mkdir(parents=True, exist_ok=True)
        case = CaseSpec.model_validate({
            "case_id": cid, "title": f"title of {cid}", "case_type": "known",
            "prompt": {"text": "Find the root cause."},
            "environment": {"cluster_id": "prod-1"},
            "time_window": {"start": "2026-10-03T14:00:00Z", "end": "2026-10-03T15:00:00Z"},
        })
        judge = JudgeSpec.model_validate({
            "case_id": cid,
            "ground_truth": {"root_cause": {"family": "storage_node_panic", "summary": "x"}},
            "judge": {
                "critical_evidence": {"checks": [
                    {"id": "panic_seen", "all_of": [{"fact": "signal.panic_present"}]}]},
                "diagnosis": {"hard_checks": [
                    {"id": "names_family", "all_of": [{"fact": "workflow.final_answer_emitted"}]}]},
            },
        })
        (d / "case.yaml").write_text(yaml.safe_dump(
            case.model_dump(mode="json", exclude_defaults=True), sort_keys=False))
        (d / "judge.yaml").write_text(yaml.safe_dump(
            judge.model_dump(mode="json", exclude_defaults=True, by_alias=True), sort_keys=False))
    return root


def _buckets(run_id: str, cid: str, verdict: str | None) -> list[dict[str, Any]]:
    rows = []
    for b in BUCKET_ORDER:
        status = "pass"
        if verdict == "fail" and b == "diagnosis":
            status = "fail"
        if verdict == "invalid" and b == "contract":
            status = "fail"
        mx = BUCKET_MAX[b]
        rows.append({"run_id": run_id, "case_id": cid, "bucket": b, "status": status,
                     "score": mx if status == "pass" else 0.0, "max_score": mx,
                     "reason": f"{b} {status}"})
    return rows


def _checks(run_id: str, cid: str, verdict: str | None) -> list[dict[str, Any]]:
    ok = verdict == "pass"
    return [
        {"run_id": run_id, "case_id": cid, "bucket": "critical_evidence",
         "check_id": "panic_seen", "kind": "check", "required": True, "weight": 1.0,
         "passed": True, "reason": "panic line found", "evidence_file": "logs/tikv-2.log",
         "evidence_line": 2, "evidence_excerpt": "[panic] corrupted raft entry"},
        {"run_id": run_id, "case_id": cid, "bucket": "diagnosis", "check_id": "names_family",
         "kind": "hard", "required": True, "weight": 1.0, "passed": ok,
         "reason": "detector asserts_storage_panic " + ("fired" if ok else "did not fire"),
         "evidence_file": "output.txt", "evidence_line": 3},
        {"run_id": run_id, "case_id": cid, "bucket": "diagnosis", "check_id": "names_instance",
         "kind": "supporting", "required": False, "weight": 2.0, "passed": ok,
         "reason": "instance tikv-2 " + ("named" if ok else "not named")},
        {"run_id": run_id, "case_id": cid, "bucket": "diagnosis", "check_id": "names_mechanism",
         "kind": "supporting", "required": False, "weight": 1.0, "passed": True,
         "reason": "mechanism named"},
    ]


def add_run(
    store: st.Store,
    run_id: str,
    cases: dict[str, tuple[str | None, float | None]],
    *,
    status: str = "completed",
    suite_id: str | None = SUITE,
    suite_version: str | None = "1.0",
    case_status: dict[str, str] | None = None,
    audit_root: Path | None = None,
) -> None:
    """Insert one run: eval_runs, eval_case_runs, eval_judgment (cases with a verdict),
    eval_bucket and eval_check rows. A verdict of None leaves the case unjudged."""
    case_status = case_status or {}
    finished = T0 + timedelta(minutes=10) if status == "completed" else None
    store.write_frame("eval_runs", pl.DataFrame([{
        "run_id": run_id, "suite_id": suite_id, "suite_version": suite_version,
        "agent_spec": "replay:thorough", "agent_hash": "h1", "source": "runner",
        "audit_root": str(audit_root) if audit_root else None, "status": status,
        "started_at": T0, "finished_at": finished, "judge_version": "0.1.0",
    }]))
    case_runs, judgments, buckets, checks = [], [], [], []
    for i, (cid, (verdict, score)) in enumerate(sorted(cases.items())):
        cstatus = case_status.get(cid, "judged")
        case_runs.append({
            "run_id": run_id, "case_id": cid, "status": cstatus, "attempts": 1,
            "workspace_id": f"ws-{cid}", "started_at": T0 + timedelta(minutes=i),
            "finished_at": T0 + timedelta(minutes=i, seconds=62), "duration_s": 62.5 + i,
            "input_tokens": 1000 * (i + 1), "output_tokens": 100, "cache_read_tokens": 50,
            "cache_write_tokens": 0, "cost_usd": 0.0125,
            "error": "agent crashed: exit 1" if cstatus == "errored" else None,
        })
        if verdict is None:
            continue
        packet = orjson.dumps({"case_id": cid, "verdict": verdict, "score": score},
                              option=orjson.OPT_SORT_KEYS).decode()
        judgments.append({
            "run_id": run_id, "case_id": cid, "verdict": verdict,
            "subtype": {"pass": "diagnosis_pass", "fail": "diagnosis_fail",
                        "invalid": "contract_fail"}[verdict],
            "score": score, "raw_score": score, "hard_gate": verdict == "pass",
            "case_type": "known", "scoring_profile": "default", "judge_version": "0.1.0",
            "rules_hash": "abc123def4567890", "reason": f"{cid} is {verdict}",
            "judgment_json": packet, "judged_at": T0 + timedelta(minutes=11),
        })
        buckets += _buckets(run_id, cid, verdict)
        checks += _checks(run_id, cid, verdict)
    store.write_frame("eval_case_runs", pl.DataFrame(case_runs))
    if judgments:
        store.write_frame("eval_judgment", pl.DataFrame(judgments))
        store.write_frame("eval_bucket", pl.DataFrame(buckets))
        store.write_frame("eval_check", pl.DataFrame(checks))


def write_audit(audit_root: Path, run_id: str, case_ids: list[str]) -> None:
    """Audit dirs: output.txt, evidences/ (with a nested file), a semantic packet on case-a,
    and a symlink that must never be copied."""
    for cid in case_ids:
        d = audit_root / run_id / cid
        (d / "evidences" / "sub").mkdir(parents=True, exist_ok=True)
        (d / "output.txt").write_text(f"# Root cause\n{cid}: tikv-2 panicked.\n")
        (d / "evidences" / "metrics.json").write_text('{"series": []}')
        (d / "evidences" / "workspace_evidence_report.json").write_text('{"metadata": {}}')
        (d / "evidences" / "sub" / "note.txt").write_text("nested")
        (d / "evidences" / "link.json").symlink_to(d / "output.txt")
        if cid == "case-a":
            (d / "semantic_packet_v1.json").write_text('{"shadow_available": false}')


@dataclass
class Env:
    root: Path
    store: st.Store
    registry: Path
    audits: Path
    db: Path


AUDITS = "audits"


@pytest.fixture(scope="session")
def _template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runs of :func:`env`, built once; ``audit_root`` is recorded relative (``audits``)
    and rewritten per test."""
    db = tmp_path_factory.mktemp("template") / "s.duckdb"
    with st.connect(db) as store:
        add_run(store, "base-1", BASE_CASES, audit_root=Path(AUDITS))
        add_run(store, "rerun-1", BASE_CASES, audit_root=Path(AUDITS))
        add_run(store, "worse-1", WORSE_CASES, audit_root=Path(AUDITS))
    return db


@pytest.fixture
def env(tmp_path: Path, _template_db: Path) -> Iterator[Env]:
    """A store with run ``base-1`` (the future baseline, audited), ``rerun-1`` (identical),
    ``worse-1`` (b pass→fail, q quarantined pass→fail, d missing, e new), and a registry."""
    db = tmp_path / "s.duckdb"
    shutil.copyfile(_template_db, db)
    store = st.connect(db)
    audits = tmp_path / AUDITS
    store.con.execute("UPDATE eval_runs SET audit_root = ?", [str(audits)])
    registry = write_registry(tmp_path / "registry")
    write_audit(audits, "base-1", list(BASE_CASES))
    yield Env(tmp_path, store, registry, audits, db)
    store.close()
