"""`rcaeval run` exit codes tell the truth (docs/cli.md): 7 when cases errored or timed out
for infrastructure reasons (a missing agent binary, a failed ACP handshake, a malformed
registry case), 0 when everything ran whatever the verdicts, 4 for `--fail-under` /
`--fail-on`, 3 for bad threshold options. Driven through the real CLI entry point with real
subprocess agents."""

from __future__ import annotations

import shlex
import sys

import pytest

from rcaeval.cli import main
from rcaeval.errors import ExitCode

CASES = ["tikv-panic-restart-001", "disk-full-tikv-001"]


@pytest.fixture
def run_cli(paths, make_registry, capsys):
    reg = make_registry(CASES, jobs=2)

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["run", "--suite", "mini", "--registry", str(reg), "--db",
                     str(paths["db"]), "--audit-root", str(paths["audits"]), "--no-progress",
                     *args])
        out = capsys.readouterr()
        return code, out.out, " ".join(out.err.split())  # stderr wraps at 80 columns

    return run


def test_missing_agent_binary_exits_7(run_cli, db_query, paths):
    code, out, err = run_cli("--agent", "command:/nonexistent/bin/rca-agent --go",
                             "--retries", "0", "--run-id", "nobin")
    assert code == ExitCode.INFRA_ERROR == 7, out + err
    assert "2 case(s) errored (infrastructure)" in err
    rows = db_query(paths["db"], "SELECT status FROM eval_case_runs WHERE run_id = 'nobin'")
    assert rows == [("errored",), ("errored",)]


def test_acp_handshake_failure_exits_7(run_cli):
    # a process that exits at once: the ACP initialize request never gets an answer
    spec = f"acp:{shlex.quote(sys.executable)} -c 'import sys; sys.exit(0)'"
    code, out, err = run_cli("--agent", spec, "--retries", "0", "--run-id", "nohand")
    assert code == 7, out + err
    assert "errored (infrastructure)" in err and "disk-full-tikv-001" in err


def test_bad_registry_case_exits_7_and_the_other_case_is_judged(paths, make_registry,
                                                                  capsys, db_query):
    reg = make_registry(CASES, broken=("disk-full-tikv-001",))
    code = main(["run", "--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
                 "--audit-root", str(paths["audits"]), "--no-progress", "--agent",
                 "replay:thorough", "--run-id", "broken"])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 7, err
    assert "1 case(s) errored (infrastructure): disk-full-tikv-001" in err
    assert db_query(paths["db"], "SELECT verdict FROM eval_judgment WHERE run_id = 'broken'") \
        == [("pass",)]


def test_all_pass_exits_0_even_with_thresholds(run_cli):
    code, out, err = run_cli("--agent", "replay:thorough", "--fail-under", "1.0",
                             "--fail-on", "fail,invalid", "--run-id", "good")
    assert code == 0, out + err
    assert "run failed" not in err


def test_verdicts_alone_exit_0_but_thresholds_exit_4(run_cli):
    code, out, err = run_cli("--agent", "replay:wrong_scope", "--run-id", "bad")
    assert code == 0, out + err  # invalid verdicts are results
    assert "invalid 2" in out
    code, out, err = run_cli("--agent", "replay:wrong_scope", "--run-id", "bad2",
                             "--fail-under", "0.5", "--fail-on", "invalid")
    assert code == ExitCode.GATE_FAILED == 4, out + err
    assert "pass rate 0.000 (0/2) is below --fail-under 0.5" in err
    assert "2 case(s) judged invalid (--fail-on)" in err


def test_bad_threshold_options_are_input_errors(run_cli):
    code, _, err = run_cli("--agent", "replay:thorough", "--fail-on", "flaky")
    assert code == 3 and "unknown verdict 'flaky'" in err
    code, _, err = run_cli("--agent", "replay:thorough", "--fail-under", "80")
    assert code == 3 and "between 0 and 1" in err


def test_audit_root_url_is_refused_with_exit_3(paths, make_registry, capsys, db_query,
                                               tmp_path, monkeypatch):
    """An fsspec-style URL as --audit-root is bad input (exit 3) naming the option, before any
    run is recorded; it must not become a local dir named ``s3:`` (docs/distributed.md)."""
    reg = make_registry(CASES)
    monkeypatch.chdir(tmp_path)
    code = main(["run", "--suite", "mini", "--registry", str(reg), "--db", str(paths["db"]),
                 "--audit-root", "s3://bucket/audits", "--no-progress", "--agent",
                 "replay:thorough", "--run-id", "url"])
    err = " ".join(capsys.readouterr().err.split())
    assert code == ExitCode.INVALID_INPUT == 3, err
    assert "[--audit-root]" in err and "URLs are not supported" in err
    assert not (tmp_path / "s3:").exists()
    assert db_query(paths["db"], "SELECT count(*) FROM eval_runs") == [(0,)]


def test_fail_on_accepts_errored_which_always_exits_7(run_cli):
    # `--fail-on invalid,errored`: errored (and timed_out) cases fail every run with exit 7
    code, out, err = run_cli("--agent", "replay:thorough", "--fail-on", "invalid,errored",
                             "--run-id", "fo-ok")
    assert code == 0, out + err
    code, out, err = run_cli("--agent", "command:/nonexistent/bin/rca-agent", "--retries", "0",
                             "--fail-on", "invalid,errored,timed_out", "--run-id", "fo-bad")
    assert code == 7 and "2 case(s) errored (infrastructure)" in err, out + err


def test_agent_that_cannot_start_in_the_sandbox_exits_7(run_cli, db_query, paths, tmp_path):
    """A wrapper script calling a path the sandbox does not mount never answers: every case
    is errored with the exec failure in its note (not a judged invalid, exit 0), once - a
    deterministic start failure is not retried."""
    from rcaeval.runner._sandbox import bwrap_path

    if bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "real-agent").write_text("#!/bin/sh\necho answer\n")
    (hidden / "real-agent").chmod(0o755)
    wrapper = tmp_path / "wrapper.sh"
    wrapper.write_text(f"#!/bin/sh\nprintf '\\033[31mstarting\\033[0m\\n' >&2\n"
                       f"exec {hidden}/real-agent\n")
    wrapper.chmod(0o755)
    code, out, err = run_cli("--agent", f"command:{wrapper}", "--sandbox", "require",
                             "--retries", "2", "--run-id", "nostart")
    assert code == 7, out + err
    rows = db_query(paths["db"], "SELECT status, attempts, error FROM eval_case_runs "
                    "WHERE run_id = 'nostart' ORDER BY case_id")
    assert [r[:2] for r in rows] == [("errored", 1), ("errored", 1)], rows
    for _, _, error in rows:
        assert "before any output (it could not start)" in error
        assert f"{hidden}/real-agent: not found" in error
        assert "\x1b" not in error


def test_an_unset_agent_env_name_is_refused(run_cli, capsys):
    """`--agent-env NAME` passes the runner's value of NAME; unset, it was silently dropped
    (the agent ran without its API key). Now it is an input error naming it - for doctor too."""
    name = "RCAEVAL_SURELY_UNSET_API_KEY"
    code, out, err = run_cli("--agent", "replay:thorough", "--agent-env", name)
    assert code == 3, out + err
    assert f"--agent-env {name}: not set in this environment" in err
    code = main(["doctor", "--agent", "replay:thorough", "--agent-env", name])
    assert code == 3
    assert name in " ".join(capsys.readouterr().err.split())
