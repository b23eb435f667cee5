"""Public RCA corpora as registry suites (docs/import.md, "Public corpora").

    from rcaeval.corpora import import_openrca, import_rcaeval, openrca_scores
    report = import_openrca("dataset", "Bank", "registry")     # ImportReport
    report.cases, report.skipped                              # ids; Skipped(row, reason)
    scores = openrca_scores("registry", run_answers("out/audits/RUN"))

Each importer writes whole cases (staged, validated, renamed into place) through
:mod:`rcaeval.corpora._write`; the OpenRCA profile scores answers with OpenRCA's own rules
(:mod:`rcaeval.offline._openrca_rules`, the one home of them).
"""

from rcaeval.corpora._openrca import import_openrca
from rcaeval.corpora._profile import PROFILE_SCHEMA, export_openrca, openrca_scores, run_answers
from rcaeval.corpora._rcaeval import import_rcaeval
from rcaeval.corpora._write import ImportReport, Skipped

__all__ = ["PROFILE_SCHEMA", "ImportReport", "Skipped", "export_openrca", "import_openrca",
           "import_rcaeval", "openrca_scores", "run_answers"]
