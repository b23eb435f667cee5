"""Typed connections (CONTRIBUTING.md "Standards"): nowhere in rcaeval/ is a parameter that
takes a store or a DuckDB connection typed ``Any`` (or left unannotated); it is a
``duckdb.DuckDBPyConnection``, a ``rcaeval.store.Store`` or a ``rcaeval.store.Connectable``."""

from __future__ import annotations

import ast
from pathlib import Path

NAMES = frozenset({"con", "db", "store", "connection"})
REPO = Path(__file__).resolve().parents[2]


def _untyped(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a = node.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            ann = arg.annotation
            if arg.arg in NAMES and (ann is None or ast.unparse(ann) in ("Any", "object")):
                out.append(f"{path.relative_to(REPO)}:{arg.lineno} {node.name}({arg.arg})")
    return out


def test_store_and_connection_parameters_are_typed() -> None:
    found = [hit for p in sorted((REPO / "rcaeval").rglob("*.py")) for hit in _untyped(p)]
    assert not found, found
