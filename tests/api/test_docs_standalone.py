"""The repo's docs stand alone: no citations of design documents a reader of the repo does
not have ("seed 001 §6.1", "seed 003")."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"\bseeds?\s+00\d|§\s*\d", re.IGNORECASE)


def test_docs_cite_no_design_documents() -> None:
    offenders = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CITATION.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_package_docstrings_and_profiles_cite_no_design_documents() -> None:
    # what `help(rcaeval.harness)`, load_profiles() descriptions, etc. show a user
    offenders = []
    for path in sorted((REPO / "rcaeval").rglob("*")):
        if path.suffix not in (".py", ".yaml", ".md") or "__pycache__" in path.parts:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CITATION.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
