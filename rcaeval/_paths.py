"""Where rcaeval finds its SQL, its bundled data and its default store."""

from __future__ import annotations

import os
import re
from pathlib import Path

_PKG = Path(__file__).resolve().parent
_REPO = _PKG.parent


def queries_dir() -> Path:
    """The directory holding the SQL files (`queries/` in a checkout; in a wheel,
    `rcaeval/_queries`, which the checkout provides as a symlink to `../queries`)."""
    for cand in (_REPO / "queries", _PKG / "_queries"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("rcaeval: cannot locate the queries/ directory")


def notebooks_dir() -> Path:
    """The papermill notebooks (`notebooks/` in a checkout; `rcaeval/_notebooks` in a wheel,
    which the checkout provides as a symlink to `../notebooks`)."""
    for cand in (_REPO / "notebooks", _PKG / "_notebooks"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("rcaeval: cannot locate the notebooks/ directory")


def read_query(rel: str) -> str:
    """Text of one SQL file under queries/, e.g. ``read_query("buckets/contract.sql")``."""
    return (queries_dir() / rel).read_text(encoding="utf-8")


def read_statement(rel: str, **fill: str) -> str:
    """The one statement of query file ``rel`` as it is executed: without the file's header
    comment and trailing ``;``, so DuckDB's error context (``LINE 1: ...``) reads as it would for
    the bare statement, and with each ``{name}`` placeholder replaced by ``fill[name]`` in one
    pass (a filled-in value is never searched for placeholders again). The caller quotes any
    identifier it fills in (``rcaeval.store._sqlnames.quote_ident``)."""
    lines = read_query(rel).splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("--")):
        lines.pop(0)
    text = "\n".join(lines).rstrip().removesuffix(";").rstrip()
    if not fill:
        return text
    holes = re.compile("|".join(re.escape("{" + name + "}") for name in fill))
    return holes.sub(lambda m: fill[m.group(0)[1:-1]], text)


def data_dir() -> Path:
    """The data root: ``$RCAEVAL_DATA``; else ``data/`` of the checkout when running from one;
    else ``./data`` (an installed wheel has no bundled sample: ``rcaeval synth sample`` writes
    it)."""
    env = os.environ.get("RCAEVAL_DATA")
    if env:
        return Path(env)
    if (_REPO / "pyproject.toml").is_file() and (_REPO / "data").is_dir():
        return _REPO / "data"
    return Path.cwd() / "data"


def registry_dir() -> Path:
    """The registry root: ``$RCAEVAL_REGISTRY`` or ``<data>/registry``."""
    env = os.environ.get("RCAEVAL_REGISTRY")
    return Path(env) if env else data_dir() / "registry"


def default_db_path() -> Path:
    """The store file: ``$RCAEVAL_DB`` or ``<data>/rcaeval.duckdb``."""
    env = os.environ.get("RCAEVAL_DB")
    return Path(env) if env else data_dir() / "rcaeval.duckdb"
