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


def test_no_facade_but_the_labs_imports_the_mcp_sdk() -> None:
    """A facade that exports a constant of a serving module (the tools' TOKEN_ENV) must not
    import that module: every package that imports the facade would pay for the SDK."""
    import pkgutil

    import rcaeval

    facades = sorted(m.name for m in pkgutil.iter_modules(rcaeval.__path__, "rcaeval.")
                     if m.ispkg and not m.name.rsplit(".", 1)[1].startswith("_"))
    probe = ("import importlib, sys\n"
             "for name in sys.argv[1:]:\n"
             "    importlib.import_module(name)\n"
             "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))")
    light = [f for f in facades if f != "rcaeval.lab"]
    assert "rcaeval.tools" in light and "rcaeval.registry" in light
    out = subprocess.run([sys.executable, "-c", probe, *light], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]", out
