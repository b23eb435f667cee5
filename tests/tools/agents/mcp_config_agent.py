"""A command agent that uses the incident tools the way Claude Code / opencode do: it reads the
MCP config file the runner generated (its path is argv[1], from ``{mcp_config}``), checks that
``$RCAEVAL_MCP_CONFIG`` names the same file and that ``$OPENCODE_CONFIG`` holds the same server
in opencode's format, starts the server named there with the official ``mcp`` SDK's client,
investigates (no LLM) and finishes with ``submit_report``. Mismatches exit 2 naming them."""

import asyncio
import json
import os
import sys


def fail(msg: str) -> None:
    sys.stderr.write(f"mcp_config_agent: {msg}\n")
    sys.exit(2)


path = sys.argv[1]
if os.environ.get("RCAEVAL_MCP_CONFIG") != path:
    fail(f"RCAEVAL_MCP_CONFIG={os.environ.get('RCAEVAL_MCP_CONFIG')!r} is not {path!r}")
with open(path) as fh:
    server = json.load(fh)["mcpServers"]["rcaeval"]
if server.get("type") != "stdio" or not os.path.isabs(server["command"]):
    fail(f"not an absolute stdio server: {server}")
with open(os.environ["OPENCODE_CONFIG"]) as fh:
    opencode = json.load(fh)["mcp"]["rcaeval"]
if opencode["type"] != "local" or opencode["command"] != [server["command"], *server["args"]] \
        or opencode["environment"] != server["env"] or opencode["enabled"] is not True:
    fail(f"opencode config {opencode} is not the same server")


async def main() -> None:
    from mcp import Client, StdioServerParameters

    from rcaeval.examples._diagnosis import render_answer
    from rcaeval.examples._mcp import investigate
    from rcaeval.tools import client_caller

    params = StdioServerParameters(command=server["command"], args=server["args"],
                                   env={**os.environ, **server["env"]})
    async with Client(params) as client:
        skip = [s for s in os.environ.get("RCAEVAL_EXAMPLE_SKIP", "").split(",") if s]
        diag = await investigate(client_caller(client), skip=skip)
    sys.stdout.write(render_answer(diag))


asyncio.run(main())
