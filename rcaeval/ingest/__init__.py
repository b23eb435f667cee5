"""Importing real telemetry into a case's ``incident/`` dir (docs/import.md).

Each source format has its own module here and its own ``rcaeval import <source>`` command
(``rcaeval/cli/_import_<source>.py``); all of them write through
:func:`incident_update`, so a failed import never leaves a half-written dir.

Typical use::

    from rcaeval.ingest import import_prometheus, import_alertmanager
    import_prometheus(["latency.json", "errors.json"], "incident")
    import_alertmanager(["alerts.json"], "incident")
"""

from rcaeval.ingest._alertmanager import (
    AlertImport,
    alertmanager_checks,
    import_alertmanager,
)
from rcaeval.ingest._capture import CaptureResult, capture_case, read_queries
from rcaeval.ingest._common import Window, incident_dir, parse_window
from rcaeval.ingest._incident import (
    append_log_lines,
    incident_update,
    log_name,
    merge_records,
    write_doc,
)
from rcaeval.ingest._kube import import_kube_events, import_kube_pods, kube_events
from rcaeval.ingest._loki import import_journal, import_loki
from rcaeval.ingest._otlp import import_otlp, otlp_spans
from rcaeval.ingest._plainlog import import_plain_logs, plain_entries
from rcaeval.ingest._prometheus import SeriesImport, import_prometheus, prometheus_series
from rcaeval.ingest._window import parse_window_bounds

__all__ = ["AlertImport", "CaptureResult", "SeriesImport", "read_queries", "write_doc",
           "Window", "alertmanager_checks", "append_log_lines", "capture_case",
           "import_alertmanager", "import_journal", "import_kube_events",
           "import_kube_pods", "import_loki", "import_otlp", "import_plain_logs",
           "import_prometheus", "incident_dir", "incident_update",
           "kube_events", "log_name", "merge_records",
           "otlp_spans", "parse_window", "parse_window_bounds", "plain_entries",
           "prometheus_series"]
