"""Importing real telemetry into a case's ``incident/`` dir (docs/import.md).

Each source format has its own module here and its own ``rcaeval import <source>`` command
(``rcaeval/cli/_import_<source>.py``); all of them write through
:func:`incident_update`, so a failed import never leaves a half-written dir.
"""

from rcaeval.ingest._incident import (
    append_log_lines,
    incident_update,
    log_name,
    merge_records,
    source_error,
)

__all__ = ["append_log_lines", "incident_update", "log_name", "merge_records", "source_error"]
