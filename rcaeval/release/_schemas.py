"""Publishes the capture export and operator review formats to ``rcaeval schema``
(docs/schema/capture.schema.json, operator_review.schema.json).

Imported by :func:`rcaeval.registry._schemas.discover_schemas`; the models and their names live in
``_models.py`` (:data:`SCHEMA_MODELS`).
"""

from __future__ import annotations

from rcaeval.registry import register_schema
from rcaeval.release._models import SCHEMA_MODELS

for _name, _model in SCHEMA_MODELS.items():
    register_schema(_name, _model)
