"""Publishes the RCA response contract to ``rcaeval schema`` (docs/schema/rca_response.schema.json).

Imported by :func:`rcaeval.registry._schemas.discover_schemas`; nothing else imports it, so the
harness itself does not depend on the registry.
"""

from __future__ import annotations

from rcaeval.harness._contract import RcaResponse
from rcaeval.registry import register_schema

SCHEMA_NAME = "rca_response"

register_schema(SCHEMA_NAME, RcaResponse)
