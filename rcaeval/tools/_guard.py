"""What stands between an agent's MCP requests and the incident tools (docs/tools.md,
"Errors and limits", "Authentication"):

- every tool error carries a message, without pydantic's documentation URLs and without
  characters that cannot be written as UTF-8 (:class:`GuardedServer`);
- over stdio, a request whose JSON holds invalid Unicode (a lone surrogate such as
  ``"\\ud800"``) is answered with a JSON-RPC error instead of being dropped unanswered
  (:func:`run_stdio`);
- over streamable HTTP, every request must carry ``Authorization: Bearer <token>``, the
  token the runner generated for this case (:func:`require_bearer`).
"""

from __future__ import annotations

import hmac
import json
import re
import sys
from io import TextIOWrapper
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

MESSAGE_CHARS = 2000
"""The longest tool error message returned (longer ones are cut with an ellipsis)."""

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600

_PYDANTIC_URL = re.compile(r"\s*For further information visit https?://errors\.pydantic\.dev\S*")


def utf8_safe(text: str) -> str:
    """``text`` with every character UTF-8 cannot encode (a lone surrogate) escaped."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _validation_text(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False)[:10]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        got = repr(err.get("input"))
        got = got if len(got) <= 60 else got[:57] + "..."
        parts.append(f"{where}: {err.get('msg', 'invalid')} (got {got})")
    return "invalid arguments: " + "; ".join(parts)


def tool_error_text(exc: BaseException, tool: str) -> str:
    """The message an agent gets for a failed call of ``tool``: never empty, no URLs."""
    cause = exc.__cause__
    if isinstance(cause, ValidationError):
        text = _validation_text(cause)
    else:
        text = str(exc).removeprefix(f"Error executing tool {tool}").lstrip(": ").strip()
        if not text and cause is not None:
            text = f"internal error: {type(cause).__name__}: {cause}".rstrip(": ")
        text = text or "internal error (the server's log has the details)"
    text = utf8_safe(_PYDANTIC_URL.sub("", text))
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 3] + "..."


class GuardedServer(MCPServer):
    """``MCPServer`` whose tool errors always carry a clean message (see the module doc)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None
                        ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            raise ToolError(f"{name}: {tool_error_text(exc, name)}") from None


# -- stdio ------------------------------------------------------------------------------------

def _bad_unicode(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _error_line(msg_id: Any, code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id,
                       "error": {"code": code, "message": message}}) + "\n"


class _FilteredStdin:
    """The server's stdin lines, with requests the SDK would drop unanswered (invalid
    Unicode, not a JSON-RPC message) answered here with a JSON-RPC error."""

    def __init__(self, stdin: Any, stdout: Any, lock: anyio.Lock) -> None:
        self._in, self._out, self._lock = stdin, stdout, lock

    def __aiter__(self) -> _FilteredStdin:
        return self

    async def __anext__(self) -> str:
        import mcp_types as types

        while True:
            line = await self._in.readline()
            if not line:
                raise StopAsyncIteration
            try:
                types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception:  # noqa: BLE001 - decided below
                reply = self._reply_to(line)
                if reply is None:
                    return line  # the SDK's own handling (a notification, garbage)
                async with self._lock:
                    await self._out.write(reply)
                    await self._out.flush()
                continue
            return line

    @staticmethod
    def _reply_to(line: str) -> str | None:
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str | int) \
                or isinstance(obj.get("id"), bool):
            return None
        if _bad_unicode(obj):
            return _error_line(obj["id"], INVALID_PARAMS,
                               "the request holds invalid Unicode (a lone surrogate such as "
                               "\\ud800 is not a character): send valid UTF-8 text")
        return _error_line(obj["id"], INVALID_REQUEST,
                           "not a valid JSON-RPC request for this server")


class _LockedStdout:
    def __init__(self, stdout: Any, lock: anyio.Lock) -> None:
        self._out, self._lock = stdout, lock

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._out.write(utf8_safe(text))

    async def flush(self) -> None:
        async with self._lock:
            await self._out.flush()


def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over stdin/stdout (as ``server.run("stdio")``) with the request
    filter above."""
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        lock = anyio.Lock()
        raw_out = anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
        raw_in = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8",
                                               errors="replace"))
        stdin = _FilteredStdin(raw_in, raw_out, lock)
        async with stdio_server(stdin=stdin, stdout=_LockedStdout(raw_out, lock)) as (r, w):
            low = server._lowlevel_server  # noqa: SLF001 - as MCPServer.run_stdio_async
            await low.run(r, w, low.create_initialization_options())

    anyio.run(main)


# -- streamable HTTP --------------------------------------------------------------------------

def require_bearer(app: Any, token: str) -> Any:
    """An ASGI app answering 401 to any HTTP request without ``Authorization: Bearer
    <token>`` (compared in constant time), and passing the others to ``app``."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                body = b'{"error": "missing or wrong bearer token"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="rcaeval-incident"'),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded
