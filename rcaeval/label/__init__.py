"""Judge calibration against human labels (docs/calibration.md): labelling sheets out of the
store and back in, agreement of the judge with people, and a gate on it.

    import rcaeval.store as st
    import rcaeval.label as lb
    s = st.connect()
    lb.export_sheet(s, "rec-thorough", "sheet.csv", blind=True)   # a labeller fills it in
    lb.import_sheet(s, "sheet.csv")
    a = lb.agreement(s)           # a.table: verdict, buckets, checks, detectors vs people
    a.total("verdict")["kappa"]
"""

from __future__ import annotations

from rcaeval.label._agreement import JUDGES, Agreement, agreement, record_baseline
from rcaeval.label._chart import agreement_chart
from rcaeval.label._gate import GateResult, gate
from rcaeval.label._import import ImportResult, import_sheet, label_history
from rcaeval.label._sheet import FILL_FIELDS, export_sheet

__all__ = ["FILL_FIELDS", "JUDGES", "Agreement", "GateResult",
           "ImportResult", "agreement", "agreement_chart", "export_sheet", "gate", "import_sheet",
           "label_history", "record_baseline"]
