"""An OpenAI Agents SDK agent for rcaeval (docs/plug-in-your-agent.md, "OpenAI Agents SDK").

Run it from its own venv (``pip install openai-agents``), never the runner's:

    rcaeval run --suite smoke \
      --agent "command:/path/to/agents-venv/bin/python /path/to/openai_agents_sdk.py" \
      --agent-env OPENAI_API_KEY --agent-env OPENAI_BASE_URL --agent-env RCAEVAL_AGENT_MODEL

One process per prompt turn (a ``command:`` agent): the case prompt is on stdin, the answer
goes to stdout. The incident tools are the MCP server the runner names in
``$RCAEVAL_MCP_CONFIG``; the conversation lives in a SQLite session in ``$TMPDIR`` (the
workspace's own temp dir), so turn 2 continues turn 1. Token usage - and a cost when
``RCAEVAL_PRICE_IN`` / ``RCAEVAL_PRICE_OUT`` (USD per million tokens) are set - is written to
``.rcaeval/usage.json`` each turn (docs/agents.md, "Usage").
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from agents import Agent, OpenAIChatCompletionsModel, Runner, SQLiteSession
from agents.mcp import MCPServerStdio
from openai import AsyncOpenAI

INSTRUCTIONS = (
    "You are an SRE investigating a production incident. Use the rcaeval incident tools: read "
    "the ticket, topology and guardrails, then the alerts, logs, metrics, slow queries and "
    "events; finish with submit_report, citing the evidence ids the tools returned.")


def mcp_server() -> MCPServerStdio:
    config = json.loads(Path(os.environ["RCAEVAL_MCP_CONFIG"]).read_text())
    spec = config["mcpServers"]["rcaeval"]
    return MCPServerStdio(
        {"command": spec["command"], "args": spec["args"], "env": spec.get("env") or {},
         "cwd": os.environ["RCAEVAL_WORKSPACE"]},
        name="rcaeval", client_session_timeout_seconds=120, cache_tools_list=True)


async def main() -> None:
    prompt = sys.stdin.read()
    client = AsyncOpenAI(base_url=os.environ.get("OPENAI_BASE_URL"),
                         api_key=os.environ.get("OPENAI_API_KEY", ""))
    model = OpenAIChatCompletionsModel(model=os.environ.get("RCAEVAL_AGENT_MODEL", "gpt-4.1"),
                                       openai_client=client)
    session = SQLiteSession(os.environ["RCAEVAL_WORKSPACE_ID"],
                            Path(os.environ["TMPDIR"]) / "agents-session.db")
    async with mcp_server() as server:
        agent = Agent(name="rca", instructions=INSTRUCTIONS, model=model, mcp_servers=[server])
        result = await Runner.run(agent, prompt, session=session, max_turns=100)
    usage = result.context_wrapper.usage
    report = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    price_in, price_out = os.environ.get("RCAEVAL_PRICE_IN"), os.environ.get("RCAEVAL_PRICE_OUT")
    if price_in and price_out:
        report["cost_usd"] = (usage.input_tokens * float(price_in)
                              + usage.output_tokens * float(price_out)) / 1e6
    runner_dir = Path(os.environ["RCAEVAL_WORKSPACE"]) / ".rcaeval"
    (runner_dir / "usage.json").write_text(json.dumps(report))
    print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
