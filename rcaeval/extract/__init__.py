"""Run-bundle resolution and extraction of audit dirs into the raw DuckDB tables.

See docs/extract.md for what each raw table holds and docs/bundle-contract.md for the input.
"""

from __future__ import annotations

from rcaeval.extract._batch import discover_case_dirs, extract_cases
from rcaeval.extract._case import CaseRef, extract_case
from rcaeval.extract._evidence import flatten_events, flatten_metrics, flatten_queries
from rcaeval.extract._jsonflat import elided_table, flatten_json
from rcaeval.extract._logs import (
    flatten_log_text,
    flatten_logs_json,
    flatten_telemetry,
    parse_log_line,
)
from rcaeval.extract._output import classify_section, flatten_output, split_sentences
from rcaeval.extract._patch import flatten_patch
from rcaeval.extract._resolve import resolve_bundle
from rcaeval.extract._safe import DEFAULT_MAX_FILE_BYTES, CaseFS, FileRecord, parse_json
from rcaeval.extract._schema import PAYLOAD_SCHEMAS, RAW_CATALOG, RAW_TABLES, RawTable

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "parse_json",
    "PAYLOAD_SCHEMAS",
    "RAW_CATALOG",
    "RAW_TABLES",
    "CaseFS",
    "CaseRef",
    "FileRecord",
    "RawTable",
    "classify_section",
    "discover_case_dirs",
    "elided_table",
    "extract_case",
    "extract_cases",
    "flatten_events",
    "flatten_json",
    "flatten_log_text",
    "flatten_logs_json",
    "flatten_metrics",
    "flatten_output",
    "flatten_patch",
    "flatten_queries",
    "flatten_telemetry",
    "parse_log_line",
    "resolve_bundle",
    "split_sentences",
]
