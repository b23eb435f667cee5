"""`rcaeval validate` and `rcaeval schema` through a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REGISTRY_SCHEMAS = {"baseline.schema.json", "case.schema.json", "judge.schema.json",
                    "suite.schema.json"}


def _rcaeval(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "rcaeval", *args],
        capture_output=True, text=True, timeout=120, env=full_env, check=False,
    )


def test_validate_clean_registry_exits_0(fixture_registry: Path) -> None:
    proc = _rcaeval("validate", "--registry", str(fixture_registry))
    assert proc.returncode == 0, proc.stderr
    assert "ok: 2 suites, 3 cases, 1 baselines, 0 problems" in proc.stdout


def test_validate_uses_registry_env(fixture_registry: Path) -> None:
    proc = _rcaeval("validate", "--format", "json",
                    env={"RCAEVAL_REGISTRY": str(fixture_registry)})
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["ok"] is True
    assert payload["counts"] == {"suites": 2, "cases": 3, "baselines": 1}


def test_validate_problems_exit_3(registry_copy: Path) -> None:
    judge = registry_copy / "cases/slow-query-kill-002/judge.yaml"
    judge.write_text(judge.read_text().replace("signal.kill_query_present", "signal.bogus"))
    proc = _rcaeval("validate", "--registry", str(registry_copy))
    assert proc.returncode == 3
    assert "cases/slow-query-kill-002/judge.yaml:" in proc.stdout
    assert "unknown_fact" in proc.stdout and "1 problems" in proc.stdout
    proc = _rcaeval("validate", "--registry", str(registry_copy), "--format", "json")
    assert proc.returncode == 3
    (problem,) = json.loads(proc.stdout)["problems"]
    assert problem["field"] == "judge.critical_evidence.checks[0].any_of[0].fact"
    assert problem["file"] == "cases/slow-query-kill-002/judge.yaml"
    assert isinstance(problem["line"], int)


def test_validate_missing_registry_exits_6(tmp_path: Path) -> None:
    proc = _rcaeval("validate", "--registry", str(tmp_path / "absent"))
    assert proc.returncode == 6
    assert "does not exist" in proc.stderr


def test_validate_bad_format_is_usage_error(fixture_registry: Path) -> None:
    proc = _rcaeval("validate", "--registry", str(fixture_registry), "--format", "xml")
    assert proc.returncode == 2


@pytest.fixture(scope="module")
def schema_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    a, b = tmp_path_factory.mktemp("schema_a"), tmp_path_factory.mktemp("schema_b")
    for out in (a, b):
        proc = _rcaeval("schema", "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.count("wrote ") >= 4
    return a, b


@pytest.mark.slow
def test_schema_writes_deterministic_json(schema_dirs: tuple[Path, Path]) -> None:
    a, b = schema_dirs
    names = {p.name for p in a.iterdir()}
    assert REGISTRY_SCHEMAS <= names
    for name in sorted(names):
        data = (a / name).read_bytes()
        assert data == (b / name).read_bytes()
        assert data.endswith(b"}\n")
        schema = json.loads(data)
        assert schema["type"] == "object" and schema["properties"]
        assert list(schema) == sorted(schema)


@pytest.mark.slow
def test_schema_content(schema_dirs: tuple[Path, Path]) -> None:
    a, _ = schema_dirs
    judge = json.loads((a / "judge.schema.json").read_text())
    assert judge["additionalProperties"] is False
    assert {"case_id", "ground_truth", "judge"} <= set(judge["required"])
    assert "NumericSeriesAnyGt" in judge["$defs"]
    case = json.loads((a / "case.schema.json").read_text())
    assert "ground_truth" not in case["properties"]
    baseline = json.loads((a / "baseline.schema.json").read_text())
    assert "pass" in baseline["$defs"]["BaselineSummary"]["properties"]


@pytest.mark.slow
def test_committed_schemas_are_current(schema_dirs: tuple[Path, Path], repo_root: Path) -> None:
    a, _ = schema_dirs
    # every registered schema (registry, semantic shadow, release, response contract...)
    for name in sorted(p.name for p in a.iterdir()):
        path = a / name
        committed = repo_root / "docs" / "schema" / name
        assert committed.read_bytes() == path.read_bytes(), (
            f"{committed} is stale: run `rcaeval schema`")


def test_validate_prints_warnings_but_exits_0(fixture_registry: Path) -> None:
    proc = _rcaeval("validate", "--registry", str(fixture_registry))
    assert proc.returncode == 0, proc.stderr
    assert "case_id_leaks_ground_truth" in proc.stdout and "1 warning(s)" in proc.stdout
    assert proc.stdout.rstrip().endswith("0 problems, 1 warnings")
    proc = _rcaeval("validate", "--registry", str(fixture_registry), "--format", "json")
    payload = json.loads(proc.stdout)
    assert proc.returncode == 0 and payload["ok"] is True and payload["problems"] == []
    (warning,) = payload["warnings"]
    assert warning["code"] == "case_id_leaks_ground_truth"
    assert warning["severity"] == "warning"


def test_validate_errors_still_exit_3_next_to_warnings(registry_copy: Path) -> None:
    judge = registry_copy / "cases/slow-query-kill-002/judge.yaml"
    judge.write_text(judge.read_text().replace("signal.kill_query_present", "signal.bogus"))
    proc = _rcaeval("validate", "--registry", str(registry_copy), "--format", "json")
    assert proc.returncode == 3
    payload = json.loads(proc.stdout)
    assert [p["code"] for p in payload["problems"]] == ["unknown_fact"]
    assert [p["code"] for p in payload["warnings"]] == ["case_id_leaks_ground_truth"]
