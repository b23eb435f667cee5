"""The audit mirror: what is copied, what is skipped and why."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import orjson
import pytest

from rcaeval.runner import execute_case, mirror_audit

PY = sys.executable
AGENTS = Path(__file__).resolve().parent / "agents"


def test_agent_symlink_outside_is_skipped_and_the_run_continues(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, f"command:{PY} {AGENTS}/cmd_agent.py symlink",
                       case_dir=case_dir, timeout_s=30, **dirs)
    assert res.status == "completed"
    audit = res.audit_dir
    assert (audit / "evidences" / "real.json").is_file()
    assert not (audit / "evidences" / "hostname.json").exists()
    assert not (audit / "evidences" / "hostname.json").is_symlink()
    assert not (audit / "evidences" / "inside_link.json").exists()
    m = orjson.loads((audit / "manifest.json").read_bytes())
    skipped = {s["path"]: s for s in m["skipped"]}
    assert skipped["evidences/hostname.json"]["reason"] == "symlink_outside_workspace"
    assert skipped["evidences/hostname.json"]["target"] == "/etc/hostname"
    assert skipped["evidences/inside_link.json"]["reason"] == "symlink"
    assert not any(p.is_symlink() for p in audit.rglob("*"))


def test_mirror_rules(tmp_path):
    ws = tmp_path / "ws"
    (ws / "evidences").mkdir(parents=True)
    (ws / "evidences" / "metrics.json").write_text('{"series": []}')
    (ws / "evidences" / "big.json").write_bytes(b"x" * 2048)
    os.mkfifo(ws / "evidences" / "pipe.json")
    os.link(ws / "evidences" / "metrics.json", ws / "evidences" / "hard_inside.json")
    (tmp_path / "secret.txt").write_text("outside the workspace")
    os.link(tmp_path / "secret.txt", ws / "evidences" / "hard.json")
    (ws / "workspace" / "ws-1" / "evidences").mkdir(parents=True)
    (ws / "workspace" / "ws-1" / "evidences" / "workspace_evidence_report.json").write_text("{}")
    (ws / "output.txt").write_text("answer")
    (ws / "scratch.py").write_text("not part of the bundle")
    (ws / "outside").mkdir()
    (ws / "outside" / "telemetry.log").write_text("{}")
    os.symlink(ws / "outside", ws / ".opencode")  # a symlinked dir on the telemetry path
    (ws / "logs").mkdir()
    os.symlink("/etc", ws / "logs" / "etc")
    (ws / "manifest.json").write_text('{"forged": true}')

    m = mirror_audit(ws, tmp_path / "audit" / "r" / "c", {"run_id": "r", "status": "completed"},
                     max_file_bytes=1024)
    audit = tmp_path / "audit" / "r" / "c"
    files = {f["path"]: f for f in m["files"]}
    assert set(files) == {"evidences/metrics.json", "evidences/hard_inside.json", "output.txt",
                          "workspace/ws-1/evidences/workspace_evidence_report.json"}
    assert files["output.txt"]["sha256"] == hashlib.sha256(b"answer").hexdigest()
    assert files["output.txt"]["size"] == 6
    reasons = {s["path"]: s["reason"] for s in m["skipped"]}
    assert reasons == {"evidences/big.json": "too_large", "evidences/pipe.json":
                       "not_regular_file", "evidences/hard.json": "hardlink_outside_workspace",
                       ".opencode": "symlink", "logs/etc": "symlink_outside_workspace"}
    written = orjson.loads((audit / "manifest.json").read_bytes())
    assert written == m and "forged" not in written
    assert not (audit / "scratch.py").exists()
    assert [p.name for p in (tmp_path / "audit" / "r").iterdir()] == ["c"]  # no partial dirs
    with pytest.raises(FileExistsError):
        mirror_audit(ws, audit, {"run_id": "r"})
    m2 = mirror_audit(ws, audit, {"run_id": "r2"}, overwrite=True)
    assert orjson.loads((audit / "manifest.json").read_bytes())["run_id"] == "r2" == m2["run_id"]
