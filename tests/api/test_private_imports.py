"""No new import of another subpackage's private module (`from rcaeval.x._y import z` outside x).

Other packages go through the owning package's facade (`rcaeval/x/__init__.py`).
BACKLOG listed the (importer, private module) pairs that still did it when this test was written
(session 14, issue 35): names not yet exported by their facade. It is empty now and may only
stay so.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "rcaeval"

BACKLOG: set[tuple[str, str]] = set()  # emptied: every pair goes through its facade now


def _private_cross_imports() -> set[tuple[str, str]]:
    found = set()
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).parts
        own = rel[0] if len(rel) > 1 else None
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module or ""]
            elif isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            else:
                continue
            for mod in mods:
                parts = mod.split(".")
                if parts[0] != "rcaeval" or len(parts) < 3 or parts[1] == own:
                    continue
                if any(p.startswith("_") for p in parts[2:]):
                    found.add((path.relative_to(ROOT.parent).as_posix(), mod))
    return found


def test_no_new_cross_package_private_import():
    new = _private_cross_imports() - BACKLOG
    assert not new, f"import these through the package facade instead: {sorted(new)}"


def test_backlog_has_no_fixed_entries():
    fixed = BACKLOG - _private_cross_imports()
    assert not fixed, f"remove from BACKLOG (fixed): {sorted(fixed)}"
