"""Publish the semantic-shadow files' JSON Schemas (``rcaeval schema`` -> docs/schema/)."""

from __future__ import annotations

from rcaeval.registry import register_schema
from rcaeval.semantic._models import SemanticContext, SemanticPacket

register_schema("semantic_context", SemanticContext)
register_schema("semantic_packet", SemanticPacket)
