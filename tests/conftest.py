from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# CI services export CI=true, which makes `--sandbox auto` refuse to run unsandboxed. The suite
# must mean the same on a laptop and in CI: tests of that behaviour set CI themselves.
os.environ.pop("CI", None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", default=False,
        help="rewrite the golden files under tests/golden/ from this checkout's output "
             "instead of comparing against them (tests/golden/README.md)")


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


_SLOW_IDS = frozenset(
    line.strip() for line in (REPO / "tests" / "slow_tests.txt").read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the node ids of tests/slow_tests.txt `slow` before `-m 'not slow'` deselects (a
    listed test function without `[params]` covers each of its parametrizations)."""
    for item in items:
        if item.nodeid in _SLOW_IDS or item.nodeid.split("[", 1)[0] in _SLOW_IDS:
            item.add_marker(pytest.mark.slow)
