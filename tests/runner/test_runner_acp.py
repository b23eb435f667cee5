"""The ACP adapter end to end (real agent subprocesses) and the 0.12 library traps."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import orjson

from rcaeval.runner import execute_case, opaque_case_ref
from rcaeval.runner._acp import AcpAgent
from rcaeval.runner._proc import processes_under

PY = sys.executable
AGENTS = Path(__file__).resolve().parent / "agents"
TRAP = f"acp:{PY} {AGENTS}/acp_trap_agent.py"
EXAMPLE = f"acp:{PY} -m rcaeval.examples.example_agent"


def _rpc_log(audit: Path) -> list[dict]:
    return [orjson.loads(line) for line in
            (audit / ".rcaeval" / "acp.jsonl").read_bytes().splitlines()]


def _telemetry(audit: Path) -> list[dict]:
    return [orjson.loads(line) for line in
            (audit / ".opencode" / "telemetry.log").read_bytes().splitlines()]


def test_example_agent_end_to_end(make_case, dirs, panic_incident):
    case, case_dir = make_case(incident=panic_incident,
                               followups=["Which evidence most directly shows the mechanism?"])
    res = execute_case("r-acp", case, EXAMPLE, case_dir=case_dir, timeout_s=60, **dirs)
    assert res.status == "completed", res.error
    audit = res.audit_dir
    # the bundle
    ev = audit / "evidences"
    report = orjson.loads((ev / "workspace_evidence_report.json").read_bytes())
    assert report["metadata"]["cluster_id"] == "prod-tidb-017"
    assert report["metadata"]["time_window"]["start"] == "2026-10-03T14:00:00Z"
    for name in ("metrics.json", "queries.json", "logs.json", "events.json",
                 "component_health.json", "ticket_context.json"):
        assert (ev / name).is_file(), name
    tele = _telemetry(audit)
    events = {e["event"] for e in tele}
    assert {"architecture_context.loaded", "guardrails.loaded", "diagnosis_run.initialized",
            "evidence_collection.completed", "summary.read", "log_query.completed",
            "tool.call"} <= events
    # the bundle was recorded by the incident tools the runner handed over in session/new
    log = _rpc_log(audit)
    new = next(m for m in log if m["msg"].get("method") == "session/new")
    server = new["msg"]["params"]["mcpServers"][0]
    assert server["name"] == "rcaeval"
    assert server["args"][:4] == ["-P", "-m", "rcaeval.tools", "serve"]
    mcp_tools = {e["tool"] for e in tele if e["event"] == "tool.call" and "source" not in e}
    assert {"get_ticket", "search_logs", "query_metrics", "submit_report"} <= mcp_tools
    # the answer, streamed as chunks
    out = (audit / "output.txt").read_text()
    assert out == res.final_text
    assert out.startswith("## Root cause") and "TiKV storage node panic on tikv-2" in out
    for heading in ("## Evidence", "## Ruled out", "## Recommended actions"):
        assert heading in out
    # routing: every patch ref names a collected id
    patch = orjson.loads((audit / "analysis_patch.json").read_bytes())
    ids = {e["id"] for e in orjson.loads((ev / "logs.json").read_bytes())["entries"]}
    ids |= {s["id"] for s in orjson.loads((ev / "metrics.json").read_bytes())["series"]}
    ids |= {e["id"] for e in orjson.loads((ev / "events.json").read_bytes())["events"]}
    refs = [r["id"] for item in patch["items"] for r in item["refs"]]
    assert refs and set(refs) <= ids
    # notes were written through the client's fs/write_text_file, inside the workspace
    assert any(m["msg"].get("method") == "fs/write_text_file" for m in log)
    # follow-up: a further turn of the same session
    tr = orjson.loads((audit / "transcript.json").read_bytes())
    assert [t["turn"] for t in tr] == [1, 1, 2, 2]
    assert "L-tikv-2-00002" in tr[3]["text"] and tr[3]["stop_reason"] == "end_turn"
    prompts = [m for m in log if m["msg"].get("method") == "session/prompt"]
    assert len(prompts) == 2
    assert len({p["msg"]["params"]["sessionId"] for p in prompts}) == 1
    # usage: all three kinds of report recorded raw, plus normalised totals
    sources = {r["source"] for r in res.manifest["usage"]["reported"]}
    assert {"prompt_response", "usage_update"} <= sources
    assert any(r.get("_meta") for r in res.manifest["usage"]["reported"])
    assert res.usage["input_tokens"] > 0 and res.usage["cost_usd"] == 0.0
    assert res.manifest["agent"]["agent_info"]["name"] == "rcaeval-example-agent"


def test_stderr_flood_does_not_deadlock(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, f"{TRAP} stderr_flood", case_dir=case_dir, timeout_s=300,
                       **dirs)
    # a deadlock would end timed_out; no wall-clock bound (a loaded machine is not a bug)
    assert res.status == "completed", res.error
    assert res.final_text.startswith("ok Alert")
    assert (res.audit_dir / ".rcaeval" / "agent.stderr").stat().st_size >= 3 * 1024 * 1024


def test_hanging_prompt_times_out_sends_cancel_and_kills_the_group(make_case, dirs):
    case, case_dir = make_case()
    agent = AcpAgent(f"{TRAP} hang", [PY, str(AGENTS / "acp_trap_agent.py"), "hang"],
                     cancel_grace_s=0.5)
    t0 = time.monotonic()
    res = execute_case("r", case, agent, case_dir=case_dir, timeout_s=300,
                       turn_timeout_s=1.0, keep_workspace=True, **dirs)
    assert res.status == "timed_out"
    # the 1 s turn timeout fired, not the 300 s case deadline (generous: a loaded CI box and
    # the PID-namespace init's TERM grace)
    assert time.monotonic() - t0 < 150
    assert "cancel sent" in res.error
    cancels = [m for m in _rpc_log(res.audit_dir)
               if m["dir"] == "out" and m["msg"].get("method") == "session/cancel"]
    assert len(cancels) == 1
    ws = dirs["workspace_root"] / "r" / res.workspace_id
    assert (ws / "cancel_received").read_text() == "yes"  # the agent got it
    deadline = time.monotonic() + 5
    while processes_under(ws) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_under(ws) == [], "the agent's child survived"


def test_unknown_session_update_kind_is_kept_in_the_raw_log(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, f"{TRAP} unknown_update", case_dir=case_dir, timeout_s=20,
                       **dirs)
    assert res.status == "completed"
    assert res.final_text.startswith("ok Alert")
    kinds = [m["msg"]["params"]["update"]["sessionUpdate"] for m in _rpc_log(res.audit_dir)
             if m["msg"].get("method") == "session/update"]
    assert "weird_future_kind" in kinds
    tel = [e for e in _telemetry(res.audit_dir) if e["event"] == "acp.unknown_update"]
    assert tel and "weird_future_kind" in tel[0]["detail"]


def test_agent_environment_is_explicit(make_case, dirs, monkeypatch):
    monkeypatch.setenv("RCAEVAL_TEST_PARENT_ONLY", "leak")
    monkeypatch.setenv("RCAEVAL_TEST_INHERIT", "inherited")
    case, case_dir = make_case()
    res = execute_case("r", case, f"{TRAP} env", case_dir=case_dir, timeout_s=20,
                       agent_env={"FOO": "bar", "RCAEVAL_TEST_INHERIT": None}, **dirs)
    env = json.loads(res.final_text)
    assert env["FOO"] == "bar" and env["RCAEVAL_TEST_INHERIT"] == "inherited"
    assert "RCAEVAL_TEST_PARENT_ONLY" not in env
    # an opaque case reference, not the case id (docs/agents.md)
    assert env["RCAEVAL_CASE_ID"] == res.case_ref == opaque_case_ref("r", "case-a")
    assert env["RCAEVAL_CLUSTER_ID"] == "prod-tidb-017"
    assert env["RCAEVAL_WINDOW_END"] == "2026-10-03T15:00:00Z"
    assert env["HOME"].startswith(env["RCAEVAL_WORKSPACE"])


def test_fs_requests_are_confined_to_the_workspace(make_case, dirs):
    case, case_dir = make_case(incident={"note.txt": "inside note"})
    res = execute_case("r", case, f"{TRAP} fs", case_dir=case_dir, timeout_s=20,
                       keep_workspace=True, **dirs)
    got = json.loads(res.final_text)
    assert got["read_inside"] == "inside note"
    assert got["read_relative_escape"].startswith("denied")
    assert got["read_absolute_outside"].startswith("denied")
    assert got["write_inside"] == "ok"
    assert got["write_outside"].startswith("denied")
    assert got["write_runner_dir"].startswith("denied")
    ws = dirs["workspace_root"] / "r" / res.workspace_id
    assert (ws / "evidences" / "w.txt").read_text() == "written"
    assert not (ws.parent / "escaped.txt").exists()
    denials = [e for e in _telemetry(res.audit_dir) if e["event"] == "tool.error"]
    assert len(denials) == 4


def test_agent_dying_before_answer_is_an_infra_retry(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, f"{TRAP} die_on_prompt", case_dir=case_dir, timeout_s=20,
                       max_infra_retries=1, **dirs)
    assert res.status == "crashed" and res.attempts == 2
    res2 = execute_case("r2", case, f"acp:{PY} -c 'import sys; sys.exit(2)'",
                        case_dir=case_dir, timeout_s=20, max_infra_retries=1, **dirs)
    # dying during the handshake: no session, nothing to judge -> errored, not crashed
    assert res2.status == "errored" and res2.attempts == 2
    assert "handshake" in res2.error and "exit code 2" in res2.error


def test_non_acp_command_fails_the_handshake_in_time(make_case, dirs):
    case, case_dir = make_case()
    agent = AcpAgent("acp:sleep 600", ["sleep", "600"], handshake_timeout_s=0.5)
    t0 = time.monotonic()
    res = execute_case("r", case, agent, case_dir=case_dir, timeout_s=300, max_infra_retries=0,
                       **dirs)
    assert res.status == "errored" and "initialize timed out" in res.error
    # the 0.5 s handshake bound fired, not the 300 s case deadline (generous: a loaded box)
    assert time.monotonic() - t0 < 150
