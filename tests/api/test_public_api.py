"""The top-level facade re-exports the subpackages' entry points lazily."""

from __future__ import annotations

import ast
import functools
import gc
import re
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
        "check_case_id", "example_problems", "try_payload",
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
        "Check", "run_checks"},
    "rcaeval.extract": {
        "parse_json",
        "DEFAULT_MAX_FILE_BYTES", "PAYLOAD_SCHEMAS", "RAW_CATALOG", "RAW_TABLES", "CaseFS",
        "CaseRef", "FileRecord", "RawTable", "classify_section", "discover_case_dirs",
        "elided_table", "extract_case", "extract_cases", "flatten_events", "flatten_json",
        "flatten_log_text", "flatten_logs_json", "flatten_metrics", "flatten_output",
        "flatten_patch", "flatten_queries", "flatten_telemetry", "parse_log_line", "resolve_bundle",
        "split_sentences"},
    "rcaeval.grammar": {
        "NEVER_MATCHES", "REGEX_KEYS", "Grammar", "any_regex", "default_grammar",
        "defaults_digest_bytes", "detector_regexes", "each_regex", "has_causal_cue",
        "heading_kind", "merge_extensions", "merged", "negation_regexes"},
    "rcaeval.harness": {
        "DIMENSIONS", "GATE_IDS", "STATUSES", "Alert", "BatchResult", "EvidenceArtifact",
        "GateResult", "HarnessConfig", "HarnessResult", "RcaResponse", "Repair", "RootCause",
        "Score", "analysis_hash", "check", "check_batch", "drop_nulls", "guarded", "is_disruptive",
        "json_schema", "json_schema_text", "looks_disruptive", "parse_response", "read_responses",
        "summarize"},
    "rcaeval.ingest": {
        "read_queries", "write_doc",
        "AlertImport", "CaptureResult", "SeriesImport", "Window", "alertmanager_checks",
        "append_log_lines", "capture_case", "import_alertmanager", "import_journal",
        "import_kube_events", "import_kube_pods", "import_loki", "import_otlp", "import_plain_logs",
        "import_prometheus", "incident_dir", "incident_update", "kube_events", "log_name",
        "merge_records", "otlp_spans", "parse_window", "parse_window_bounds", "plain_entries",
        "prometheus_series"},
    "rcaeval.judge": {
        "BUCKETS", "BULK_MEMORY_LIMIT", "DEFAULT_CHUNK_SIZE", "JUDGE_VERSION",
        "CaseRules", "JudgeFrames", "Judging", "Provider", "Redecide",
        "case_anchor", "explain_html", "explain_tree", "flatten_rules", "judge_audit",
        "judge_loaded", "load_detector_hits", "load_judgment", "load_profiles", "register_cases",
        "rejudge_store", "run_judge_sql"},
    "rcaeval.lab": {
        "ACTIONS", "LabCases", "LabError", "LabSource", "LiveIncidentTools", "Scenario",
        "apply_action", "assess", "build_live_server", "check_recovery", "default_dir", "down",
        "firing_alerts", "gate3_missing", "inject", "lab_session", "load_scenario",
        "load_scenario_file", "load_scenarios", "missing_binaries", "mitigation_rows",
        "read_actions", "registry_root", "revert", "scenario_case", "scenario_judge", "selftest",
        "SelftestReport", "status", "up", "wait_alert", "capture", "serve_live", "OracleTarget",
        "scenario_paths", "render_mitigation"},
    "rcaeval.label": {
        "FILL_FIELDS", "JUDGES", "Agreement", "GateResult", "ImportResult", "agreement",
        "agreement_chart", "export_sheet", "gate", "import_sheet", "label_history",
        "record_baseline"},
    "rcaeval.metrics": {
        "Metric", "compute_breakdown", "compute_metrics", "get_metric", "metric_registry"},
    "rcaeval.offline": {
        "MUTATIONS", "MUTATION_FILE", "OFFLINE_SEED", "OPENRCA_SCORE_SCHEMA", "Fixture",
        "FixtureError", "compare_files", "dump_fixtures", "generate_offline_sample",
        "load_fixture_tables", "mutate_bundle", "mutate_fixture", "mutate_fixtures", "mutate_run",
        "novel_gate", "parse_fixture", "parse_prediction", "parse_scoring_points", "read_baseline",
        "read_capture_fixtures", "read_fixtures", "read_openrca_query", "render_comparison",
        "render_openrca_summary", "render_ranked", "score_fixtures", "score_openrca",
        "score_openrca_row", "score_parsed", "score_ranked", "summarise_openrca", "write_baseline"},
    "rcaeval.prove": {
        "lint_unreachable",
        "ROLES", "CaseProof", "ProofReport", "Unreachable", "case_plans", "plan_case", "prove",
        "unreachable_checks"},
    "rcaeval.registry": {
        "FACT_INPUTS", "ID_PATTERN", "DetectorCondition", "FactCondition",
        "JsonListNonempty", "JsonTextContainsAny", "KeywordAny", "NumericSeriesAnyGt",
        "SpanErrorAny", "TimeWindow", "check_yaml_path", "dotted", "draft_warnings",
        "iter_checks", "parse_yaml", "re2_problem", "resolve_registry_dir",
        "sort_problems",
        "DEFAULT_TOOLS_MODE", "FACTS", "BaselineSpec", "CaseSpec", "JudgeSpec", "MergedCase",
        "Problem", "Registry", "RegistryError", "RootCause", "SuiteSpec", "ToolsMode",
        "apply_defaults", "is_known_fact", "iter_suite_cases", "load_case", "load_case_dir",
        "load_registry", "load_suite", "register_schema", "rules_hash", "schema_json",
        "validate_registry", "write_schemas"},
    "rcaeval.release": {
        "ALL_STAGES", "query_captures", "window_frames",
        "CASE_TYPES", "GATE", "GATE_METRICS", "REVIEW_SCORES", "STAGES", "Capture", "GateResult",
        "ImportResult", "Measurement", "RecordResult", "ReleaseKey", "Review", "SampleSpec",
        "Threshold", "Window", "check_confidence", "check_gate", "compare", "import_reviews",
        "json_schemas", "knowledge_candidates", "load_artifact", "load_key", "measure", "metrics",
        "parse_window", "read_reviews", "record_window", "review_history", "seal", "sign",
        "stored_windows", "synthetic_artifact", "verified_actions", "write_document",
        "write_metrics_json", "write_sample", "write_shadow", "write_synthetic_files"},
    "rcaeval.report": {
        "FORMATS", "KERNEL_NAME", "BaselineDiff", "ReleaseGateRender", "RepeatDiff",
        "build_context", "case_links_html", "case_table", "describe_file_problem",
        "describe_integrity", "diff_against_baseline", "diff_repeats_against_baseline",
        "drilldown_html", "gate_banner", "integrity_of", "junit_xml", "load_baseline", "load_diff",
        "parse_errors_of", "promote_baseline", "publish_result", "regression_banner",
        "render_baseline", "render_detail", "render_diff", "render_explore_notebook", "render_json",
        "render_markdown", "render_regression_notebook", "render_release_gate_notebook",
        "render_report", "render_run_page", "render_text", "run_banner", "run_results", "show_html",
        "snapshot_dir", "write_junit_xml", "write_reports", "write_results_json"},
    "rcaeval.runner": {
        "socket_path",
        "ACP_EXTRA_HINT", "AGENT_PROFILES", "MAX_FILE_BYTES", "AgentAdapter", "AgentOutcome",
        "CaseExecution", "CaseHook", "RepeatInterrupted", "RunCase", "RunFailed", "RunInterrupted",
        "RunProgress", "RunSummary", "Turn", "acp_available", "acp_handshake", "agent_config",
        "agent_env", "agent_hash", "agent_program", "check_fail_under", "create_workspace",
        "default_agent_name", "drop_run", "execute_case", "gate_run", "in_ci", "mirror_audit",
        "new_run_id", "opaque_case_ref", "parse_agent_spec", "parse_env_args", "parse_fail_on",
        "probe_bwrap", "repeat_group", "resolve_sandbox", "run_repeats", "run_sandboxed",
        "run_suite", "select_cases", "to_run_case"},
    "rcaeval.semantic": {
        "SHADOW_FILES", "Prompt", "SemanticConfig", "SemanticContext", "SemanticPacket",
        "agreement", "blended_verdicts", "load_shadow", "load_shadows", "report_lines",
        "side_by_side", "side_by_side_html", "verdict_comparison"},
    "rcaeval.stats": {
        "DEFAULT_CONFIDENCE", "McNemarResult", "NoInfoBaseline", "cohen_kappa",
        "fisher_exact_lower", "mcnemar_exact", "mcnemar_paired", "no_information_baseline",
        "wilson_interval"},
    "rcaeval.store": {
        "BUCKET_ORDER", "CHECKPOINT_MEMORY_MIN", "CHECKPOINT_MEMORY_PER_THREAD",
        "checkpoint_memory", "MEMORY", "MEMORY_LIMIT_ENV", "MIGRATIONS_TABLE", "THREADS_ENV",
        "Connectable", "Store", "base_tables", "checkpoint", "checkpoints_deferred", "connect",
        "connection_of", "damaged_store", "discover_migrations", "pin_utc", "registered",
        "release_cache", "resolve_db_path", "resolve_memory_limit", "resolve_threads",
        "threads_lowered", "transaction", "wal_bytes"},
    "rcaeval.synth": {
        "BEHAVIOURS", "EXPECTED", "LANGUAGE_BEHAVIOURS", "SAMPLE_SEED", "Incident", "Scenario",
        "derive_rng", "generate_runs", "generate_sample", "load_scenarios"},
    "rcaeval.tools": {
        "LogLine", "MemoryLogStore", "ToolCaller", "ToolFailed", "bridge", "client_caller",
        "record_time", "run_server",
        "TOKEN_ENV", "load_spans", "span_id",
        "ALWAYS_WRITTEN", "ON_OUTAGE", "OUTAGE_CHANNELS", "TOOL_OUTPUTS", "CaseData",
        "IncidentTools", "ToolInputError", "build_server", "bundle_path", "load_case_data", "serve",
        "tool_output", "tools_of_channel", "tools_writing", "written_files"},
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
    import importlib
    import importlib.util

    def submodule(package: str, name: str) -> bool:
        return name.startswith("_") and importlib.util.find_spec(f"{package}.{name}") is not None

    exported = {m: set(importlib.import_module(m).__all__) for m in FACADES}
    bad = []
    for path, tree in _python_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in exported:
                bad += [f"{path.relative_to(REPO)}:{node.lineno} {a.name}"
                        for a in node.names if a.name not in exported[node.module]
                        and not submodule(node.module, a.name)]
    assert not bad, bad


