from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

FIXTURE_REGISTRY = Path(__file__).resolve().parent / "fixtures" / "registry"


@pytest.fixture()
def fixture_registry() -> Path:
    """The clean fixture registry (read-only: copy it before corrupting)."""
    return FIXTURE_REGISTRY


@pytest.fixture()
def registry_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture registry."""
    dest = tmp_path / "registry"
    shutil.copytree(FIXTURE_REGISTRY, dest)
    return dest


@pytest.fixture()
def load_fixture_yaml() -> Callable[[str], dict]:
    def _load(rel: str) -> dict:
        return yaml.safe_load((FIXTURE_REGISTRY / rel).read_text(encoding="utf-8"))

    return _load
