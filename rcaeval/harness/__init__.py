"""The runtime harness: check every RCA report before an operator sees it (docs/harness.md).

``check(response)`` numbers the evidence (``E01``…), builds the claim ledger, applies the
four hard gates, scores the six weighted dimensions, repairs what it can deterministically,
and returns a :class:`HarnessResult` whose status is ``passed``, ``repaired``, ``degraded``,
``insufficient_evidence`` or ``disabled``. ``check_batch`` does the same for many captured
responses and returns polars frames. See docs/harness.md and docs/rca-response-contract.md.
"""

from __future__ import annotations

from rcaeval.harness._batch import BatchResult, check_batch, summarize
from rcaeval.harness._check import check, parse_response
from rcaeval.harness._config import HarnessConfig
from rcaeval.harness._contract import (
    Alert,
    EvidenceArtifact,
    RcaResponse,
    RootCause,
    analysis_hash,
    json_schema,
    json_schema_text,
)
from rcaeval.harness._gates import GATE_IDS
from rcaeval.harness._io import drop_nulls, read_responses
from rcaeval.harness._ledger import guarded, is_disruptive, looks_disruptive
from rcaeval.harness._result import DIMENSIONS, STATUSES, GateResult, HarnessResult, Repair, Score

__all__ = [
    "DIMENSIONS",
    "GATE_IDS", "STATUSES", "Alert", "BatchResult",
    "EvidenceArtifact", "GateResult", "HarnessConfig", "HarnessResult",
    "RcaResponse", "Repair", "RootCause", "Score", "analysis_hash",
    "check", "check_batch", "drop_nulls", "guarded", "is_disruptive", "json_schema",
    "json_schema_text", "looks_disruptive", "parse_response", "read_responses", "summarize",
]
