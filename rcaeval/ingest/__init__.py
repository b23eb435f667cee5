"""Importing real telemetry into a case's ``incident/`` dir (docs/import.md).

Each source format has its own module here and its own ``rcaeval import <source>`` command
(``rcaeval/cli/_import_<source>.py``); all of them write through
:func:`incident_update`, so a failed import never leaves a half-written dir.
"""

from rcaeval.ingest._common import Window, incident_dir, parse_window
from rcaeval.ingest._incident import (
    append_log_lines,
    incident_update,
    log_name,
    merge_records,
    source_error,
)
from rcaeval.ingest._otlp import import_otlp, otlp_spans

__all__ = ["Window", "append_log_lines", "import_otlp", "incident_dir", "incident_update",
           "log_name", "merge_records", "otlp_spans", "parse_window", "source_error"]
