"""The command adapter and the per-case execution core, with real subprocesses."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import orjson

from rcaeval.bundle import lint_bundle
from rcaeval.runner import execute_case
from rcaeval.runner._proc import processes_under

PY = sys.executable
AGENTS = Path(__file__).resolve().parent / "agents"
CMD = f"command:{PY} {AGENTS}/cmd_agent.py"


def _transcript(res) -> list[dict]:
    return orjson.loads((res.audit_dir / "transcript.json").read_bytes())


def test_stdin_prompt_and_followup_turns(make_case, dirs):
    case, case_dir = make_case(followups=["first follow-up?", "second follow-up?"])
    res = execute_case("r", case, f"{CMD} echo", case_dir=case_dir, timeout_s=30, **dirs)
    assert res.status == "completed" and res.attempts == 1
    assert res.final_text.startswith("turn 1: Alert: p99 latency")
    assert (res.audit_dir / "output.txt").read_text() == res.final_text
    tr = _transcript(res)
    assert [(t["turn"], t["role"]) for t in tr] == [
        (1, "user"), (1, "assistant"), (2, "user"), (2, "assistant"), (3, "user"),
        (3, "assistant")]
    assert tr[3]["text"].strip() == "turn 2: first follow-up?"
    assert tr[5]["text"].strip() == "turn 3: second follow-up?"
    assert tr[1]["exit_code"] == 0
    m = orjson.loads((res.audit_dir / "manifest.json").read_bytes())
    assert m["status"] == "completed" and m["case_id"] == "case-a" and m["run_id"] == "r"
    assert m["cluster_id"] == "prod-tidb-017"
    assert m["time_window"] == {"start": "2026-10-03T14:00:00Z", "end": "2026-10-03T15:00:00Z"}
    paths = {f["path"] for f in m["files"]}
    assert {"output.txt", "transcript.json", ".rcaeval/turn-1.stdout",
            ".rcaeval/prompt-2.md"} <= paths


def test_prompt_file_mode(make_case, dirs):
    case, case_dir = make_case(followups=["again?"])
    res = execute_case("r", case, f"{CMD} echo {{prompt_file}}", case_dir=case_dir,
                       timeout_s=30, **dirs)
    assert res.status == "completed"
    tr = _transcript(res)
    assert tr[1]["text"].startswith("turn 1: Alert")
    assert tr[3]["text"].strip() == "turn 2: again?"  # stdin was empty: no [stdin:...]
    assert res.manifest["agent"]["prompt_mode"] == "file"


def test_agent_written_output_wins(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, f"{CMD} own_output", case_dir=case_dir, timeout_s=30, **dirs)
    assert res.final_text == "answer from output.txt"
    assert (res.audit_dir / "output.txt").read_text() == "answer from output.txt"
    assert (res.audit_dir / ".rcaeval" / "turn-1.stdout").read_text() == "chatter on stdout\n"


def test_lots_of_stderr_does_not_deadlock(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, f"{CMD} stderr_flood", case_dir=case_dir, timeout_s=300,
                       **dirs)
    # a deadlock would end timed_out; no wall-clock bound (a loaded machine is not a bug)
    assert res.status == "completed", res.error
    assert res.final_text == "done after flood\n"
    assert (res.audit_dir / ".rcaeval" / "agent.stderr").stat().st_size >= 2 * 1024 * 1024


def test_crash_before_output_is_retried_then_errored(make_case, dirs):
    """An agent that exits without any output never started: retried (``--retries``) as
    infrastructure, then ``errored`` (exit 7) - never judged ``invalid``."""
    case, case_dir = make_case()
    res = execute_case("r", case, f"{CMD} crash", case_dir=case_dir, timeout_s=30,
                       max_infra_retries=2, **dirs)
    assert res.status == "errored"
    assert res.attempts == 3
    assert [a["infra_error"] for a in res.attempt_log] == [True, True, True]
    assert len({a["workspace_id"] for a in res.attempt_log}) == 3  # fresh workspace each time
    assert "exited with 3 before any output (it could not start)" in res.error
    assert orjson.loads((res.audit_dir / "manifest.json").read_bytes())["status"] == "errored"
    # the failed attempts' workspaces are gone, only the audit remains
    assert list((dirs["workspace_root"] / "r").iterdir()) == []


def test_crash_after_output_is_not_retried(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, f"{CMD} crash_late", case_dir=case_dir, timeout_s=30,
                       max_infra_retries=2, **dirs)
    assert res.status == "crashed" and res.attempts == 1
    assert res.final_text == "partial answer\n"


def test_spawn_failure_is_errored_after_retries(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, "command:/nonexistent/agent-binary --x", case_dir=case_dir,
                       timeout_s=10, max_infra_retries=1, **dirs)
    assert res.status == "errored" and res.attempts == 2
    assert "cannot start" in res.error
    assert res.manifest["status"] == "errored"


def _gone(ws: Path, within: float = 5.0) -> bool:
    """True once no process works in ``ws`` (a SIGKILLed process dies asynchronously)."""
    deadline = time.monotonic() + within
    while processes_under(ws) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not processes_under(ws)


def test_hanging_agent_times_out_and_its_process_group_dies(make_case, dirs):
    case, case_dir = make_case()
    spec = "command:sh -c 'setsid sleep 1000 & sleep 1000 & sleep 1000'"
    t0 = time.monotonic()
    res = execute_case("r", case, spec, case_dir=case_dir, timeout_s=1.0, keep_workspace=True,
                       **dirs)
    elapsed = time.monotonic() - t0
    assert res.status == "timed_out"
    assert elapsed < 500, elapsed  # the agent would sleep 1000 s: the 1 s timeout cut it
    assert res.attempts == 1
    ws = dirs["workspace_root"] / "r" / res.workspace_id
    assert _gone(ws), "a descendant (one in its own session too) survived"


def test_turn_timeout_bounds_each_turn(make_case, dirs):
    case, case_dir = make_case()
    res = execute_case("r", case, "command:sleep 30", case_dir=case_dir, timeout_s=20,
                       turn_timeout_s=0.5, **dirs)
    # the turn bound fired (its own message), not the 20 s case deadline
    assert res.status == "timed_out" and "turn timeout" in res.error


def test_usage_reported_by_file(make_case, dirs):
    case, case_dir = make_case(followups=["more?"])
    res = execute_case("r", case, f"{CMD} usage", case_dir=case_dir, timeout_s=30, **dirs)
    assert res.usage["input_tokens"] == 10 + 20
    assert res.usage["output_tokens"] == 10
    assert res.usage["cost_usd"] == 0.5
    assert res.usage["cache_read_tokens"] is None
    reported = res.manifest["usage"]["reported"]
    assert [r["turn"] for r in reported] == [1, 2] and reported[0]["raw"]["model"] == "m"


def test_example_command_agent_produces_a_bundle(make_case, dirs, panic_incident):
    case, case_dir = make_case(incident=panic_incident, followups=["Which evidence?"])
    spec = "command:{python} -m rcaeval.examples.example_command_agent"  # the runner's python
    res = execute_case("r", case, spec, case_dir=case_dir, timeout_s=60, **dirs)
    assert res.status == "completed", res.error
    assert "## Root cause" in res.final_text and "panic on tikv-2" in res.final_text
    assert lint_bundle(res.audit_dir) == []  # BundleWriter wrote a contract-clean bundle
    assert res.manifest["agent"]["command"][0] == sys.executable
    tr = _transcript(res)
    assert "L-000003" in tr[3]["text"]  # tikv-1.log sorts first


def test_background_process_left_by_a_finished_agent_is_killed(make_case, dirs):
    case, case_dir = make_case()
    spec = "command:sh -c 'sleep 1000 & setsid sleep 1000 & echo done'"
    res = execute_case("r", case, spec, case_dir=case_dir, timeout_s=10, keep_workspace=True,
                       **dirs)
    assert res.status == "completed" and res.final_text == "done\n"
    assert _gone(dirs["workspace_root"] / "r" / res.workspace_id)
