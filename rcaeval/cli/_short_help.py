"""The one-line description of every command in its group's command list (``rcaeval
--help``, ``rcaeval db --help``, ...). click would otherwise cut each command's first
help paragraph at ~45 characters with ``...``, mid-phrase. Each line fits an 80-column
terminal (tests/api/test_cli_help.py). A command missing here gets the first sentence of
its help, cut at a phrase boundary (:func:`derived_short_help`), never with ``...``."""

from __future__ import annotations

import inspect
import re

SHORT_HELP: dict[str, str] = {
    "demo": "Run the sample suite with two agents and explain the result",
    "doctor": "Check the set-up (store, registry, sandbox, agent)",
    "harness": "Check RCA responses: gates, score, repairs",
    "judge": "Judge recorded agent runs into the store",
    "explain": "Print one judgment: bucket -> check -> evidence",
    "report": "Write a run's text reports, or its HTML run page",
    "run": "Run a suite against an agent and judge every case",
    "schema": "Write the JSON schemas of every registry file",
    "validate": "Lint a registry (exit 3 on any error)",
    "version": "Print rcaeval's version",
    "baseline": "Promote, diff and show suite baselines",
    "baseline promote": "Make a run its suite's baseline",
    "baseline diff": "Compare a run with its suite's baseline",
    "baseline show": "Print a suite's baseline",
    "bundle": "The run-bundle SDK",
    "bundle lint": "Check a bundle against the contract",
    "case": "Author and check one registry case",
    "import": "Import real telemetry, or a public RCA corpus as cases",
    "import openrca": "OpenRCA's tasks as registry cases and a suite",
    "import rcaeval": "RCAEval's RE1/RE2/RE3 fault injections as cases",
    "import prometheus": "Prometheus query_range JSON into metrics.json",
    "import alertmanager": "Alertmanager /api/v2/alerts JSON into alerts.json",
    "case new": "Draft a case's files from incident data",
    "case try": "Judge one answer against a case",
    "case prove": "Prove each case: oracle passes, lazy and wrong fail",
    "case capture": "Capture live Prometheus / Alertmanager data as a drafted case",
    "db": "Create, migrate, inspect, export and query the store",
    "db init": "Create the store and apply every migration",
    "db migrate": "Apply pending migrations",
    "db info": "Show the store's path, schema version and tables",
    "db export": "Export tables to Parquet",
    "db import": "Import tables from Parquet",
    "db sql": "Run one SQL statement and print the result",
    "notebook": "Render report notebooks to static HTML",
    "notebook regression": "The regression report of a run",
    "notebook explore": "Explore the store: slices and two runs compared",
    "notebook release-gate": "The release gate report",
    "offline": "Offline evaluation of captured RCA responses",
    "offline score": "Per-case-type metrics over a fixture file",
    "offline novel-gate": "Novel-incident output gate over captures",
    "offline sample": "Regenerate the sample fixtures",
    "offline mutate": "Novelty mutations of known cases",
    "offline openrca": "Score predictions as OpenRCA's evaluator does",
    "offline openrca-run": "Score a run on imported OpenRCA cases as OpenRCA does",
    "offline ranked": "AC@k and Avg@k of ranked candidate lists",
    "offline compare": "Paired McNemar test of two systems",
    "release": "Release gate: metrics, gate, windows, reports",
    "release metrics": "Compute the gate metrics over a capture window",
    "release gate": "Check a metrics JSON against the gate thresholds",
    "release record": "Record a metrics JSON's window in the store",
    "release windows": "List the release windows in the store",
    "release report": "The release gate report as HTML",
    "release sample": "Write a generated capture window",
    "release candidates": "Knowledge candidates from passing reviews",
    "release compare": "Compare a shadow artifact with the active one",
    "release reviews": "Operator reviews: validate, import, history",
    "release reviews validate": "Validate operator reviews",
    "release reviews import": "Validate reviews and store the valid ones",
    "release reviews history": "Stored reviews with their state",
    "release reviews actions": "Verified actions of the reviews",
    "semantic": "The semantic shadow judge's results",
    "semantic agreement": "Detectors vs semantic verdicts per check",
    "semantic summary": "A run's shadow: statuses, passes, cost",
    "label": "Human labels: sheets, agreement, the judge gate",
    "label export": "Write a labelling sheet for a judged run",
    "label import": "Load a filled-in labelling sheet",
    "label agreement": "Judge vs people: kappa, agreement, disagreements",
    "label baseline": "Record the judge's values of the labelled cases",
    "label gate": "Re-judge labelled cases; exit 4 if agreement drops",
    "synth": "Generate sample registries and recorded runs",
    "synth sample": "Regenerate the smoke suite and recorded runs",
    "synth runs": "Stream recorded runs for benchmarks",
    "lab": "The incident lab: live faults on PostgreSQL + Prometheus",
    "lab up": "Start the lab fresh (cleaning up a killed run)",
    "lab down": "Stop everything the lab started",
    "lab status": "Components, targets, firing alerts, scenario",
    "lab scenarios": "List the fault scenarios",
    "lab inject": "Inject a scenario's fault and wait for its alert",
    "lab revert": "Undo a scenario's fault and check recovery",
    "lab tools": "Serve the running lab's live incident tools (MCP)",
    "lab capture": "Capture the lab's incident window into a case",
    "lab selftest": "The lab suite with a reference agent: alert, verdict, mitigation",
    "tools": "Incident tools over MCP",
    "tools serve": "Serve one case's incident tools over MCP",
}
"""Command path (``"db sql"``) -> its line in the group's command list."""

SHORT_HELP_LIMIT = 56
"""Longest derived line: fits beside a 12-character command name in 80 columns."""
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|etc|vs)\.$")


def derived_short_help(text: str, limit: int = SHORT_HELP_LIMIT) -> str:
    """The first sentence of ``text`` (outside parentheses; ``e.g.`` is no sentence end);
    longer than ``limit``, cut at its last comma / parenthesis / dash before ``limit``."""
    para = inspect.cleandoc(text or "").split("\n\n")[0].replace("\n", " ")
    depth, end = 0, len(para)
    for i, ch in enumerate(para):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch in ".;:" and depth == 0 and (i + 1 == len(para) or para[i + 1] == " ") \
                and not (ch == "." and _ABBREV.search(para[: i + 1])):
            end = i
            break
    line = para[:end].strip()
    if len(line) <= limit:
        return line
    depth, cut = 0, 0
    for i, ch in enumerate(line[: limit + 1]):
        if ch in "([{":
            cut = i if depth == 0 else cut
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and (ch == "," or line[i:i + 3] in (" - ", " — ")):
            cut = i
    return line[:cut].rstrip(" ,") if cut else line
