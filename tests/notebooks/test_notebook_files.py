"""The shipped notebooks themselves: analysts copy their cells, so the code imports only public
rcaeval modules; and CI renders every one of them (each notebook has its render function, and
the browser test, run by `.ci/run`'s slow step, renders and opens every one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rcaeval.report._notebook import (
    EXPLORE_NOTEBOOK_NAME,
    NOTEBOOK_NAME,
    RELEASE_NOTEBOOK_NAME,
)
from rcaeval.report._runpage import RUN_NOTEBOOK_NAME

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
RENDERERS = {RUN_NOTEBOOK_NAME: "render_run_page", NOTEBOOK_NAME: "render_regression_notebook",
             EXPLORE_NOTEBOOK_NAME: "render_explore_notebook",
             RELEASE_NOTEBOOK_NAME: "render_release_gate_notebook"}
PRIVATE_IMPORT = re.compile(
    r"^\s*(?:import\s+rcaeval[\w.]*\._\w+|from\s+rcaeval[\w.]*\._\w+\s+import"
    r"|from\s+rcaeval[\w.]*\s+import\s+(?:\(?\s*)?_\w+)", re.M)


def test_notebooks_import_only_public_modules() -> None:
    assert NOTEBOOKS
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text("utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        assert "import rcaeval" in code, path.name
        assert PRIVATE_IMPORT.findall(code) == [], path.name
    assert PRIVATE_IMPORT.findall("from rcaeval.report import _runpage as rp\n")


def test_every_notebook_is_rendered_in_the_browser_test() -> None:
    assert {p.name for p in NOTEBOOKS} == set(RENDERERS)
    browser = (Path(__file__).parent / "test_browser.py").read_text("utf-8")
    for name, render in RENDERERS.items():
        assert f"{render}(" in browser, (name, render)
