"""The client side of the incident tools: one MCP tool call as an async function returning
the tool's structured result (what the example agents and the case proofs' reference agent
investigate through; docs/tools.md).

No ``mcp`` import here: :func:`client_caller` adapts any client object with the SDK's
``call_tool``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

ToolCaller = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""``call(name, args)``: calls one MCP tool and returns its structured result, raising
:class:`ToolFailed` for an error result."""


class ToolFailed(Exception):
    """An MCP tool answered with an error result."""


def client_caller(client: Any) -> ToolCaller:
    """Adapt an ``mcp.Client`` (or ``ClientSession``) to :data:`ToolCaller`."""
    import orjson

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        res = await client.call_tool(name, args)
        text = "".join(getattr(c, "text", "") for c in res.content)
        if res.is_error:
            raise ToolFailed(text)
        if res.structured_content is not None:
            return dict(res.structured_content)
        return orjson.loads(text) if text else {}
    return call
