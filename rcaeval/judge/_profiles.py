"""Scoring profiles as data: ``rcaeval/judge/profiles.yaml`` (docs/scoring.md)."""

from __future__ import annotations

import math
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import pyarrow as pa
import yaml

from rcaeval.errors import InputError

COMPONENTS: tuple[str, ...] = (
    "workflow",
    "evidence_collection",
    "critical_evidence",
    "evidence_routing",
    "diagnosis_hard",
    "diagnosis_supporting",
)
BAND_KEYS: tuple[str, ...] = ("gate_floor", "no_gate_ceiling")
PROFILE_SCHEMA = pa.schema([
    ("profile", pa.string()), ("component", pa.string()), ("max_score", pa.float64()),
])
BAND_SCHEMA = pa.schema([
    ("profile", pa.string()), ("gate_floor", pa.float64()), ("no_gate_ceiling", pa.float64()),
])


def _validate(doc: Any, source: str) -> dict[str, dict[str, Any]]:
    if not isinstance(doc, dict) or not doc:
        raise InputError("a profiles file maps profile names to profiles", file=source)
    out: dict[str, dict[str, Any]] = {}
    for name, prof in doc.items():
        if not isinstance(prof, dict) or not isinstance(prof.get("maxima"), dict):
            raise InputError("a profile needs `maxima`", file=source, field=str(name))
        maxima = prof["maxima"]
        missing = [c for c in COMPONENTS if c not in maxima]
        extra = [c for c in maxima if c not in COMPONENTS]
        if missing or extra:
            raise InputError(
                f"maxima must name exactly {', '.join(COMPONENTS)} "
                f"(missing: {missing or '-'}, unknown: {extra or '-'})",
                file=source, field=f"{name}.maxima",
            )
        band = prof.get("band") or {}
        band = {"gate_floor": band.get("gate_floor", 70),
                "no_gate_ceiling": band.get("no_gate_ceiling", 69)}
        for key, value in [*maxima.items(), *band.items()]:
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or not math.isfinite(value) or value < 0):
                raise InputError("must be a finite number >= 0", file=source,
                                 field=f"{name}.{key}")
        out[str(name)] = {
            "description": prof.get("description", ""),
            "maxima": {c: float(maxima[c]) for c in COMPONENTS},
            "band": {k: float(v) for k, v in band.items()},
        }
    return out


@lru_cache(maxsize=1)
def _packaged() -> dict[str, dict[str, Any]]:
    text = resources.files("rcaeval.judge").joinpath("profiles.yaml").read_text("utf-8")
    return _validate(yaml.safe_load(text), "rcaeval/judge/profiles.yaml")


def load_profiles(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Profiles by name: ``{description, maxima: {component: max}, band: {...}}``. With
    ``path``, that YAML file (same shape as the packaged ``profiles.yaml``) instead."""
    if path is None:
        return _packaged()
    p = Path(path)
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError) as exc:  # ValueError: not UTF-8
        raise InputError(f"cannot read scoring profiles: {exc}", file=str(p)) from exc
    return _validate(doc, str(p))


def profile_tables(profiles: dict[str, dict[str, Any]]) -> tuple[pa.Table, pa.Table]:
    """``(maxima, band)`` rows for the judge's ``j_profile`` / ``j_band`` tables."""
    maxima = [
        {"profile": name, "component": c, "max_score": prof["maxima"][c]}
        for name, prof in sorted(profiles.items())
        for c in COMPONENTS
    ]
    band = [{"profile": name, **prof["band"]} for name, prof in sorted(profiles.items())]
    return (pa.Table.from_pylist(maxima, schema=PROFILE_SCHEMA),
            pa.Table.from_pylist(band, schema=BAND_SCHEMA))
