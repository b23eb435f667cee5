"""Named agents: `rcaeval run --agent-name` (default derived from the --agent spec) is stored
in eval_runs.agent_name, shown in report.txt and used by rcaeval.charts for grouping."""

from __future__ import annotations

import pytest

import rcaeval.charts as rc
from rcaeval.cli import main
from rcaeval.errors import InputError
from rcaeval.runner import default_agent_name
from rcaeval.runner._agent_name import check_agent_name
from rcaeval.store import connect


@pytest.mark.parametrize(("spec", "name"), [
    ("replay:thorough", "thorough"),
    ("acp:python -m rcaeval.examples.example_agent", "example_agent"),
    ("acp:/usr/bin/python3.11 -u -m my_pkg.agent --fast", "agent"),
    ("command:./agents/triage.sh --fast", "triage"),
    ("command:python3 /opt/x/my_agent.py --k=v", "my_agent"),
    ("acp:uv run claude-code-acp", "claude-code-acp"),
    ("acp:/usr/bin/env FOO=1 node dist/agent.js", "agent"),
    ("command:opencode run", "opencode"),
])
def test_default_agent_name(spec: str, name: str) -> None:
    assert default_agent_name(spec) == name


def test_bad_agent_name_is_input_error() -> None:
    assert check_agent_name("  mine ") == "mine"
    for bad in ("", "   ", "a\nb", "x" * 200):
        with pytest.raises(InputError) as err:
            check_agent_name(bad)
        assert err.value.field == "--agent-name"


def test_run_stores_and_reports_agent_name(paths, make_registry, capsys) -> None:
    reg = make_registry(["tikv-panic-restart-001"], jobs=1)
    base = ["run", "--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
            "--audit-root", str(paths["audits"]), "--no-progress"]
    assert main([*base, "--agent", "replay:thorough", "--run-id", "a1"]) == 0
    assert main([*base, "--agent", "replay:shallow", "--agent-name", "candidate",
                 "--run-id", "a2"]) == 0
    assert main([*base, "--agent", "replay:shallow", "--agent-name", " ", "--run-id",
                 "a3"]) == 3
    capsys.readouterr()
    with connect(paths["db"], read_only=True) as s:
        names = s.sql("SELECT run_id, agent_name FROM eval_runs ORDER BY run_id").rows()
        assert names == [("a1", "thorough"), ("a2", "candidate")]
        by_agent = rc.verdict_counts(s, ["a1", "a2"], by=("agent_name",))
        assert by_agent["agent_name"].to_list() == ["candidate", "thorough"]
        assert by_agent["total"].to_list() == [1, 1]
    report = (paths["audits"] / "a2" / "report.txt").read_text("utf-8")
    assert "candidate (replay:shallow)" in report
