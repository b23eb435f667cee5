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
    ("opencode:anthropic/claude-sonnet-4-5", "opencode anthropic/claude-sonnet-4-5"),
    ("claude-code:", "claude-code"),
    ("acp:python -m rcaeval.examples.example_agent", "example_agent"),
    ("acp:/usr/bin/python3.11 -u -m my_pkg.agent --fast", "agent"),
    ("command:./agents/triage.sh --fast", "triage"),
    ("command:python3 /opt/x/my_agent.py --k=v", "my_agent"),
    ("acp:uv run claude-code-acp", "claude-code-acp"),
    ("acp:/usr/bin/env FOO=1 node dist/agent.js", "agent"),
    ("command:opencode run", "opencode"),
    # {python} and the interpreter are never the name (issue: every documented agent was
    # stored as "{python}", and an opencode spec as 'opencode run "$(cat …)"')
    ("acp:{python} -m rcaeval.examples.example_agent", "example_agent"),
    ("command:{python} -m rcaeval.examples.example_command_agent", "example_command_agent"),
    ("command:{python} tests/runner/agents/multi_agent.py", "multi_agent"),
    ("command:'/opt/my venv/bin/python3' -X dev -W ignore agent.py", "agent"),
    ('command:sh -c "opencode run \\"$(cat \\"$RCAEVAL_PROMPT_FILE\\")\\""', "opencode"),
    ("command:bash -c 'cd /srv && exec python3 triage.py \"$@\"' sh", "triage"),
    ("command:sh -c 'claude -p < \"$RCAEVAL_PROMPT_FILE\" | tee out.txt'", "claude"),
    ("command:FOO=1 BAR=2 ./bin/rca-agent --x", "rca-agent"),
    ("acp:npx -y @zed-industries/claude-code-acp@0.5.1", "claude-code-acp"),
    ("command:timeout 600 nice -n 5 ./agent", "agent"),
    ("command:java -jar target/rca-agent.jar", "rca-agent"),
    ("command:uv run --with httpx agent.py", "agent"),
    ("acp:/root/.opencode/bin/opencode acp", "opencode"),
    ("command:{python} -c 'print(1)'", "python -c 'print(1)'"),  # no program: the cmdline
])
def test_default_agent_name(spec: str, name: str) -> None:
    assert default_agent_name(spec) == name


def test_run_names_the_agent_not_the_interpreter(paths, make_registry, capsys) -> None:
    """Through the CLI: `{python} -m MODULE` stores the module's name, not `{python}`."""
    reg = make_registry(["tikv-panic-restart-001"], jobs=1)
    base = ["run", "--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
            "--audit-root", str(paths["audits"]), "--no-progress"]
    spec = "command:{python} -m rcaeval.examples.example_command_agent"
    assert main([*base, "--agent", spec, "--run-id", "n1"]) == 0
    capsys.readouterr()
    with connect(paths["db"], read_only=True) as s:
        rows = s.sql("SELECT run_id, agent_name, agent_spec FROM eval_runs ORDER BY run_id"
                      ).rows()
    assert rows == [("n1", "example_command_agent", spec)]


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
