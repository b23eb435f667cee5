"""What each incident tool serves and what it writes into the run bundle: one declarative
table (docs/tools.md, "The tools").

The table is the one home of the tool -> (channel, incident files, bundle files, milestones)
mapping. The tools themselves route their calls through it (``channel`` decides which
backend a ``tool_status.json`` outage takes down), the MCP server must serve exactly these
tools (tests/tools), and checks that ask "can an agent reach this file through the tools?"
(``rcaeval case prove``, ``rcaeval validate``) read it instead of guessing.

Paths are relative: ``incident`` to the case's ``incident/`` dir, ``writes`` to the bundle
dir. A bundle file is written only with what the tool *returned* (docs/tools.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from rcaeval._vocab import BUNDLE_CHANNELS


@dataclass(frozen=True)
class ToolOutput:
    """One tool's row of :data:`TOOL_OUTPUTS`."""

    tool: str
    channel: str | None
    """The evidence channel it collects (a name of ``rcaeval._vocab.EVIDENCE_CHANNELS``), or
    None for context and reporting tools."""
    incident: tuple[str, ...]
    """The incident files it serves (relative to ``incident/``)."""
    writes: tuple[str, ...]
    """The bundle files it writes (relative to the bundle dir)."""
    milestones: tuple[str, ...] = ()
    """The telemetry milestones it adds besides ``tool.call`` / ``tool.error``."""


REPORT = "evidences/workspace_evidence_report.json"
TELEMETRY = ".opencode/telemetry.log"

TOOL_OUTPUTS: tuple[ToolOutput, ...] = (
    ToolOutput("get_ticket", "ticket_context", ("ticket.json",),
               ("evidences/ticket_context.json",), ("ticket_context.loaded",)),
    ToolOutput("get_topology", None, ("topology.json",),
               ("evidences/cluster_meta.json",), ("architecture_context.loaded",)),
    ToolOutput("get_guardrails", None, (), (), ("guardrails.loaded",)),
    ToolOutput("list_metrics", "metrics", ("metrics.json",), ()),
    ToolOutput("query_metrics", "metrics", ("metrics.json",),
               ("evidences/metrics.json", REPORT), ("metric_query.completed",)),
    ToolOutput("search_logs", "logs", ("logs/*.log",),
               ("evidences/logs.json", REPORT), ("log_query.completed",)),
    ToolOutput("list_events", "events", ("events.json",),
               ("evidences/events.json", REPORT), ("events_query.attempted",)),
    ToolOutput("get_component_health", None, ("component_health.json",),
               ("evidences/component_health.json",)),
    ToolOutput("get_slow_queries", "queries", ("slow_queries.json",),
               ("evidences/queries.json", REPORT)),
    ToolOutput("get_alerts", "alerts", ("alerts.json",), ("evidences/gate_checks.json",)),
    ToolOutput("search_traces", "traces", ("traces.json",), ("evidences/traces.json",)),
    ToolOutput("get_evidence_summary", None, (),
               ("evidences/evidence_summary_for_agent.json",), ("summary.read",)),
    ToolOutput("submit_report", None, (),
               ("analysis_patch.json", REPORT, "output.txt"),
               ("evidence_collection.completed", "final_answer.emitted")),
)
"""Every incident tool, in the order the server lists them.

Every call also appends ``tool.call`` (or ``tool.error``) to ``.opencode/telemetry.log``; the
first call adds ``diagnosis_run.initialized`` and the first call of a tool with a channel
``evidence_collection.started``; a call of a tool whose channel is down
(``incident/tool_status.json``) writes ``evidences/collection_errors.json`` instead. The core
files (the report, ``metrics.json``, ``queries.json``, ``logs.json``) exist from the first
call on, holding what was returned so far."""

ALWAYS_WRITTEN: tuple[str, ...] = (REPORT, "evidences/metrics.json", "evidences/queries.json",
                                   "evidences/logs.json", TELEMETRY)
"""Bundle files the tool server writes from the first call on, whatever was called."""

ON_OUTAGE: tuple[str, ...] = ("evidences/collection_errors.json",)
"""Bundle files written when a call hits a channel listed in ``tool_status.json``."""

OUTAGE_CHANNELS: tuple[str, ...] = (*BUNDLE_CHANNELS, "alerts", "traces")
"""The channels whose backend ``incident/tool_status.json`` may list as unavailable (their
tools then answer with an error and write :data:`ON_OUTAGE`)."""


def tool_output(tool: str) -> ToolOutput:
    """The row of ``tool``; KeyError naming the known tools otherwise."""
    for row in TOOL_OUTPUTS:
        if row.tool == tool:
            return row
    raise KeyError(f"no incident tool {tool!r}; tools: "
                   + ", ".join(r.tool for r in TOOL_OUTPUTS))


def tools_writing(path: str) -> list[ToolOutput]:
    """The tools that write bundle file ``path``, given as a judge.yaml check's ``file``
    names it: with a ``/`` it is bundle-relative, else a file under ``evidences/`` (the
    judge's rule, queries/facts/methods.sql). A file written when a channel is down
    (:data:`ON_OUTAGE`) is written by every tool of a channel that can be down."""
    rel = bundle_path(path)
    if rel in ON_OUTAGE:
        return [row for row in TOOL_OUTPUTS if row.channel in OUTAGE_CHANNELS]
    return [row for row in TOOL_OUTPUTS if rel in row.writes]


def bundle_path(file: str) -> str:
    """A judge.yaml check's ``file`` as the bundle-relative path the judge reads."""
    return file if "/" in file else f"evidences/{file}"


def tools_of_channel(channel: str) -> list[ToolOutput]:
    """The tools that collect ``channel`` (e.g. ``logs`` -> ``search_logs``)."""
    return [row for row in TOOL_OUTPUTS if row.channel == channel]


def written_files() -> frozenset[str]:
    """Every bundle file some tool (or every call) writes."""
    return frozenset({f for row in TOOL_OUTPUTS for f in row.writes}
                     | set(ALWAYS_WRITTEN) | set(ON_OUTAGE))
