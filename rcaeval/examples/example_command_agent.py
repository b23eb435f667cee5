"""Example command agent on the bundle SDK (no LLM): reads incident/, writes the bundle with
BundleWriter, prints its answer. ``command:{python} -m rcaeval.examples.example_command_agent``"""
import json
import os
import sys
from pathlib import Path

from rcaeval.bundle import BundleWriter
from rcaeval.examples._diagnosis import GUARDRAILS, diagnose, load_incident, render_answer


def investigate(root: Path):
    case = json.loads((root / "case.json").read_text())
    w = BundleWriter(root, cluster_id=case["environment"]["cluster_id"],
                     time_window=(case["time_window"]["start"], case["time_window"]["end"]))
    w.milestone("diagnosis_run.initialized")
    inc = load_incident(root)
    w.set_architecture(inc.topology), w.milestone("guardrails.loaded", detail=str(GUARDRAILS))
    if inc.ticket:
        w.set_ticket(inc.ticket)
    w.milestone("events_query.attempted"), w.add_events(inc.events), w.add_log_entries(inc.logs)
    w.add_series(inc.series), w.add_queries(inc.queries), w.set_component_health(inc.components)
    w.add_gate_checks(inc.alerts)  # evidences/gate_checks.json: the alerts that fired or failed
    for channel in inc.unavailable:
        w.channel_error(channel, "tool unavailable (incident/tool_status.json)")
    d = diagnose(inc)
    w.write_summary(), w.add_finding(d.root_cause, d.key_refs), w.set_analysis(d.root_cause)
    w.complete_collection(), w.final_answer(render_answer(d))
    return d


if __name__ == "__main__":
    root = Path.cwd()
    if os.environ.get("RCAEVAL_TURN", "1") == "1":
        sys.stdout.write(render_answer(investigate(root)))
    else:  # a follow-up turn: name the key evidence
        refs = json.loads((root / "analysis_patch.json").read_text())["items"][0]["refs"]
        sys.stdout.write("The key evidence: " + ", ".join(r["id"] for r in refs) + ".\n")
