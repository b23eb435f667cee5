"""Workspaces and the information boundary."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest

from rcaeval.errors import InputError
from rcaeval.runner import (
    agent_env,
    create_workspace,
    execute_case,
    parse_env_args,
    to_run_case,
)

PY = sys.executable
AGENTS = Path(__file__).resolve().parent / "agents"
SECRET = "ZZSECRET-7f3a9c-TOKEN"


def _all_text(root: Path) -> str:
    chunks = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            chunks.append(str(p))
            if not p.is_symlink():
                chunks.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(chunks)


def test_boundary_secret_never_reaches_the_agent(make_case, dirs, panic_incident, monkeypatch):
    monkeypatch.setenv("RCAEVAL_PARENT_ONLY", SECRET)
    case, case_dir = make_case(incident=panic_incident, secret=SECRET,
                               followups=["Which evidence shows it?"])
    # the judge-only material does hold the token
    assert SECRET in (case_dir / "judge.yaml").read_text()
    assert SECRET in (case_dir / "expected.md").read_text()
    res = execute_case("run-b", case, f"command:{PY} {AGENTS}/cmd_agent.py snoop",
                       case_dir=case_dir, timeout_s=30, keep_workspace=True, **dirs)
    assert res.status == "completed", res.error
    ws = dirs["workspace_root"] / "run-b" / res.workspace_id
    out = (ws / "output.txt").read_text()
    # the snooper really did read the workspace, the env and the prompt ...
    assert "prod-tidb-017" in out and "RCAEVAL_CASE_ID" in out
    assert "corrupted raft entry" in out and "Find the root cause" in out
    assert f"FILE {ws}/case.json" in out
    # ... and the token is nowhere: not in the workspace, its env, its outputs or the audit
    assert SECRET not in out
    assert SECRET not in _all_text(ws)
    assert SECRET not in _all_text(res.audit_dir)
    case_json = orjson.loads((ws / "case.json").read_bytes())
    assert set(case_json) == {"case_id", "prompt", "environment", "time_window",
                              "followup_count", "max_turns"}
    assert case_json["followup_count"] == 1


def test_workspace_contents_and_env(make_case, panic_incident, tmp_path):
    case, case_dir = make_case(incident=panic_incident)
    ws = create_workspace(tmp_path / "w", case, case_dir=case_dir, run_id="r1")
    names = sorted(os.listdir(ws.path))
    assert names == [".home", ".rcaeval", ".tmp", "case.json", "incident", "prompt.md"]
    assert ws.prompt_file.read_text().startswith("Alert: p99")
    assert (ws.path / "incident" / "logs" / "tikv-2.log").is_file()
    assert not any(p.is_symlink() for p in ws.path.rglob("*"))
    env = agent_env(ws, {"EXTRA": "1", "PATH_LIKE": None, "HOME_OVERRIDE": "x"})
    assert env["HOME"] == str(ws.home) and env["RCAEVAL_WORKSPACE"] == str(ws.path)
    assert env["RCAEVAL_CLUSTER_ID"] == "prod-tidb-017"
    assert env["RCAEVAL_WINDOW_START"] == "2026-10-03T14:00:00Z"
    assert env["EXTRA"] == "1" and "PATH_LIKE" not in env
    assert "USER" not in env and "PWD" not in env


def test_symlink_and_judge_files_in_incident_are_refused(make_case, tmp_path):
    case, case_dir = make_case(incident={"topology.json": {}})
    os.symlink("/etc/hostname", case_dir / "incident" / "host.json")
    with pytest.raises(InputError, match="symlink"):
        create_workspace(tmp_path / "w", case, case_dir=case_dir)
    assert list((tmp_path / "w").iterdir()) == []  # nothing half-made is left behind
    case2, dir2 = make_case("case-b", incident={"expected.md": "leak"})
    with pytest.raises(InputError, match="judge-only"):
        create_workspace(tmp_path / "w2", case2, case_dir=dir2)


def test_to_run_case_accepts_models_and_mappings(tmp_path):
    model = SimpleNamespace(
        case_id="m1", title="hint", case_type="novel", tags=["hint"],
        prompt=SimpleNamespace(text="why?"),
        environment=SimpleNamespace(cluster_id="c-1", product=None, region="eu"),
        time_window=SimpleNamespace(start=datetime(2026, 1, 1, 12, tzinfo=UTC),
                                    end=datetime(2026, 1, 1, 13), tolerance_s=60),
        execution=SimpleNamespace(max_turns=2, timeout_s=5),
        followup=[SimpleNamespace(text="and?")], incident_data=None)
    rc = to_run_case(model)
    assert rc.window_start == "2026-01-01T12:00:00Z" and rc.window_end == "2026-01-01T13:00:00Z"
    assert rc.turns() == ["why?", "and?"] and rc.timeout_s == 5.0
    assert "hint" not in orjson.dumps(rc.case_json("case-0123456789")).decode()
    with pytest.raises(InputError):
        to_run_case({"case_id": "x"})
    bad_dir = tmp_path / "c"
    bad_dir.mkdir()
    with pytest.raises(InputError, match="leaves the case dir"):
        to_run_case({"case_id": "x", "prompt": {"text": "p"}, "incident_data": "../.."},
                    case_dir=bad_dir)


def test_parse_env_args():
    assert parse_env_args(["A=1", "B", "C="]) == {"A": "1", "B": None, "C": ""}
    with pytest.raises(InputError):
        parse_env_args(["=x"])


def test_registry_models_are_accepted(make_case, panic_incident, tmp_path):
    from rcaeval.registry import CaseSpec

    case, case_dir = make_case(incident=panic_incident, secret=SECRET)
    spec = CaseSpec.model_validate(case)
    merged = SimpleNamespace(case=spec, case_dir=case_dir, incident_dir=case_dir / "incident",
                             judge=SimpleNamespace(ground_truth=SECRET), expected_md=None)
    rc = to_run_case(merged)
    assert rc.case_id == "case-a" and rc.window_start == "2026-10-03T14:00:00Z"
    assert rc.incident_dir == case_dir / "incident"
    ws = create_workspace(tmp_path / "w", merged)
    assert SECRET not in _all_text(ws.path)
    assert (ws.path / "incident" / "logs" / "tikv-2.log").is_file()
    assert to_run_case(spec, case_dir=case_dir).incident_dir == case_dir / "incident"
