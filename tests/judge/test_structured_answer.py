"""Structured root causes judged directly, on recorded bundles: a family (with the synonyms
judge.yaml declares) and a component stated as data decide the diagnosis; the prose
detectors become a consistency check whose disagreement is a named fact, shown beside the
structured decision in explain. One judge pass over every variant."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from rcaeval._paths import data_dir

CASE = "disk-full-tikv-001"  # truth: disk_full on tikv-0; synonyms declared in its judge.yaml
SAMPLE = data_dir() / "recorded" / "rec-thorough" / CASE
REPORT = "evidences/workspace_evidence_report.json"
WRONG_PROSE = "## Root cause\n\nA write hotspot on one region overloaded tikv-0.\n"

VARIANTS = {  # run id -> (report structured_root_cause, rca_response.json, output.txt)
    "exact": ({"family": "disk_full", "component": "tikv-0"}, None, None),
    "synonyms": ({"family": "No space left on device", "component": "STORE-1"}, None, None),
    "wrong-family": ({"family": "write_hotspot", "component": "tikv-0"}, None, None),
    "wrong-component": ({"family": "disk_full", "component": "tikv-2"}, None, None),
    "prose-wrong": ({"family": "disk_full", "component": "tikv-0"}, None, WRONG_PROSE),
    "contract": (None, {"root_cause": {"family": "enospc", "confidence": "high"}}, None),
    "prose-only": (None, None, None),
}


def _bundle(root: Path, run: str, structured, response, output) -> None:
    d = root / run / CASE
    shutil.copytree(SAMPLE, d)
    manifest = json.loads((d / "manifest.json").read_text())
    (d / "manifest.json").write_text(json.dumps({**manifest, "run_id": run}))
    if structured is not None:
        report = json.loads((d / REPORT).read_text())
        report["analysis"]["structured_root_cause"] = structured
        (d / REPORT).write_text(json.dumps(report))
    if response is not None:
        (d / "evidences" / "rca_response.json").write_text(json.dumps(response))
    if output is not None:
        (d / "output.txt").write_text(output)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    import rcaeval.store as st
    from rcaeval.judge import judge_audit

    if not SAMPLE.is_dir():
        pytest.skip("sample data not generated yet")
    tmp = tmp_path_factory.mktemp("structured")
    for run, spec in VARIANTS.items():
        _bundle(tmp / "rec", run, *spec)
    s = st.connect(":memory:")
    try:
        frame = judge_audit(s, tmp / "rec", data_dir() / "registry", out_dir=tmp / "out",
                            workers=1)
        facts = {(r, f): v for r, f, v in s.sql(
            "SELECT run_id, fact, value FROM eval_fact WHERE fact LIKE 'answer.%'").rows()}
        diag = {r: (st_, reason) for r, st_, reason in s.sql(
            "SELECT run_id, status, reason FROM eval_bucket WHERE bucket = 'diagnosis'").rows()}
    finally:
        s.close()
    verdicts = {r["run_id"]: r["verdict"] for r in frame.iter_rows(named=True)}
    return verdicts, facts, diag, tmp / "out"


@pytest.mark.parametrize(("run", "verdict", "family_ok", "disagree"), [
    ("exact", "pass", True, False),
    ("synonyms", "pass", True, False),
    ("wrong-family", "fail", False, True),
    ("wrong-component", "fail", True, True),
    ("prose-wrong", "pass", True, True),  # the structured answer decides; prose disagrees
    ("contract", "pass", True, False),    # an RCA response's family; it has no component
])
def test_the_structured_path_decides(judged, run, verdict, family_ok, disagree):
    verdicts, facts, diag, _ = judged
    assert verdicts[run] == verdict
    assert facts[(run, "answer.structured_root_cause")] is True
    assert facts[(run, "answer.structured_family_matches")] is family_ok
    assert facts[(run, "answer.structured_prose_disagree")] is disagree
    status, reason = diag[run]
    assert status == ("pass" if verdict == "pass" else "fail")
    assert reason.startswith("structured: ")
    assert ("prose hard checks disagree" in reason) is disagree


def test_without_a_structured_answer_the_prose_decides(judged):
    verdicts, facts, diag, _ = judged
    assert verdicts["prose-only"] == "pass"
    assert facts[("prose-only", "answer.structured_root_cause")] is False
    assert facts[("prose-only", "answer.structured_prose_disagree")] is False
    assert diag["prose-only"][1].startswith("prose: all 3 hard check(s) passed")


def test_explain_shows_both_paths_side_by_side(judged):
    from rcaeval.judge import explain_tree

    out = judged[3]
    packet = json.loads((out / "prose-wrong" / CASE / "judgment.json").read_text())
    checks = {c["check_id"]: c for b in packet["buckets"] if b["bucket"] == "diagnosis"
              for c in b["checks"]}
    assert checks["structured_root_cause"]["passed"] is True
    assert checks["identifies_disk_full"]["passed"] is False
    console = Console(record=True, width=250)
    console.print(explain_tree(packet))
    line = next(ln for ln in console.export_text().splitlines() if "decided by:" in ln)
    assert "structured pass: disk_full / tikv-0" in line
    assert "prose detectors (consistency) fail: failed identifies_disk_full" in line
    assert "disagree (answer.structured_prose_disagree)" in line
