"""``python -m rcaeval.tools serve ...``: the same as ``rcaeval tools serve ...`` (the form the
runner puts in MCP configurations, so it never depends on which ``rcaeval`` is on PATH)."""

from __future__ import annotations

import sys

from rcaeval.cli import main

if __name__ == "__main__":
    sys.exit(main(["tools", *sys.argv[1:]]))
