"""A command agent with a known trajectory: it reads the MCP config the runner generated
(argv[1]), starts the incident tools server named there, makes ``$TRAJ_PREFIX`` calls before
the investigation (``ticket``: get_ticket again - a repeated call; ``badlevel``: search_logs
with an unknown level - a failed call; ``alerts``: get_alerts), then investigates like the
example agent (rcaeval.examples._mcp) and writes ``.rcaeval/usage.json`` from
``$TRAJ_USAGE`` (JSON) when set. No LLM."""

import asyncio
import json
import os
import sys

with open(sys.argv[1]) as fh:
    server = json.load(fh)["mcpServers"]["rcaeval"]


async def main() -> None:
    from mcp import Client, StdioServerParameters

    from rcaeval.examples._diagnosis import render_answer
    from rcaeval.examples._mcp import investigate
    from rcaeval.tools import ToolFailed, client_caller

    params = StdioServerParameters(command=server["command"], args=server["args"],
                                   env={**os.environ, **server["env"]})
    async with Client(params) as client:
        call = client_caller(client)
        for what in [p for p in os.environ.get("TRAJ_PREFIX", "").split(",") if p]:
            try:
                if what == "ticket":
                    await call("get_ticket", {})
                elif what == "badlevel":
                    await call("search_logs", {"min_level": "LOUD"})
                elif what == "alerts":
                    await call("get_alerts", {})
            except ToolFailed:
                pass
        diag = await investigate(client_caller(client))
    if os.environ.get("TRAJ_USAGE"):
        os.makedirs(".rcaeval", exist_ok=True)
        with open(".rcaeval/usage.json", "w") as fh:
            fh.write(os.environ["TRAJ_USAGE"])
    sys.stdout.write(render_answer(diag))


asyncio.run(main())
