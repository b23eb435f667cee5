"""A command agent that states its root cause as data: it starts the incident-tools server
named in the MCP config the runner generated (argv[1]), investigates like the example agents
(no LLM) and finishes with submit_report whose ``root_cause`` is an object
``{summary, family, component}``. The family and component come from
``$STRUCTURED_FAMILY`` / ``$STRUCTURED_COMPONENT`` (the test decides them; a real agent
would take them from its own reasoning)."""

import asyncio
import json
import os
import sys

path = sys.argv[1]
with open(path) as fh:
    server = json.load(fh)["mcpServers"]["rcaeval"]


async def main() -> None:
    from mcp import Client, StdioServerParameters

    from rcaeval.examples._diagnosis import render_answer
    from rcaeval.examples._mcp import investigate
    from rcaeval.tools import client_caller

    params = StdioServerParameters(command=server["command"], args=server["args"],
                                   env={**os.environ, **server["env"]})
    async with Client(params) as client:
        plain = client_caller(client)

        async def call(name, args):
            if name == "submit_report":
                args = {**args, "root_cause": {"summary": args["root_cause"],
                                               "family": os.environ["STRUCTURED_FAMILY"],
                                               "component": os.environ["STRUCTURED_COMPONENT"]}}
            return await plain(name, args)

        diag = await investigate(call)
    sys.stdout.write(render_answer(diag))


asyncio.run(main())
