"""A Pydantic AI agent for rcaeval (docs/plug-in-your-agent.md, "Pydantic AI").

Run it from its own venv, never the runner's:

    python3 -m venv ~/pydantic-ai-venv
    ~/pydantic-ai-venv/bin/pip install "pydantic-ai-slim[openai,mcp]"
    rcaeval run --suite smoke \
      --agent "command:$HOME/pydantic-ai-venv/bin/python /path/to/pydantic_ai_agent.py" \
      --agent-env OPENAI_API_KEY --agent-env RCAEVAL_AGENT_MODEL=gpt-4.1

One process per prompt turn (a ``command:`` agent): the prompt is on stdin, the answer goes to
stdout. The incident tools are the stdio server ``$RCAEVAL_MCP_CONFIG`` names, as an
``MCPToolset`` with a start-up timeout of 120 s (``load_mcp_toolsets`` reads the same file but
keeps the 5 s default, less than the tool server may take to start on a loaded machine), and
``async with agent`` holds one MCP session (one tool server) for the whole turn. The
conversation is kept in ``$TMPDIR/pydantic-ai-history.json`` (the workspace's own temp dir), so
turn 2 continues turn 1. Token usage - and a cost when ``RCAEVAL_PRICE_IN`` /
``RCAEVAL_PRICE_OUT`` (USD per million tokens) are set - goes to ``.rcaeval/usage.json`` each
turn (docs/agents.md, "Usage"). ``OPENAI_BASE_URL`` points it at any OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessagesTypeAdapter
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

INSTRUCTIONS = (
    "You are an SRE investigating a production incident. Use the rcaeval incident tools: read "
    "the ticket, topology and guardrails, then the alerts, logs, metrics, slow queries and "
    "events; finish with submit_report, citing the evidence ids the tools returned.")
HISTORY = Path(os.environ.get("TMPDIR", "/tmp")) / "pydantic-ai-history.json"


def incident_tools() -> MCPToolset:
    config = json.loads(Path(os.environ["RCAEVAL_MCP_CONFIG"]).read_text())
    spec = config["mcpServers"]["rcaeval"]
    transport = StdioTransport(command=spec["command"], args=spec["args"],
                               env=spec.get("env") or {}, cwd=os.environ["RCAEVAL_WORKSPACE"])
    return MCPToolset(transport, id="rcaeval", init_timeout=120)


async def main() -> None:
    prompt = sys.stdin.read()
    history = ModelMessagesTypeAdapter.validate_json(HISTORY.read_bytes()) \
        if HISTORY.is_file() else None
    model = OpenAIChatModel(
        os.environ.get("RCAEVAL_AGENT_MODEL", "gpt-4.1"),
        provider=OpenAIProvider(base_url=os.environ.get("OPENAI_BASE_URL"),
                                api_key=os.environ.get("OPENAI_API_KEY", "")))
    agent = Agent(model, instructions=INSTRUCTIONS,
                  toolsets=[incident_tools()])
    async with agent:  # one MCP session for the turn
        result = await agent.run(prompt, message_history=history,
                                 usage_limits=UsageLimits(request_limit=200))
    HISTORY.write_bytes(result.all_messages_json())
    usage = result.usage()
    report = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    price_in, price_out = os.environ.get("RCAEVAL_PRICE_IN"), os.environ.get("RCAEVAL_PRICE_OUT")
    if price_in and price_out:
        report["cost_usd"] = (usage.input_tokens * float(price_in)
                              + usage.output_tokens * float(price_out)) / 1e6
    runner_dir = Path(os.environ["RCAEVAL_WORKSPACE"]) / ".rcaeval"
    (runner_dir / "usage.json").write_text(json.dumps(report))
    print(result.output)


if __name__ == "__main__":
    asyncio.run(main())
