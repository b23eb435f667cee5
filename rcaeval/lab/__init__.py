"""The incident lab (docs/lab.md): a live PostgreSQL + Prometheus stack on 127.0.0.1 with fault
scenarios injected into it, so an agent investigates a real, running incident.

    from rcaeval import lab
    lab.up()                                   # fresh stack in lab.default_dir()
    sc = lab.load_scenario("lab-lock-contention")
    lab.inject(sc); lab.wait_alert(sc.expected_alert.name, timeout_s=90)
    lab.revert(sc); lab.check_recovery(sc)     # {"resolved": True, "after_s": ...}
    lab.down()                                 # nothing left running
"""

from rcaeval.lab._actions import ACTIONS, apply_action, gate3_missing, read_actions
from rcaeval.lab._capture import capture
from rcaeval.lab._case import scenario_case, scenario_judge
from rcaeval.lab._inject import check_recovery, inject, revert, wait_alert
from rcaeval.lab._live import LabSource, LiveIncidentTools
from rcaeval.lab._live_server import build_live_server, serve_live
from rcaeval.lab._mitigation import assess
from rcaeval.lab._procs import LabError
from rcaeval.lab._scenario import (
    OracleTarget,
    Scenario,
    load_scenario,
    load_scenario_file,
    load_scenarios,
    scenario_paths,
)
from rcaeval.lab._selftest import SelftestReport, selftest
from rcaeval.lab._stack import default_dir, down, firing_alerts, missing_binaries, status, up
from rcaeval.lab._suite import (
    LabCases,
    lab_session,
    mitigation_rows,
    registry_root,
    render_mitigation,
)

__all__ = [
    "ACTIONS", "apply_action", "assess", "build_live_server", "capture", "check_recovery",
    "default_dir", "down", "firing_alerts", "gate3_missing", "inject", "lab_session",
    "LabCases", "LabError", "LabSource", "LiveIncidentTools", "load_scenario",
    "load_scenario_file", "load_scenarios", "missing_binaries", "mitigation_rows",
    "OracleTarget", "read_actions", "registry_root", "render_mitigation", "revert", "Scenario",
    "scenario_case", "scenario_judge", "scenario_paths", "selftest", "SelftestReport",
    "serve_live", "status", "up", "wait_alert"]
