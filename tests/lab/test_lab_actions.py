"""apply_action's catalog and gate 3 (fast: the checks before anything runs; the actions
themselves run against the live lab in tests/lab/test_lab_suite.py)."""

from __future__ import annotations

import json

import pytest

from rcaeval.lab._actions import ACTIONS, gate3_missing, parse_targets, read_actions
from rcaeval.tools._paging import ToolInputError

SEEN = [("query_database_view", json.dumps({"rows": [{"pid": 4242, "state": "idle"}]}))]


def test_catalog_has_the_six_actions_and_marks_the_disruptive_ones() -> None:
    assert set(ACTIONS) == {"create_index", "analyze_table", "terminate_backend",
                            "kill_process", "restart_service", "free_disk"}
    assert {n for n, s in ACTIONS.items() if s.disruptive} == {
        "terminate_backend", "kill_process", "restart_service", "free_disk"}


def test_a_guarded_disruptive_action_passes_gate3() -> None:
    assert gate3_missing("terminate_backend", ["4242"], approved=True,
                         verification="query_database_view", impact_rollback="ends one idle "
                         "session; it may reconnect", history=SEEN) == []


@pytest.mark.parametrize(("kw", "needle"), [
    ({"approved": False}, "operator approval"),
    ({"impact_rollback": " "}, "impact/rollback"),
    ({"verification": None}, "a read-only verification"),
    ({"verification": "apply_action"}, "is not a read-only tool"),
    ({"verification": "get_host_view"}, "was not called before"),
    ({"targets": ["4243"]}, "of 4243"),
    ({"targets": ["424"]}, "of 424"),  # a pid that is only a prefix of the one seen
])
def test_each_missing_guardrail_is_named(kw: dict, needle: str) -> None:
    args = {"approved": True, "verification": "query_database_view",
            "impact_rollback": "ends the session", "history": SEEN}
    targets = kw.pop("targets", ["4242"])
    args.update(kw)
    missing = gate3_missing("terminate_backend", targets, **args)
    assert len(missing) == 1 and needle in missing[0], missing


def test_non_disruptive_actions_need_no_guardrails() -> None:
    assert gate3_missing("create_index", ["pgbench_accounts", "aid"], approved=False,
                         verification=None, impact_rollback=None, history=[]) == []


@pytest.mark.parametrize(("action", "target", "needle"), [
    ("terminate_backend", "12,abc", "comma-separated pids"),
    ("terminate_backend", "", "needs a target"),
    ("kill_process", "stress-ng", "must be a pid"),
    ("restart_service", "sshd", "must be one of"),
    ("create_index", "pgbench_accounts", "TABLE.COLUMN"),
    ("create_index", "a.b; drop table x", "TABLE.COLUMN"),
    ("analyze_table", "pgbench_accounts;", "a table name"),
])
def test_malformed_targets_are_input_errors(action: str, target: str, needle: str) -> None:
    with pytest.raises(ToolInputError, match=needle):
        parse_targets(action, target)


def test_targets_are_parsed() -> None:
    assert parse_targets("terminate_backend", "1, 2,2") == ["1", "2"]
    assert parse_targets("create_index", "pgbench_accounts.aid") == ["pgbench_accounts", "aid"]


def test_action_log_is_read_from_a_time(tmp_path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "actions.jsonl").write_text(
        '{"t": 10, "action": "a"}\nnot json\n{"t": 20, "action": "b"}\n')
    assert [r["action"] for r in read_actions(tmp_path, since=15)] == ["b"]
