"""Sealed evidence (docs/bundle-contract.md, "Sealed evidence").

A writer given a seal key (the tool server the runner hosts, :mod:`rcaeval.runner._toolhost`)
seals every evidence record it writes: an HMAC-SHA256, keyed per case, over the canonical
form of ``(file, record id, record)``, kept in :data:`SEAL_FILE` as ``file -> id -> mac``.
The key never enters the workspace; the runner keeps it in the audit dir's runner side
(:data:`RUNNER_SEAL`, next to ``manifest.json``), and extraction checks every record of the
bundle against it (:func:`check_seals`): a record with no seal was never returned by the
tools, one whose seal does not match was edited after they returned it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

SEAL_FILE = "evidences/seals.json"
"""The seals the tool server wrote (in the bundle; forging one needs the key)."""

RUNNER_SEAL = "seal.json"
"""The audit dir's runner-side key file (``{"alg": "hmac-sha256", "key": HEX}``), written
by the runner beside ``manifest.json``; never a workspace file."""

SEAL_KEY_ENV = "RCAEVAL_SEAL_KEY"
"""The environment variable the hosted tool server reads its key from (hex), set only in the
server's own environment by the runner and removed from it at start."""

ALG = "hmac-sha256"

SEALED_FILES: dict[str, str | None] = {
    "evidences/logs.json": "entries",
    "evidences/metrics.json": "series",
    "evidences/queries.json": "queries",
    "evidences/events.json": "events",
    "evidences/gate_checks.json": "checks",
    "evidences/component_health.json": "components",
    "evidences/ticket_context.json": None,
    "evidences/cluster_meta.json": None,
}
"""The evidence files whose records are sealed → the key of their record list (``None``: the
whole document is one record, id ``*``)."""

WHOLE = "*"


def record_id(file: str, rec: Mapping[str, Any]) -> str | None:
    """The id a record is sealed under (components: ``name@instance``)."""
    if SEALED_FILES.get(file) == "components":
        name = rec.get("name")
        return None if not isinstance(name, str) else f"{name}@{rec.get('instance') or ''}"
    rid = rec.get("id")
    return rid if isinstance(rid, str) else None


def records(file: str, doc: Any) -> Iterator[tuple[str | None, Any]]:
    """``(id, record)`` of every record of a parsed evidence file (``None`` id: a record
    that names none, or is not an object)."""
    key = SEALED_FILES.get(file)
    if key is None:
        if isinstance(doc, dict):
            yield WHOLE, doc
        return
    items = doc.get(key) if isinstance(doc, dict) else None
    for rec in items if isinstance(items, list) else []:
        yield (record_id(file, rec) if isinstance(rec, dict) else None), rec


def canonical(file: str, rid: str, rec: Any) -> bytes:
    """The bytes a seal covers: file, id and record as sorted-key compact JSON."""
    return orjson.dumps([file, rid, rec], option=orjson.OPT_SORT_KEYS, default=str)


def mac(key: bytes, file: str, rid: str, rec: Any) -> str:
    return hmac.new(key, canonical(file, rid, rec), hashlib.sha256).hexdigest()


def key_doc(key: bytes) -> dict[str, str]:
    """The runner-side key file's content."""
    return {"alg": ALG, "key": key.hex()}


def parse_key(value: Any) -> bytes | None:
    """A key from :func:`key_doc`'s document or a hex string; ``None`` when unusable."""
    if isinstance(value, dict):
        if value.get("alg") != ALG:
            return None
        value = value.get("key")
    try:
        key = bytes.fromhex(value) if isinstance(value, str) else b""
    except ValueError:
        return None
    return key if len(key) >= 16 else None


def seal_state(key: bytes, seals: Any, file: str, rid: str | None, rec: Any) -> str:
    """``sealed`` (a seal over exactly this record), ``altered`` (a seal under its id that
    does not match it) or ``unsealed`` (no seal)."""
    table = seals.get(file) if isinstance(seals, dict) else None
    given = table.get(rid) if isinstance(table, dict) and rid is not None else None
    if not isinstance(given, str):
        return "unsealed"
    return "sealed" if hmac.compare_digest(given, mac(key, file, rid or "", rec)) else "altered"


class Sealer:
    """A writer's seals: the key and the bundle's seal table (re-read with its state)."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.seals: dict[str, dict[str, str]] = {}
        self.dirty = False

    def load(self, doc: Any) -> None:
        seals = doc.get("seals") if isinstance(doc, dict) else None
        self.seals = {f: {str(k): v for k, v in t.items() if isinstance(v, str)}
                      for f, t in (seals or {}).items()
                      if f in SEALED_FILES and isinstance(t, dict)}
        self.dirty = False

    def seal(self, file: str, rid: str, rec: Any) -> None:
        self.seals.setdefault(file, {})[rid] = mac(self.key, file, rid, rec)
        self.dirty = True

    def holds(self, file: str, rid: str, rec: Any) -> bool:
        """Whether ``rec`` is exactly what this bundle's seal under ``rid`` covers (a record
        the agent edited on disk is not merged into a new one and re-sealed)."""
        return seal_state(self.key, self.seals, file, rid, rec) == "sealed"

    def document(self) -> dict[str, Any]:
        self.dirty = False
        return {"alg": ALG, "seals": {f: dict(sorted(t.items()))
                                      for f, t in sorted(self.seals.items())}}
