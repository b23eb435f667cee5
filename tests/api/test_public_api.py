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
