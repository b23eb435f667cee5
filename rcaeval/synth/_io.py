"""Deterministic file output: stable JSON/YAML bytes, `\\n` newlines, seeded RNGs."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Any

import orjson
import yaml

_JSON_OPTS = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE


def derive_rng(seed: int, *parts: object) -> random.Random:
    """A private RNG for one (seed, case, behaviour, ...) tuple; never the global one."""
    key = "\x1f".join([str(seed), *(str(p) for p in parts)]).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


_PAIR = re.compile(rb'\[\n\s+("[^"\n]*"),\n\s+(-?[0-9][0-9.eE+-]*|null)\n\s+\]')


def json_bytes(data: Any) -> bytes:
    """Indented JSON, with ``[timestamp, value]`` pairs kept on one line."""
    return _PAIR.sub(rb"[\1, \2]", orjson.dumps(data, option=_JSON_OPTS))


class _Dumper(yaml.SafeDumper):
    """Block style, multi-line strings as literal blocks, keys in insertion order."""


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str_representer)


def yaml_text(data: Any) -> str:
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100,
        default_flow_style=False,
    )


class TreeWriter:
    """Writes files below a root; remembers what it wrote (for manifests and tests)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: list[str] = []

    def _target(self, rel: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def bytes(self, rel: str, data: bytes) -> None:
        self._target(rel).write_bytes(data)
        self.written.append(rel)

    def text(self, rel: str, text: str) -> None:
        if not text.endswith("\n"):
            text += "\n"
        self.bytes(rel, text.encode("utf-8"))

    def json(self, rel: str, data: Any) -> None:
        self.bytes(rel, json_bytes(data))

    def jsonl(self, rel: str, rows: list[dict[str, Any]]) -> None:
        self.bytes(rel, b"".join(orjson.dumps(r) + b"\n" for r in rows))

    def yaml(self, rel: str, data: Any) -> None:
        self.text(rel, yaml_text(data))


def file_digest(path: Path) -> tuple[str, int]:
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), len(data)
