"""A LangGraph agent for rcaeval (docs/plug-in-your-agent.md, "LangGraph").

Run it from its own venv, never the runner's: langchain-mcp-adapters needs ``mcp<2`` and
rcaeval ``mcp>=2.3``, so they cannot share one environment.

    python3 -m venv ~/langgraph-venv
    ~/langgraph-venv/bin/pip install langgraph langchain-mcp-adapters langchain-openai
    rcaeval run --suite smoke \
      --agent "command:$HOME/langgraph-venv/bin/python /path/to/langgraph_agent.py" \
      --agent-env OPENAI_API_KEY --agent-env RCAEVAL_AGENT_MODEL=gpt-4.1

One process per prompt turn (a ``command:`` agent): the prompt is on stdin, the answer goes to
stdout. The incident tools come from ``$RCAEVAL_MCP_CONFIG``, over ONE MCP session for the
whole turn (``MultiServerMCPClient.session`` + ``load_mcp_tools``): the adapter's default,
``client.get_tools()``, starts a new tool server for every tool call. The graph is a plain
LangGraph ReAct loop (``StateGraph`` + ``ToolNode``). The conversation is kept in
``$TMPDIR/langgraph-history.json`` (the workspace's own temp dir), so turn 2 continues turn 1.
Token usage - and a cost when ``RCAEVAL_PRICE_IN`` / ``RCAEVAL_PRICE_OUT`` (USD per million
tokens) are set - goes to ``.rcaeval/usage.json`` each turn (docs/agents.md, "Usage").
``OPENAI_BASE_URL`` points it at any OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

INSTRUCTIONS = (
    "You are an SRE investigating a production incident. Use the rcaeval incident tools: read "
    "the ticket, topology and guardrails, then the alerts, logs, metrics, slow queries and "
    "events; finish with submit_report, citing the evidence ids the tools returned.")
HISTORY = Path(os.environ.get("TMPDIR", "/tmp")) / "langgraph-history.json"


def mcp_client() -> MultiServerMCPClient:
    config = json.loads(Path(os.environ["RCAEVAL_MCP_CONFIG"]).read_text())
    spec = config["mcpServers"]["rcaeval"]
    return MultiServerMCPClient({"rcaeval": {
        "transport": "stdio", "command": spec["command"], "args": spec["args"],
        "env": spec.get("env") or {}, "cwd": os.environ["RCAEVAL_WORKSPACE"]}})


def build_graph(model: ChatOpenAI, tools: list):
    llm = model.bind_tools(tools)

    async def call_model(state: MessagesState) -> dict:
        return {"messages": [await llm.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


async def main() -> None:
    prompt = sys.stdin.read()
    history = messages_from_dict(json.loads(HISTORY.read_text())) if HISTORY.is_file() \
        else [SystemMessage(INSTRUCTIONS)]
    model = ChatOpenAI(model=os.environ.get("RCAEVAL_AGENT_MODEL", "gpt-4.1"),
                       base_url=os.environ.get("OPENAI_BASE_URL"),
                       api_key=os.environ.get("OPENAI_API_KEY", ""))
    async with mcp_client().session("rcaeval") as session:  # one tool server for the turn
        tools = await load_mcp_tools(session)
        result = await build_graph(model, tools).ainvoke(
            {"messages": [*history, HumanMessage(prompt)]}, {"recursion_limit": 200})
    messages = result["messages"]
    HISTORY.write_text(json.dumps(messages_to_dict(messages)))
    new = [m for m in messages[len(history):] if isinstance(m, AIMessage) and m.usage_metadata]
    n_in = sum(m.usage_metadata["input_tokens"] for m in new)
    n_out = sum(m.usage_metadata["output_tokens"] for m in new)
    report = {"input_tokens": n_in, "output_tokens": n_out}
    price_in, price_out = os.environ.get("RCAEVAL_PRICE_IN"), os.environ.get("RCAEVAL_PRICE_OUT")
    if price_in and price_out:
        report["cost_usd"] = (n_in * float(price_in) + n_out * float(price_out)) / 1e6
    runner_dir = Path(os.environ["RCAEVAL_WORKSPACE"]) / ".rcaeval"
    (runner_dir / "usage.json").write_text(json.dumps(report))
    print(messages[-1].content if isinstance(messages[-1].content, str)
          else messages[-1].text())


if __name__ == "__main__":
    asyncio.run(main())
