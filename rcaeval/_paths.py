"""Where rcaeval finds its SQL, its bundled data and its default store."""

from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent
_REPO = _PKG.parent


def queries_dir() -> Path:
    """The directory holding the SQL files (`queries/` in a checkout, `_queries` in a wheel)."""
    for cand in (_REPO / "queries", _PKG / "_queries"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("rcaeval: cannot locate the queries/ directory")


def read_query(rel: str) -> str:
    """Text of one SQL file under queries/, e.g. ``read_query("buckets/contract.sql")``."""
    return (queries_dir() / rel).read_text(encoding="utf-8")


def data_dir() -> Path:
    """The data root: ``$RCAEVAL_DATA`` or ``data/`` of the checkout."""
    env = os.environ.get("RCAEVAL_DATA")
    if env:
        return Path(env)
    return _REPO / "data"


def registry_dir() -> Path:
    """The registry root: ``$RCAEVAL_REGISTRY`` or ``<data>/registry``."""
    env = os.environ.get("RCAEVAL_REGISTRY")
    return Path(env) if env else data_dir() / "registry"


def default_db_path() -> Path:
    """The store file: ``$RCAEVAL_DB`` or ``<data>/rcaeval.duckdb``."""
    env = os.environ.get("RCAEVAL_DB")
    return Path(env) if env else data_dir() / "rcaeval.duckdb"
