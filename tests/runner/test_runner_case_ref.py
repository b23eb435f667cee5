"""The case id is ground truth's side channel: agents see an opaque case reference instead
(docs/agents.md, "What the agent sees"), unless the run exposes case ids."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import orjson

from rcaeval.runner import execute_case, opaque_case_ref

PY = sys.executable
AGENTS = Path(__file__).resolve().parent / "agents"
# A descriptive id that names the answer, like the shipped sample's.
LEAKY_ID = "tikv-panic-restart-leaky-042"
SNOOP = f"command:{PY} {AGENTS}/cmd_agent.py snoop {{prompt_file}}"
EXAMPLE_ACP = f"acp:{PY} -m rcaeval.examples.example_agent"


def _every_visible_text(ws: Path) -> str:
    """Every path and file content under the workspace (what the agent could read or wrote),
    the runner-owned ``.rcaeval/`` included."""
    chunks = [str(ws)]
    for dirpath, dirs, files in os.walk(ws):
        for name in [*dirs, *files]:
            chunks.append(str(Path(dirpath) / name))
        for name in files:
            p = Path(dirpath) / name
            if not p.is_symlink():
                chunks.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(chunks)


def test_agent_sees_only_an_opaque_case_reference(make_case, dirs, panic_incident):
    case, case_dir = make_case(LEAKY_ID, incident=panic_incident,
                               followups=["Which evidence shows it?"])
    res = execute_case("run-opaque", case, SNOOP, case_dir=case_dir, timeout_s=30,
                       keep_workspace=True, **dirs)
    assert res.status == "completed", res.error
    ws = dirs["workspace_root"] / "run-opaque" / res.workspace_id
    turn1 = (ws / "output.txt").read_text()
    turn2 = (ws / ".rcaeval" / "turn-2.stdout").read_text()
    ref = res.case_ref
    assert ref == opaque_case_ref("run-opaque", LEAKY_ID)
    assert re.fullmatch(r"case-[0-9a-f]{10}", ref or "")
    # the snooper really dumped its argv, cwd, env, prompt and the workspace's files ...
    for dump in (turn1, turn2):
        assert f'"RCAEVAL_CASE_ID": "{ref}"' in dump
        assert f"CWD:\n{ws}" in dump and "prompt" in dump.split("ARGV:", 1)[1][:400]
        assert f"FILE {ws}/case.json" in dump and "corrupted raft entry" in dump
    assert "Which evidence shows it?" in turn2  # the follow-up's prompt file
    # ... and the case id is nowhere in it, nor anywhere in the workspace
    for text in (turn1, turn2, _every_visible_text(ws)):
        assert LEAKY_ID not in text
    assert orjson.loads((ws / "case.json").read_bytes())["case_id"] == ref
    # runner-side the real id is kept: audit dir name and manifest
    assert res.case_id == LEAKY_ID and res.audit_dir.name == LEAKY_ID
    manifest = orjson.loads((res.audit_dir / "manifest.json").read_bytes())
    assert manifest["case_id"] == LEAKY_ID and manifest["case_ref"] == ref
    assert manifest["case_ids_exposed"] is False
    assert orjson.loads((res.audit_dir / "case.json").read_bytes())["case_id"] == ref


def test_acp_agent_never_receives_the_case_id(make_case, dirs, panic_incident):
    case, case_dir = make_case(LEAKY_ID, incident=panic_incident, followups=["And?"])
    res = execute_case("run-acp", case, EXAMPLE_ACP, case_dir=case_dir, timeout_s=60,
                       keep_workspace=True, **dirs)
    assert res.status == "completed", res.error
    ws = dirs["workspace_root"] / "run-acp" / res.workspace_id
    log = [orjson.loads(line) for line in (ws / ".rcaeval" / "acp.jsonl").read_bytes()
           .splitlines()]
    sent = [m["msg"] for m in log if m["dir"] == "out"]
    assert {m.get("method") for m in sent} >= {"initialize", "session/new", "session/prompt"}
    # nothing the runner sent over ACP (session/new params, _meta, prompts, fs replies) ...
    assert LEAKY_ID not in orjson.dumps(sent).decode()
    # ... nor anything in the workspace, including what the agent wrote from what it saw
    assert LEAKY_ID not in _every_visible_text(ws)
    assert (ws / "evidences").is_dir()  # the example agent did investigate
    assert orjson.loads((res.audit_dir / "manifest.json").read_bytes())["case_id"] == LEAKY_ID


def test_expose_case_ids_shows_the_real_id(make_case, dirs):
    case, case_dir = make_case(LEAKY_ID)
    res = execute_case("run-exposed", case, SNOOP, case_dir=case_dir, timeout_s=30,
                       keep_workspace=True, expose_case_ids=True, **dirs)
    assert res.status == "completed", res.error
    ws = dirs["workspace_root"] / "run-exposed" / res.workspace_id
    assert f'"RCAEVAL_CASE_ID": "{LEAKY_ID}"' in (ws / "output.txt").read_text()
    assert orjson.loads((ws / "case.json").read_bytes())["case_id"] == LEAKY_ID
    manifest = orjson.loads((res.audit_dir / "manifest.json").read_bytes())
    assert manifest["case_ref"] == LEAKY_ID and manifest["case_ids_exposed"] is True


def test_case_reference_is_stable_per_run_and_keyed(make_case, dirs):
    a = opaque_case_ref("r1", LEAKY_ID)
    assert a == opaque_case_ref("r1", LEAKY_ID)
    assert a != opaque_case_ref("r2", LEAKY_ID) != opaque_case_ref("r1", "other-001")
    keyed = opaque_case_ref("r1", LEAKY_ID, "k1")
    assert keyed != a and keyed != opaque_case_ref("r1", LEAKY_ID, "k2")
    # every attempt of a case (infrastructure retries) gets the same reference
    case, case_dir = make_case(LEAKY_ID)
    res = execute_case("r1", case, f"command:{PY} {AGENTS}/cmd_agent.py crash",
                       case_dir=case_dir, timeout_s=30, max_infra_retries=1,
                       case_ref_key="k1", **dirs)
    assert res.attempts == 2 and res.case_ref == keyed