@functools.cache
def _python_trees() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module of rcaeval/, tests/ and bench/, parsed once for the import checks below
    (the collector paused: it would rescan the growing trees, tripling the time)."""
    gc.disable()
    try:
        return tuple((path, ast.parse(path.read_text(encoding="utf-8")))
                     for top in ("rcaeval", "tests", "bench")
                     for path in sorted((REPO / top).rglob("*.py")))
    finally:
        gc.enable()


def _facade_names_used(trees: tuple[tuple[Path, ast.Module], ...]) -> dict[str, set[str]]:
    """Per facade, the names code outside its own subpackage uses: ``from rcaeval.x import
    name``, ``alias.name`` after ``import rcaeval.x as alias`` or ``from rcaeval import x``,
    ``rcaeval.x.name``, and ``("rcaeval.x", "name")`` pairs (the lazy top-level table)."""
    used: dict[str, set[str]] = {m: set() for m in FACADES}
    for path, tree in trees:
        rel = path.relative_to(REPO).parts
        own = f"rcaeval.{rel[1]}" if rel[0] == "rcaeval" and len(rel) > 2 else None
        aliases: dict[str, str] = {}
        attrs: list[ast.Attribute] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                attrs.append(node)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                if node.module in used and node.module != own:
                    used[node.module] |= {a.name for a in node.names}
                elif node.module == "rcaeval":
                    aliases |= {a.asname or a.name: f"rcaeval.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                aliases |= {a.asname: a.name for a in node.names if a.asname}
            elif (isinstance(node, ast.Tuple) and len(node.elts) == 2
                  and all(isinstance(e, ast.Constant) for e in node.elts)
                  and node.elts[0].value in used):
                used[node.elts[0].value].add(str(node.elts[1].value))
        for node in attrs:
            v = node.value
            if isinstance(v, ast.Name):
                module = aliases.get(v.id)
            elif isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name):
                module = f"rcaeval.{v.attr}" if v.value.id == "rcaeval" else None
            else:
                continue
            if module in used and module != own:
                used[module].add(node.attr)
    return used


def test_every_facade_name_is_used_outside_its_package() -> None:
    """A facade exports only what someone outside its subpackage uses: docs, notebooks, the
    README or CONTRIBUTING name it, or tests, bench or another subpackage import it. A name
    only the package itself uses belongs in its private modules, not in ``__all__``."""
    import importlib

    prose = [*(REPO / "docs").rglob("*.md"), *(REPO / "notebooks").glob("*.ipynb"),
             REPO / "README.md", REPO / "CONTRIBUTING.md"]
    words = set(re.findall(r"\w+", " ".join(p.read_text(encoding="utf-8") for p in prose)))
    used = _facade_names_used(_python_trees())
    unused = {}
    for module in sorted(FACADES):
        names = set(importlib.import_module(module).__all__) - words - used[module]
        if names:
            unused[module] = sorted(names)
    assert not unused, f"exported but used nowhere outside the package: {unused}"
