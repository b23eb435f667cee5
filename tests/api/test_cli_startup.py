"""The `rcaeval` command loads every subcommand at start-up (rcaeval.cli): none of them may
import the MCP SDK (the incident tools' server, ~0.4 s) until a command that serves runs."""

from __future__ import annotations

import subprocess
import sys


def test_loading_the_cli_imports_no_mcp_sdk() -> None:
    probe = ("import sys, rcaeval.cli; "
             "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]", out
