"""Fixtures of the runner tests (rcaeval.runner: adapters, the run loop, the CLI's run and
doctor commands); helpers live in runner_kit.py."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from runner_kit import PANIC_INCIDENT, PY, SAMPLE, cli_env, multi_agent_spec, query, write_case


@pytest.fixture
def make_case(tmp_path: Path) -> Callable[..., tuple[dict[str, Any], Path]]:
    def _make(case_id: str = "case-a", **kw: Any) -> tuple[dict[str, Any], Path]:
        return write_case(tmp_path / "registry", case_id, **kw)

    return _make


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    return {"workspace_root": tmp_path / "ws", "audit_root": tmp_path / "audits"}


@pytest.fixture
def panic_incident() -> dict[str, Any]:
    return PANIC_INCIDENT


@pytest.fixture
def rcaeval(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``python -m rcaeval ARGS`` with --db/--audit-root defaults in tmp_path."""

    def run(*args: str, timeout: float = 120, **kw: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run([PY, "-m", "rcaeval", *args], capture_output=True, text=True,
                              timeout=timeout, env=cli_env(), cwd=tmp_path, **kw)

    return run


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, Path]:
    out = {"db": tmp_path / "store.duckdb", "audits": tmp_path / "audits",
           "ws": tmp_path / "ws"}
    return out


@pytest.fixture
def db_query() -> Callable[..., list[tuple[Any, ...]]]:
    return query


@pytest.fixture
def multi_agent() -> str:
    return multi_agent_spec()


@pytest.fixture
def make_registry(tmp_path: Path) -> Callable[..., Path]:
    """A registry with suite ``mini`` over copies of sample cases; ``broken`` case ids get a
    judge.yaml that is not YAML."""

    def make(case_ids: list[str], *, broken: tuple[str, ...] = (),
             quarantined: tuple[str, ...] = (), jobs: int = 2) -> Path:
        root = tmp_path / "registry"
        (root / "suites").mkdir(parents=True)
        for cid in case_ids:
            shutil.copytree(SAMPLE / "cases" / cid, root / "cases" / cid)
            if cid in broken:
                (root / "cases" / cid / "judge.yaml").write_text("case_id: [unclosed\n")
        suite = {"suite_id": "mini", "version": "1", "execution": {"jobs": jobs},
                 "cases": [{"id": c, "status": "quarantined" if c in quarantined else "active"}
                           for c in case_ids]}
        (root / "suites" / "mini.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
        return root

    return make
