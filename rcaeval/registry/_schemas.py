"""JSON Schema export of the registry's file kinds (and any other subpackage's models)."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from pathlib import Path

import orjson
from pydantic import BaseModel

from rcaeval.registry._baseline import BaselineSpec
from rcaeval.registry._case import CaseSpec
from rcaeval.registry._judge import JudgeSpec
from rcaeval.registry._suite import SuiteSpec

SCHEMAS: dict[str, type[BaseModel]] = {
    "suite": SuiteSpec,
    "case": CaseSpec,
    "judge": JudgeSpec,
    "baseline": BaselineSpec,
}
"""Schema name -> model; ``rcaeval schema`` writes ``<name>.schema.json`` for each."""


def register_schema(name: str, model: type[BaseModel]) -> None:
    """Publish ``model`` as ``<name>.schema.json`` (e.g. the harness's RCA response)."""
    existing = SCHEMAS.get(name)
    if existing is not None and existing is not model:
        raise ValueError(f"schema {name!r} is already registered for {existing.__name__}")
    SCHEMAS[name] = model


def discover_schemas() -> None:
    """Import ``rcaeval.<subpackage>._schemas`` wherever it exists, so that subpackages which
    publish schemas (by calling :func:`register_schema` in that module) are included."""
    import rcaeval

    for mod in sorted(pkgutil.iter_modules(rcaeval.__path__), key=lambda m: m.name):
        if not mod.ispkg or mod.name == "registry":
            continue
        name = f"rcaeval.{mod.name}._schemas"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


def schema_json(model: type[BaseModel]) -> bytes:
    """Pretty, key-sorted JSON Schema of ``model`` with a trailing newline (deterministic)."""
    schema = model.model_json_schema(by_alias=True, mode="validation")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def write_schemas(out_dir: Path, *, discover: bool = True) -> list[Path]:
    """Write every registered schema to ``out_dir`` (after :func:`discover_schemas` unless
    ``discover`` is false); returns the paths written, sorted. Unchanged files are not
    rewritten."""
    if discover:
        discover_schemas()
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in sorted(SCHEMAS):
        path = out_dir / f"{name}.schema.json"
        data = schema_json(SCHEMAS[name])
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
        written.append(path)
    return written
