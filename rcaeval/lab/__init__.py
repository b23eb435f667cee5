"""The incident lab (docs/lab.md): a live PostgreSQL + Prometheus stack on 127.0.0.1 with fault
scenarios injected into it, so an agent investigates a real, running incident.

    from rcaeval import lab
    lab.up()                                   # fresh stack in lab.default_dir()
    sc = lab.load_scenario("lab-lock-contention")
    lab.inject(sc); lab.wait_alert(sc.expected_alert.name, timeout_s=90)
    lab.revert(sc); lab.check_recovery(sc)     # {"resolved": True, "after_s": ...}
    lab.down()                                 # nothing left running
"""

from rcaeval.lab._inject import check_recovery, inject, revert, wait_alert
from rcaeval.lab._procs import LabError
from rcaeval.lab._scenario import Scenario, load_scenario, load_scenario_file, load_scenarios
from rcaeval.lab._selftest import SelftestReport, selftest
from rcaeval.lab._stack import default_dir, down, firing_alerts, missing_binaries, status, up

__all__ = ["LabError", "Scenario", "check_recovery", "default_dir", "down", "firing_alerts",
           "inject", "load_scenario", "load_scenario_file", "load_scenarios",
           "missing_binaries", "revert", "selftest", "SelftestReport", "status",
           "up", "wait_alert"]
