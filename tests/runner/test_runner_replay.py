"""The replay adapter: on a synthetic recording, and on data/recorded when it exists."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
import yaml

from rcaeval._paths import data_dir
from rcaeval.runner import execute_case, parse_agent_spec


def _record(run_dir: Path, case_id: str, status: str) -> Path:
    d = run_dir / case_id
    (d / "evidences").mkdir(parents=True)
    (d / "evidences" / "workspace_evidence_report.json").write_text('{"metadata": {}}')
    (d / "output.txt").write_text("## Root cause\n\nrecorded answer\n")
    (d / "transcript.json").write_text(orjson.dumps([
        {"turn": 1, "role": "user", "text": "q"},
        {"turn": 1, "role": "assistant", "text": "recorded answer"}]).decode())
    os.symlink("/etc/hostname", d / "evidences" / "host.json")
    (d / "manifest.json").write_text(orjson.dumps({
        "run_id": "rec-x", "case_id": case_id, "workspace_id": "ws-rec", "status": status,
        "agent": {"name": "replay", "behaviour": "x"},
        "usage": {"input_tokens": 7, "output_tokens": 3, "cache_read_tokens": 0,
                  "cache_write_tokens": 0, "cost_usd": 0.01}}).decode())
    return d


def test_replay_of_a_synthetic_recording(tmp_path, make_case, dirs):
    run_dir = tmp_path / "recorded" / "rec-x"
    _record(run_dir, "case-a", "completed")
    case, case_dir = make_case()
    res = execute_case("live-1", case, f"replay:{run_dir}", case_dir=case_dir, timeout_s=10,
                       **dirs)
    assert res.status == "completed"
    assert res.final_text.startswith("## Root cause")
    assert res.usage["input_tokens"] == 7 and res.usage["cost_usd"] == 0.01
    m = orjson.loads((res.audit_dir / "manifest.json").read_bytes())
    assert m["run_id"] == "live-1" and m["workspace_id"] == res.workspace_id  # runner's own
    assert m["agent"]["name"] == "replay"
    assert (res.audit_dir / "evidences" / "workspace_evidence_report.json").is_file()
    assert not (res.audit_dir / "evidences" / "host.json").exists()
    tr = orjson.loads((res.audit_dir / "transcript.json").read_bytes())
    assert tr[1]["text"] == "recorded answer"


def test_replay_of_a_crashed_recording_and_a_missing_one(tmp_path, make_case, dirs):
    run_dir = tmp_path / "recorded" / "rec-x"
    _record(run_dir, "case-a", "crashed")
    case, case_dir = make_case()
    res = execute_case("r", case, f"replay:{run_dir}", case_dir=case_dir, timeout_s=10, **dirs)
    assert res.status == "crashed" and res.attempts == 1
    case_b, dir_b = make_case("case-b")
    res_b = execute_case("r", case_b, f"replay:{run_dir}", case_dir=dir_b, timeout_s=10,
                         max_infra_retries=3, **dirs)
    assert res_b.status == "errored" and res_b.attempts == 1
    assert "no recording" in res_b.error


def test_replay_spec_names_the_data_dir():
    agent = parse_agent_spec("replay:thorough")
    assert agent.info()["recorded_run"] == str(data_dir() / "recorded" / "rec-thorough")


def _sample() -> tuple[Path, Path] | None:
    rec, reg = data_dir() / "recorded", data_dir() / "registry" / "cases"
    if not rec.is_dir() or not reg.is_dir():
        return None
    return rec, reg


@pytest.mark.skipif(_sample() is None,
                    reason="no data/recorded + data/registry sample generated yet")
def test_replay_of_the_shipped_sample(dirs):
    rec, reg = _sample()  # type: ignore[misc]
    runs = sorted(p for p in rec.iterdir() if p.is_dir() and p.name.startswith("rec-"))
    assert runs, "data/recorded holds no rec-<behaviour> dir"
    checked = 0
    for run_dir in runs:
        for case_rec in sorted(p for p in run_dir.iterdir() if p.is_dir())[:2]:
            case_dir = reg / case_rec.name
            if not (case_dir / "case.yaml").is_file():
                continue
            case = yaml.safe_load((case_dir / "case.yaml").read_text())
            want = orjson.loads((case_rec / "manifest.json").read_bytes()).get("status")
            res = execute_case("replay-sample", case, f"replay:{run_dir.name[4:]}",
                               case_dir=case_dir, timeout_s=30, overwrite_audit=True, **dirs)
            assert res.status == want, (run_dir.name, case_rec.name, res.error)
            if want == "completed":
                assert (res.audit_dir / "output.txt").read_text() == \
                    (case_rec / "output.txt").read_text()
            checked += 1
    assert checked


@pytest.mark.skipif(_sample() is None, reason="no data/registry sample generated yet")
def test_example_agent_on_a_shipped_sample_case(dirs):
    import sys

    _rec, reg = _sample()  # type: ignore[misc]
    cases = sorted(p for p in reg.iterdir() if (p / "incident").is_dir())
    if not cases:
        pytest.skip("no sample case ships incident data")
    case_dir = cases[0]
    case = yaml.safe_load((case_dir / "case.yaml").read_text())
    res = execute_case("example-sample", case,
                       f"acp:{sys.executable} -m rcaeval.examples.example_agent",
                       case_dir=case_dir, timeout_s=60, **dirs)
    assert res.status == "completed", res.error
    assert (res.audit_dir / "evidences" / "workspace_evidence_report.json").is_file()
    assert "## Root cause" in res.final_text
