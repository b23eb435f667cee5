"""The fact catalog: every boolean fact a check may name (docs/registry.md, "Fact catalog").

Facts are booleans per (run, case); their definitions are the SQL views in ``queries/facts/``.
``detector.<id>`` names the output detector ``<id>`` declared in the same judge.yaml.
"""

from __future__ import annotations

DETECTOR_FACT_PREFIX = "detector."

FACTS: dict[str, str] = {
    "bundle.resolved": "exactly one run bundle was resolved",
    "window.present": "the report (or manifest fallback) states an incident window",
    "window.matched_allowed_window": "that window lies within the case window ± tolerance",
    "cluster.present": "the report (or manifest fallback) states a cluster id",
    "cluster.matched": "it equals the case's environment.cluster_id",
    "workflow.architecture_context_loaded": "telemetry has architecture_context.loaded",
    "workflow.misdiagnosis_guardrails_loaded": "telemetry has guardrails.loaded",
    "workflow.diagnosis_run_initialized": "telemetry has diagnosis_run.initialized",
    "workflow.evidence_collection_completed": (
        "telemetry has evidence_collection.completed and the report exists"
    ),
    "workflow.summary_read_completed": "telemetry has summary.read, or a summary artifact exists",
    "workflow.targeted_log_query_completed": "telemetry has log_query.completed",
    "workflow.final_answer_emitted": "the final output text is non-empty",
    "artifacts.manifest_present": "manifest.json parsed",
    "artifacts.report_present": "evidences/workspace_evidence_report.json parsed",
    "artifacts.summary_present": "evidence_summary_for_agent.txt or .json present",
    "artifacts.telemetry_present": "the telemetry log is present",
    "artifacts.analysis_patch_present": "analysis_patch.json present (valid or not)",
    "artifacts.logs_dir_present": "a logs/ dir with at least one file",
    "evidence.core_bundle_present": "report, metrics.json, queries.json and logs.json all parsed",
    "evidence.metric_evidence_present": "at least one metric series with a point",
    "evidence.query_evidence_present": "at least one query record",
    "evidence.collection_errors_present": "collection_errors.json lists at least one error",
    "evidence.unsealed_records": "a sealed run holds an evidence record the tools did not "
    "return, or one edited after they returned it",
    "evidence.contradicts_incident_data": "an evidence record contradicts the case's incident "
    "data (a log line, metric value or alert it does not have)",
    "evidence.nonfinite_numbers_present": "a warning: a bundle JSON file held bare NaN/Infinity "
    "numbers (read leniently as non-finite)",
    "metrics.nan_points": "a warning: metric points whose value is NaN (counted in the "
    "detail; never compared with a threshold)",
    "metrics.infinite_points": "a warning: metric points whose value is +/-Infinity (counted "
    "in the detail; never compared with a threshold)",
    "answer.structured_root_cause": "the answer states its root-cause family as data (report "
    "analysis.structured_root_cause, or evidences/rca_response.json root_cause)",
    "answer.structured_family_matches": "that family is the ground-truth family or one of its "
    "declared synonyms",
    "answer.structured_component_matches": "its component is the ground-truth component (or a "
    "synonym), or the truth or the answer names none",
    "answer.structured_prose_disagree": "the structured root cause and the prose hard checks "
    "disagree on the diagnosis",
    "channel.logs_observed": "log lines exist (logs.json entries or logs/ files)",
    "channel.metrics_observed": "= evidence.metric_evidence_present",
    "channel.queries_observed": "= evidence.query_evidence_present",
    "channel.events_observed": "events.json or report evidence.events lists an event",
    "channel.ticket_context_observed": (
        "ticket_context.json has a ticket id or alerts, or telemetry has ticket_context.loaded"
    ),
    "channel.alerts_observed": "gate_checks.json lists at least one alert or gate check",
    "channel.traces_observed": "traces.json lists at least one trace span",
    "channel.query_or_metric_observed": "queries or metrics observed",
    "channel.events_collection_attempted": (
        "telemetry has events_query.attempted or the report's channels.events.attempted is true"
    ),
    "channel.events_output_present": (
        "events.json parsed or the report has an evidence.events key"
    ),
    "channel.events_attempted_implies_persisted": "not attempted, or output present",
    "signal.panic_present": (
        "a log line or component termination reason contains a panic signature"
    ),
    "signal.kill_query_present": "a log line or query record shows a KILL QUERY / killed statement",
    "signal.infra_unhealthy": (
        "an infrastructure-health gate in gate_checks.json (its name says infra) is fail or warn"),
    "signal.hotspot_present": (
        "a hotspot gate in gate_checks.json (its name says hotspot or hot region) is fail or warn"),
    "signal.alert_firing": (
        "gate_checks.json lists a gate check or alert rule with status fail"),
    "signal.error_logs_present": (
        "the log statistics (logs.json stats.by_level, or log_stats.json by_level) count an "
        "ERROR/FATAL/CRITICAL line, or a collected log line has such a level"),
    "contract.required_workflow_present": "every required workflow check passed",
    "contract.required_artifacts_present": "manifest, report and evidence dir present",
    "contract.preferred_channels_minimum_observed": (
        ">= min_preferred_channels preferred channels observed"
    ),
    "contract.preferred_channels_all_observed": "every preferred channel observed",
    "analysis.patch_present": "= artifacts.analysis_patch_present",
    "analysis.patch_valid_json": "the patch parsed as a JSON object with an items list",
    "analysis.items_shape_valid": (
        "every item has id, claim, role in {key, supporting} and a refs list of {type, id}"
    ),
    "analysis.key_evidence_present": "at least one item with role: key and a ref",
    "analysis.metric_refs_resolvable": "every metric ref names a collected series id",
    "analysis.query_refs_resolvable": "every query ref names a collected query id",
    "analysis.log_refs_resolvable": (
        "every log ref names a collected log entry id (needs logs observed)"
    ),
    "analysis.event_refs_resolvable": (
        "every event ref names a collected event id (needs events observed)"
    ),
    "analysis.report_root_cause_present": (
        "the report's analysis block states a root cause (analysis.root_cause)"),
    "analysis.report_findings_present": (
        "the report's analysis block lists at least one key finding (analysis.key_findings)"),
    "analysis.report_findings_grounded": (
        "the report lists key findings and each is the claim of a valid analysis_patch.json "
        "item citing collected evidence"),
    "analysis.all_refs_resolvable": "all four analysis.*_refs_resolvable facts hold",
}
"""Fact name -> one-line description. ``detector.<id>`` facts are not listed (see prefix)."""


