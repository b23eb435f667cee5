"""The top-level facade re-exports the subpackages' entry points lazily."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import rcaeval

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", [n for n in rcaeval.__all__ if n != "__version__"])
def test_every_exported_name_resolves(name: str) -> None:
    assert callable(getattr(rcaeval, name))


def test_unknown_name_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        rcaeval.no_such_thing  # noqa: B018


def test_import_is_lazy() -> None:
    code = "import sys, rcaeval; print('duckdb' in sys.modules, 'polars' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_connect_and_harness_through_the_facade(tmp_path) -> None:
    with rcaeval.connect(tmp_path / "s.duckdb") as s:
        assert s.judgments().height == 0
    sample = orjson.loads((REPO / "data/harness/samples.jsonl").read_bytes().splitlines()[0])
    result = rcaeval.check_response(sample["response"])
    assert result.status == sample["expect_status"]


def test_wheel_layout_finds_the_same_queries() -> None:
    """A wheel ships queries/ as rcaeval/_queries (the checkout's symlink); both must agree."""
    from rcaeval import _paths

    link = Path(_paths.__file__).parent / "_queries"
    assert link.resolve() == (REPO / "queries").resolve()
    assert (link / "buckets" / "diagnosis.sql").is_file()


def test_wheel_layout_finds_the_same_notebooks() -> None:
    from rcaeval import _paths

    link = Path(_paths.__file__).parent / "_notebooks"
    assert link.resolve() == (REPO / "notebooks").resolve()
    assert (_paths.notebooks_dir() / "regression_report.ipynb").is_file()


# Every subpackage facade, pinned: each exports what a user calls (docs, notebooks, tests or
# another subpackage name it), nothing internal; the package's own modules import each other's
# private modules directly. A facade added without an entry here fails
# test_every_facade_is_pinned.
FACADES = {
    "rcaeval.authoring": {
        "AnswerJudgment", "DetectorDecision", "DraftedCase", "draft_case", "try_answer"},
    "rcaeval.bundle": {
        "CHANNELS", "GATE_STATUSES", "MILESTONES", "REF_TYPES", "RULES", "SPAN_STATUSES",
        "BundleError", "BundleWriter", "LintFinding", "lint_bundle", "parse_time",
        "read_case_meta"},
    "rcaeval.charts": {
        "BASELINE_COLOR", "CATEGORY_COLORS", "RUN_COLOR", "STATUS_PALETTE", "VERDICT_PALETTE",
        "banner_html", "bucket_chart", "bucket_pass_rates", "captures_chart", "case_scores",
        "case_trajectory", "category_scale", "chart_svg", "comparison_scale", "count_axis",
        "display_value", "gate_rates_chart", "left_out_note", "paired_cases", "palette_colors",
        "palette_css", "probe_chart", "release_trend", "release_trend_left_out",
        "reliability_chart", "score_chart", "show_banner", "show_chart", "show_table",
        "table_html", "trajectory_by", "trajectory_chart", "trend_chart", "verdict_chart",
        "verdict_counts", "verdict_long", "verdict_scale"},
    "rcaeval.corpora": {
        "PROFILE_SCHEMA", "ImportReport", "Skipped", "export_openrca", "import_openrca",
        "import_rcaeval", "openrca_scores", "run_answers"},
    "rcaeval.doctor": {
        "STATUSES", "Check", "run_checks"},
    "rcaeval.extract": {
        "DEFAULT_MAX_FILE_BYTES", "PAYLOAD_SCHEMAS", "RAW_CATALOG", "RAW_TABLES",
        "BundleResolution", "CaseFS", "CaseRef", "CaseTables", "ExtractSummary", "FileRecord",
        "RawTable", "classify_section", "discover_case_dirs", "elided_table", "error_tables",
        "extract_case", "extract_cases", "flatten_events", "flatten_json", "flatten_log_text",
        "flatten_logs_json", "flatten_metrics", "flatten_output", "flatten_patch",
        "flatten_queries", "flatten_telemetry", "parse_log_line", "parse_ts", "resolve_bundle",
        "split_sentences"},
    "rcaeval.grammar": {
        "NEVER_MATCHES", "REGEX_KEYS", "Grammar", "any_regex", "default_grammar",
        "defaults_digest_bytes", "detector_regexes", "each_regex", "has_causal_cue",
        "heading_kind", "merge_extensions", "merged", "negation_regexes"},
    "rcaeval.harness": {
        "CONTRACT_VERSION", "DIMENSIONS", "ENV_ENABLE", "ENV_MAX_REPAIRS", "ENV_PASS_SCORE",
        "GATE_IDS", "STATUSES", "Action", "Alert", "BatchResult", "CheckRow", "Claim",
        "EvidenceArtifact", "GateResult", "HarnessConfig", "HarnessResult", "Hypothesis",
        "PlanStep", "RcaResponse", "Repair", "RootCause", "Score", "ToolError", "analysis_hash",
        "check", "check_batch", "drop_nulls", "guarded", "is_disruptive", "json_schema",
        "json_schema_text", "looks_disruptive", "parse_response", "read_responses", "summarize"},
    "rcaeval.ingest": {
        "LOG_FORMATS", "AlertImport", "CaptureResult", "Entry", "SeriesImport", "Window",
        "alertmanager_checks", "append_log_lines", "capture_case", "import_alertmanager",
        "import_journal", "import_kube_events", "import_kube_pods", "import_loki", "import_otlp",
        "import_plain_logs", "import_prometheus", "incident_dir", "incident_update",
        "journal_entries", "kube_events", "kube_pods", "log_name", "loki_entries", "merge_records",
        "otlp_spans", "parse_window", "plain_entries", "prometheus_series", "source_error",
        "write_entries"},
    "rcaeval.judge": {
        "BUCKETS", "BULK_MEMORY_LIMIT", "DEFAULT_CHUNK_SIZE", "JUDGE_VERSION",
        "CaseRules", "JudgeFrames", "Judging", "Provider", "Redecide",
        "case_anchor", "explain_html", "explain_tree", "flatten_rules", "judge_audit",
        "judge_loaded", "load_detector_hits", "load_judgment", "load_profiles", "register_cases",
        "rejudge_store", "run_judge_sql"},
    "rcaeval.lab": {
        "LabError", "Scenario", "check_recovery", "default_dir", "down", "firing_alerts", "inject",
        "load_scenario", "load_scenario_file", "load_scenarios", "missing_binaries", "revert",
        "selftest", "SelftestReport", "status", "up", "wait_alert"},
    "rcaeval.label": {
        "FILL_FIELDS", "JUDGES", "Agreement", "GateResult", "ImportResult", "agreement",
        "agreement_chart", "export_sheet", "gate", "import_sheet", "label_history",
        "record_baseline"},
    "rcaeval.metrics": {
        "KINDS", "RESULT_SCHEMA", "Metric", "compute_breakdown", "compute_metrics", "get_metric",
        "metric_registry"},
    "rcaeval.offline": {
        "BASELINE_FORMAT", "CASE_TYPES", "FIXTURE_FORMAT", "MUTATIONS", "MUTATION_FILE",
        "OFFLINE_SEED", "OPENRCA_SCORE_SCHEMA", "OUTCOMES", "Comparison", "Fixture", "FixtureError",
        "FixtureSet", "GateReport", "Mutation", "OfflineScore", "OpenRCAResult", "OpenRCASummary",
        "RankedResult", "RowScore", "compare_files", "dump_fixtures", "gate_metric_names",
        "generate_offline_sample", "load_fixture_tables", "mutate_bundle", "mutate_fixture",
        "mutate_fixtures", "mutate_run", "novel_gate", "parse_fixture", "parse_prediction",
        "parse_scoring_points", "read_baseline", "read_capture_fixtures", "read_fixtures",
        "read_openrca_query", "render_comparison", "render_openrca_summary", "render_ranked",
        "sample_fixtures", "score_fixtures", "score_metric_names", "score_openrca",
        "score_openrca_row", "score_parsed", "score_ranked", "summarise_openrca", "write_baseline"},
    "rcaeval.prove": {
        "ROLES", "CasePlan", "CaseProof", "ProofReport", "Unreachable", "case_plans", "plan_case",
        "prove", "unreachable_checks"},
    "rcaeval.registry": {
        "DEFAULT_TOOLS_MODE", "FACTS", "BaselineSpec", "CaseSpec", "JudgeSpec", "MergedCase",
        "Problem", "Registry", "RegistryError", "RootCause", "SuiteCaseEntry", "SuiteSpec",
        "ToolsMode", "apply_defaults", "is_known_fact", "iter_suite_cases", "load_case",
        "load_case_dir", "load_registry", "load_suite", "register_schema", "rules_hash",
        "schema_json", "validate_registry", "write_schemas"},
    "rcaeval.release": {
        "CAPTURE_FORMAT", "CASE_TYPES", "GATE", "GATE_METRICS", "KEY_ENV", "METRICS_FORMAT",
        "REVIEW_FORMAT", "REVIEW_SCORES", "STAGES", "VERIFIED_OUTCOMES", "CandidateResult",
        "Capture", "Comparison", "GateResult", "GateRow", "ImportResult", "KnowledgeActivation",
        "Measurement", "RecordResult", "ReleaseKey", "Review", "SampleSpec", "Threshold",
        "ToolExecution", "Window", "check_confidence", "check_gate", "compare", "import_reviews",
        "json_schemas", "knowledge_candidates", "load_artifact", "load_key", "measure", "metrics",
        "parse_window", "read_reviews", "record_window", "review_history", "seal", "sign",
        "stored_windows", "synthetic_artifact", "verified_actions", "write_document",
        "write_metrics_json", "write_sample", "write_shadow", "write_synthetic_files"},
    "rcaeval.report": {
        "AUTO", "CLASSES", "DETAIL_FILE", "DIFF_SCHEMA", "FORMATS", "KERNEL_NAME", "REPORT_FILE",
        "RESULTS_SCHEMA", "SNAPSHOT_MARKER", "VERDICT_RANK", "BaselineDiff", "NotebookRender",
        "ReleaseGateRender", "RepeatDiff", "ReportContext", "RunData", "RunPage", "SuiteInfo",
        "baseline_cases", "baseline_document", "baseline_path", "build_context", "case_audit_dir",
        "case_links_html", "case_table", "comparison_status", "default_audit_root",
        "describe_file_problem", "describe_integrity", "diff_against_baseline",
        "diff_repeats_against_baseline", "diff_run", "diff_to_dict", "drilldown_html",
        "find_baseline", "gate_banner", "integrity_of", "junit_xml", "load_baseline", "load_diff",
        "load_run", "parse_errors_of", "promote_baseline", "promotion_problems", "publish_result",
        "regression_banner", "render_baseline", "render_detail", "render_diff",
        "render_explore_notebook", "render_json", "render_markdown", "render_regression_notebook",
        "render_release_gate_notebook", "render_report", "render_run_page", "render_text",
        "run_audit_dir", "run_banner", "run_results", "show_html", "snapshot_dir", "suite_info",
        "write_junit_xml", "write_reports", "write_results_json"},
    "rcaeval.runner": {
        "ACP_EXTRA_HINT", "FAIL_ON_CHOICES", "MAX_AGENT_NAME", "MAX_FILE_BYTES", "USAGE_KEYS",
        "AgentAdapter", "AgentOutcome", "CaseContext", "CaseExecution", "CaseHook", "CaseResult",
        "CommandAgent", "RepeatInterrupted", "RepeatRun", "ReplayAgent", "RunCase", "RunFailed",
        "RunGate", "RunInterrupted", "RunProgress", "RunSummary", "Turn", "Workspace",
        "acp_available", "agent_config", "agent_env", "agent_hash", "check_fail_under",
        "create_workspace", "default_agent_name", "drop_run", "execute_case", "finalize_workspace",
        "gate_run", "member_run_id", "mirror_audit", "new_run_id", "opaque_case_ref",
        "parse_agent_spec", "parse_env_args", "parse_fail_on", "repeat_group", "run_repeats",
        "run_suite", "select_cases", "to_run_case"},
    "rcaeval.semantic": {
        "SHADOW_FILES", "STATUSES", "Prompt", "SemanticConfig", "SemanticContext",
        "SemanticPacket", "agreement", "blended_verdicts", "load_shadow", "load_shadows",
        "report_lines", "side_by_side", "side_by_side_html", "verdict_comparison"},
    "rcaeval.stats": {
        "DEFAULT_CONFIDENCE", "McNemarResult", "NoInfoBaseline", "cohen_kappa",
        "fisher_exact_lower", "mcnemar_exact", "mcnemar_paired", "no_information_baseline",
        "wilson_interval"},
    "rcaeval.store": {
        "BUCKET_ORDER", "MEMORY", "MEMORY_LIMIT_ENV", "MIGRATIONS_TABLE", "THREADS_ENV",
        "Connectable", "Store", "base_tables", "checkpoint", "checkpoints_deferred", "connect",
        "connection_of", "damaged_store", "discover_migrations", "pin_utc", "registered",
        "release_cache", "resolve_db_path", "resolve_memory_limit", "resolve_threads",
        "transaction", "wal_bytes"},
    "rcaeval.synth": {
        "BEHAVIOURS", "EXPECTED", "LANGUAGE_BEHAVIOURS", "SAMPLE_SEED", "BenchSummary", "Incident",
        "Scenario", "Variation", "derive_rng", "generate_runs", "generate_sample", "load_library",
        "load_scenarios", "render_incident"},
    "rcaeval.tools": {
        "ALWAYS_WRITTEN", "ON_OUTAGE", "OUTAGE_CHANNELS", "TOOL_OUTPUTS", "CaseData",
        "IncidentTools", "ToolInputError", "ToolOutput", "build_server", "bundle_path",
        "load_case_data", "serve", "tool_output", "tools_of_channel", "tools_writing",
        "written_files"},
}


def test_every_facade_is_pinned() -> None:
    found = {f"rcaeval.{p.parent.name}" for p in (REPO / "rcaeval").glob("*/__init__.py")
             if "__all__" in p.read_text(encoding="utf-8")}
    assert found == set(FACADES), sorted(found ^ set(FACADES))


@pytest.mark.parametrize("module", sorted(FACADES))
def test_facade_exports_only_the_user_api(module: str) -> None:
    import importlib

    mod = importlib.import_module(module)
    assert set(mod.__all__) == FACADES[module]
    public = {n for n in vars(mod) if not n.startswith("_") and n != "annotations"}
    typing_names = {"annotations", "Any", "TYPE_CHECKING"}  # a lazy facade's own typing
    assert public - set(mod.__all__) <= typing_names, public - set(mod.__all__)
    for name in mod.__all__:
        assert getattr(mod, name) is not None


def test_no_module_imports_a_name_the_facades_do_not_export() -> None:
    """``from rcaeval.X import name`` names only what the facade exports. A private submodule
    (``from rcaeval.bundle import _contract``) is a module, not a facade name: it is allowed
    here (cross-package imports of private modules are counted separately)."""
    import ast
    import importlib
    import importlib.util

    def submodule(package: str, name: str) -> bool:
        return name.startswith("_") and importlib.util.find_spec(f"{package}.{name}") is not None

    exported = {m: set(importlib.import_module(m).__all__) for m in FACADES}
    bad = []
    for top in ("rcaeval", "tests", "bench"):
        for path in sorted((REPO / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module in exported:
                    bad += [f"{path.relative_to(REPO)}:{node.lineno} {a.name}"
                            for a in node.names if a.name not in exported[node.module]
                            and not submodule(node.module, a.name)]
    assert not bad, bad
