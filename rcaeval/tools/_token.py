"""The bearer token of the tools' HTTP transport: where it comes from (a module of its own, so
that the facade exports it without importing the MCP SDK)."""

from __future__ import annotations

TOKEN_ENV = "RCAEVAL_MCP_TOKEN"
"""The environment variable ``rcaeval tools serve --transport http`` reads its bearer token
from (the runner sets it; a token on the command line would show in ``ps``)."""