def is_known_fact(name: str, detector_ids: set[str] | frozenset[str] = frozenset()) -> bool:
    """True when ``name`` is in the catalog or is ``detector.<id>`` of a declared detector."""
    if name in FACTS:
        return True
    if name.startswith(DETECTOR_FACT_PREFIX):
        return name[len(DETECTOR_FACT_PREFIX):] in detector_ids
    return False


REPORT_FILE = "evidences/workspace_evidence_report.json"
_TELEMETRY = "milestone:"

FACT_INPUTS: dict[str, tuple[str, ...]] = {
    "bundle.resolved": ("manifest.json",),
    "window.present": (REPORT_FILE, "manifest.json"),
    "window.matched_allowed_window": ("fact:window.present",),
    "cluster.present": (REPORT_FILE, "manifest.json"),
    "cluster.matched": ("fact:cluster.present",),
    "workflow.architecture_context_loaded": (_TELEMETRY + "architecture_context.loaded",),
    "workflow.misdiagnosis_guardrails_loaded": (_TELEMETRY + "guardrails.loaded",),
    "workflow.diagnosis_run_initialized": (_TELEMETRY + "diagnosis_run.initialized",),
    "workflow.evidence_collection_completed": (_TELEMETRY + "evidence_collection.completed",),
    "workflow.summary_read_completed": (_TELEMETRY + "summary.read",
                                        "evidences/evidence_summary_for_agent.json",
                                        "evidences/evidence_summary_for_agent.txt"),
    "workflow.targeted_log_query_completed": (_TELEMETRY + "log_query.completed",),
    "workflow.final_answer_emitted": ("output.txt", "transcript.json"),
    "artifacts.manifest_present": ("manifest.json",),
    "artifacts.report_present": (REPORT_FILE,),
    "artifacts.summary_present": ("evidences/evidence_summary_for_agent.json",
                                  "evidences/evidence_summary_for_agent.txt"),
    "artifacts.telemetry_present": (".opencode/telemetry.log",),
    "artifacts.analysis_patch_present": ("analysis_patch.json",),
    "artifacts.logs_dir_present": ("logs/",),
    "evidence.core_bundle_present": (REPORT_FILE,),
    "evidence.metric_evidence_present": ("evidences/metrics.json",),
    "evidence.query_evidence_present": ("evidences/queries.json",),
    "evidence.collection_errors_present": ("evidences/collection_errors.json",),
    "evidence.nonfinite_numbers_present": (),
    "metrics.nan_points": (),
    "metrics.infinite_points": (),
    "answer.structured_root_cause": (REPORT_FILE,),
    "answer.structured_family_matches": (REPORT_FILE,),
    "answer.structured_component_matches": (REPORT_FILE,),
    "answer.structured_prose_disagree": (REPORT_FILE,),
    "evidence.unsealed_records": ("seal.json", "evidences/seals.json"),
    "evidence.contradicts_incident_data": ("evidences/logs.json", "evidences/metrics.json",
                                           "evidences/gate_checks.json"),
    "channel.logs_observed": ("evidences/logs.json", "logs/"),
    "channel.metrics_observed": ("evidences/metrics.json",),
    "channel.queries_observed": ("evidences/queries.json",),
    "channel.events_observed": ("evidences/events.json",),
    "channel.ticket_context_observed": ("evidences/ticket_context.json",
                                        _TELEMETRY + "ticket_context.loaded"),
    "channel.alerts_observed": ("evidences/gate_checks.json",),
    "channel.traces_observed": ("evidences/traces.json",),
    "channel.query_or_metric_observed": ("evidences/queries.json", "evidences/metrics.json"),
    "channel.events_collection_attempted": (_TELEMETRY + "events_query.attempted",),
    "channel.events_output_present": ("evidences/events.json",),
    "channel.events_attempted_implies_persisted": ("manifest.json",),
    "signal.panic_present": ("evidences/logs.json", "logs/",
                             "evidences/component_health.json"),
    "signal.kill_query_present": ("evidences/logs.json", "logs/", "evidences/queries.json"),
    "signal.infra_unhealthy": ("evidences/gate_checks.json",),
    "signal.hotspot_present": ("evidences/gate_checks.json",),
    "signal.alert_firing": ("evidences/gate_checks.json",),
    "signal.error_logs_present": ("evidences/logs.json", "evidences/log_stats.json", "logs/"),
    "contract.required_workflow_present": ("manifest.json",),
    "contract.required_artifacts_present": ("manifest.json", REPORT_FILE),
    "contract.preferred_channels_minimum_observed": ("evidences/logs.json",
                                                     "evidences/metrics.json",
                                                     "evidences/queries.json",
                                                     "evidences/events.json"),
    "contract.preferred_channels_all_observed": ("evidences/logs.json",
                                                 "evidences/metrics.json",
                                                 "evidences/queries.json",
                                                 "evidences/events.json"),
    "analysis.patch_present": ("analysis_patch.json",),
    "analysis.patch_valid_json": ("analysis_patch.json",),
    "analysis.items_shape_valid": ("analysis_patch.json",),
    "analysis.key_evidence_present": ("analysis_patch.json",),
    "analysis.metric_refs_resolvable": ("analysis_patch.json",),
    "analysis.query_refs_resolvable": ("analysis_patch.json",),
    "analysis.log_refs_resolvable": ("analysis_patch.json",),
    "analysis.event_refs_resolvable": ("analysis_patch.json",),
    "analysis.report_root_cause_present": (REPORT_FILE,),
    "analysis.report_findings_present": (REPORT_FILE,),
    "analysis.report_findings_grounded": ("analysis_patch.json",),
    "analysis.all_refs_resolvable": ("analysis_patch.json",),
}
"""Catalog fact -> what it is read from, any one of which can make it true: a bundle path
(``logs/`` is a dir), ``milestone:<event>`` (a telemetry line), ``fact:<name>`` (derived from
another fact). ``rcaeval validate`` warns about a check that needs a fact to be true when
nothing an agent is given produces any of its inputs (rcaeval/prove: the incident tools'
table ``rcaeval.tools._catalog`` and the runner's own files). Facts that hold vacuously
(``contract.*`` over zero checks, ``channel.events_attempted_implies_persisted``) list
``manifest.json``, which the runner always writes. ``evidence.nonfinite_numbers_present``,
``metrics.nan_points`` and ``metrics.infinite_points`` list nothing: no tool writes a
non-finite number."""
