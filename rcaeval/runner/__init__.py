"""The runner's agent-facing half: workspaces, agent adapters, the audit mirror and the
per-case execution core (docs/agents.md). The run loop, persistence and judging sit on top.

``AcpAgent`` needs the optional ``acp`` extra (``pip install 'rcaeval-judge[acp]'``): it is
imported on first use, so everything else works from a plain install.
"""

from __future__ import annotations

from typing import Any

from rcaeval.runner._agent_name import default_agent_name
from rcaeval.runner._agents import (
    ACP_EXTRA_HINT,
    AgentAdapter,
    AgentOutcome,
    Turn,
    acp_available,
    parse_agent_spec,
)
from rcaeval.runner._agents import PROFILES as AGENT_PROFILES
from rcaeval.runner._audit import MAX_FILE_BYTES, mirror_audit
from rcaeval.runner._case import RunCase, opaque_case_ref, to_run_case
from rcaeval.runner._execute import CaseExecution, CaseHook, execute_case
from rcaeval.runner._gate import check_fail_under, parse_fail_on
from rcaeval.runner._probe import acp_handshake, agent_program, probe_bwrap, run_sandboxed
from rcaeval.runner._sandbox import in_ci, resolve_sandbox
from rcaeval.runner._workspace import agent_env, create_workspace, parse_env_args

__all__ = [
    "ACP_EXTRA_HINT",
    "AGENT_PROFILES",
    # what `rcaeval doctor --agent` tries: an agent's first step and the sandbox
    "acp_handshake",
    "agent_program",
    "in_ci",
    "probe_bwrap",
    "resolve_sandbox",
    "run_sandboxed",
    "acp_available",
    "check_fail_under",
    "parse_fail_on",
    "MAX_FILE_BYTES",
    "AgentAdapter",
    "AgentOutcome",
    "CaseExecution",
    "CaseHook",
    "RunCase",
    "Turn",
    "agent_env",
    "create_workspace",
    "execute_case",
    "mirror_audit",
    "opaque_case_ref",
    "default_agent_name",
    "parse_agent_spec",
    "parse_env_args",
    "to_run_case",
]

# The run loop (docs/running.md).
from rcaeval.runner._loop import RunFailed, RunInterrupted, RunSummary, run_suite  # noqa: E402
from rcaeval.runner._progress import RunProgress  # noqa: E402
from rcaeval.runner._resume import agent_config, agent_hash, drop_run, new_run_id  # noqa: E402

__all__ += [
    "RunFailed",
    "RunInterrupted",
    "RunProgress",
    "RunSummary",
    "agent_config",
    "agent_hash",
    "drop_run",
    "new_run_id",
    "run_suite",
]

# The run's exit status: infrastructure errors, --fail-under, --fail-on (docs/cli.md).
from rcaeval.runner._gate import gate_run  # noqa: E402

__all__ += ["gate_run"]

# Repeats: a suite run K times as one repeat group (docs/running.md#repeats).
from rcaeval.runner._repeat import RepeatInterrupted, repeat_group, run_repeats  # noqa: E402

__all__ += ["RepeatInterrupted", "repeat_group", "run_repeats"]

# Choosing cases: --case, --tag, --case-type, --limit (docs/running.md).
from rcaeval.runner._select import select_cases  # noqa: E402

__all__ += ["select_cases"]

# Where a workspace's tool host listens (the lab serves its live tools there).
from rcaeval.runner._toolhost import socket_path  # noqa: E402

__all__ += ["socket_path"]


def __getattr__(name: str) -> Any:
    """``AcpAgent`` on first use: importing it needs the ``acp`` extra."""
    if name == "AcpAgent":
        from rcaeval.runner._acp import AcpAgent

        return AcpAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
