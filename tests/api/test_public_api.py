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


# The subpackage facades export what a user calls (docs name these), nothing internal; the
# package's own modules import each other's private modules directly.
FACADES = {
    "rcaeval.corpora": {
        "PROFILE_SCHEMA", "ImportReport", "Skipped", "export_openrca", "import_openrca",
        "import_rcaeval", "openrca_scores", "run_answers"},
    "rcaeval.authoring": {
        "AnswerJudgment", "DetectorDecision", "DraftedCase", "draft_case", "try_answer"},
    "rcaeval.ingest": {
        "AlertImport", "CaptureResult", "Entry", "LOG_FORMATS", "SeriesImport", "Window",
        "alertmanager_checks", "append_log_lines", "capture_case", "import_alertmanager",
        "import_journal", "import_kube_events", "import_kube_pods", "import_loki",
        "import_otlp", "import_plain_logs", "import_prometheus", "incident_dir",
        "incident_update", "journal_entries", "kube_events", "kube_pods", "log_name",
        "loki_entries", "merge_records", "otlp_spans", "parse_window", "plain_entries",
        "prometheus_series", "source_error", "write_entries"},
    "rcaeval.judge": {
        "BUCKETS", "BULK_MEMORY_LIMIT", "DEFAULT_CHUNK_SIZE", "JUDGE_VERSION", "JUDGMENT_FILE",
        "JUDGMENT_VERSION", "CaseRules", "JudgeFrames", "case_anchor", "explain_html",
        "explain_tree", "flatten_rules", "judge_audit", "judge_loaded", "load_detector_hits",
        "load_judgment", "load_profiles", "register_cases", "rejudge_store", "run_judge_sql",
        "Judging", "Provider", "Redecide"},
    "rcaeval.prove": {
        "ROLES", "CasePlan", "CaseProof", "ProofReport", "Unreachable", "case_plans",
        "plan_case", "prove", "unreachable_checks"},
    "rcaeval.registry": {
        "FACTS", "BaselineSpec", "CaseSpec", "JudgeSpec", "MergedCase", "Problem", "Registry",
        "RegistryError", "SuiteCaseEntry", "SuiteSpec", "apply_defaults", "is_known_fact",
        "iter_suite_cases", "load_case", "load_registry", "load_suite", "register_schema",
        "rules_hash", "validate_registry", "write_schemas"},
}


@pytest.mark.parametrize("module", sorted(FACADES))
def test_facade_exports_only_the_user_api(module: str) -> None:
    import importlib

    mod = importlib.import_module(module)
    assert set(mod.__all__) == FACADES[module]
    public = {n for n in vars(mod) if not n.startswith("_") and n != "annotations"}
    assert public - set(mod.__all__) <= {"annotations"}, public - set(mod.__all__)
    for name in mod.__all__:
        assert getattr(mod, name) is not None


def test_no_module_imports_a_name_the_facades_do_not_export() -> None:
    import ast
    import importlib

    exported = {m: set(importlib.import_module(m).__all__) for m in FACADES}
    bad = []
    for top in ("rcaeval", "tests", "bench"):
        for path in sorted((REPO / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module in exported:
                    bad += [f"{path.relative_to(REPO)}:{node.lineno} {a.name}"
                            for a in node.names if a.name not in exported[node.module]]
    assert not bad, bad
