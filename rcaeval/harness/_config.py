"""Harness configuration: explicit :class:`HarnessConfig` > environment variables > defaults.

Environment variables (docs/harness.md):

- ``ENABLE_RCA_OUTPUT_HARNESS`` (default ``true``): ``true/false``, ``1/0``, ``yes/no``, ``on/off``
- ``MAX_RCA_REPAIR_ATTEMPTS`` (default ``3``): an integer 0..20
- ``RCA_HARNESS_PASS_SCORE`` (default ``70``): a number 0..100
- ``RCA_HARNESS_GATE3_OUTCOME`` (default ``insufficient_evidence``): what a gate-3 failure
  that remains after the repairs ends as: ``insufficient_evidence`` (the family is
  withdrawn) or ``degraded`` (the family is kept, the unsafe action or probe withheld)

An invalid value raises :class:`rcaeval.errors.InputError` naming the variable.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from rcaeval.errors import InputError

ENV_ENABLE = "ENABLE_RCA_OUTPUT_HARNESS"
ENV_MAX_REPAIRS = "MAX_RCA_REPAIR_ATTEMPTS"
ENV_PASS_SCORE = "RCA_HARNESS_PASS_SCORE"
ENV_GATE3_OUTCOME = "RCA_HARNESS_GATE3_OUTCOME"

DEFAULT_MAX_REPAIRS = 3
DEFAULT_PASS_SCORE = 70.0
MAX_REPAIRS_LIMIT = 20
GATE3_OUTCOMES = ("insufficient_evidence", "degraded")
DEFAULT_GATE3_OUTCOME = "insufficient_evidence"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True, slots=True)
class HarnessConfig:
    enabled: bool = True
    max_repair_attempts: int = DEFAULT_MAX_REPAIRS
    pass_score: float = DEFAULT_PASS_SCORE
    gate3_outcome: str = DEFAULT_GATE3_OUTCOME

    def __post_init__(self) -> None:
        _check_max_repairs(self.max_repair_attempts, "max_repair_attempts")
        _check_pass_score(self.pass_score, "pass_score")
        if self.gate3_outcome not in GATE3_OUTCOMES:
            raise InputError(f"must be one of {', '.join(GATE3_OUTCOMES)}, got "
                             f"{self.gate3_outcome!r}", field="gate3_outcome")
        if not isinstance(self.enabled, bool):
            raise InputError(f"must be true or false, got {self.enabled!r}", field="enabled")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HarnessConfig:
        """Read the four variables (unset or empty ⇒ default); raise InputError when invalid."""
        env = os.environ if env is None else env
        return _from_env_cached(
            env.get(ENV_ENABLE, ""), env.get(ENV_MAX_REPAIRS, ""), env.get(ENV_PASS_SCORE, ""),
            env.get(ENV_GATE3_OUTCOME, ""),
        )

    def replace(self, **changes: object) -> HarnessConfig:
        """A copy with the given fields overridden (``None`` values are ignored)."""
        kept = {k: v for k, v in changes.items() if v is not None}
        return HarnessConfig(**{**self.as_dict(), **kept})  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, object]:
        return {
            "enabled": self.enabled,
            "max_repair_attempts": self.max_repair_attempts,
            "pass_score": self.pass_score,
            "gate3_outcome": self.gate3_outcome,
        }


_CACHE: dict[tuple[str, str, str, str], HarnessConfig] = {}


def _from_env_cached(enable: str, max_repairs: str, pass_score: str,
                     gate3_outcome: str = "") -> HarnessConfig:
    key = (enable, max_repairs, pass_score, gate3_outcome)
    hit = _CACHE.get(key)
    if hit is None:
        hit = HarnessConfig(
            enabled=_parse_bool(enable, ENV_ENABLE, True),
            max_repair_attempts=_parse_int(max_repairs, ENV_MAX_REPAIRS, DEFAULT_MAX_REPAIRS),
            pass_score=_parse_score(pass_score, ENV_PASS_SCORE, DEFAULT_PASS_SCORE),
            gate3_outcome=_parse_choice(gate3_outcome, ENV_GATE3_OUTCOME, GATE3_OUTCOMES,
                                        DEFAULT_GATE3_OUTCOME),
        )
        _CACHE[key] = hit
    return hit


def _env_error(name: str, value: str, expected: str) -> InputError:
    return InputError(f"{name}={value!r} is invalid: expected {expected}", field=name,
                      file="environment")


def _parse_bool(raw: str, name: str, default: bool) -> bool:
    text = raw.strip().lower()
    if not text:
        return default
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise _env_error(name, raw, "true or false (also 1/0, yes/no, on/off)")


def _parse_choice(raw: str, name: str, choices: tuple[str, ...], default: str) -> str:
    text = raw.strip().lower()
    if not text:
        return default
    if text not in choices:
        raise _env_error(name, raw, " or ".join(choices))
    return text


# Plain ASCII numbers only: Python's int()/float() also accept "1_0" and non-ASCII digits.
_INT_RE = re.compile(r"[+-]?[0-9]+")
_NUM_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse_int(raw: str, name: str, default: int) -> int:
    text = raw.strip()
    if not text:
        return default
    try:
        if not _INT_RE.fullmatch(text):
            raise ValueError(text)
        value = int(text)
    except ValueError:
        raise _env_error(name, raw, f"an integer from 0 to {MAX_REPAIRS_LIMIT}") from None
    if not 0 <= value <= MAX_REPAIRS_LIMIT:
        raise _env_error(name, raw, f"an integer from 0 to {MAX_REPAIRS_LIMIT}")
    return value


def _parse_score(raw: str, name: str, default: float) -> float:
    text = raw.strip()
    if not text:
        return default
    try:
        if not _NUM_RE.fullmatch(text):
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise _env_error(name, raw, "a number from 0 to 100") from None
    if not math.isfinite(value) or not 0 <= value <= 100:
        raise _env_error(name, raw, "a number from 0 to 100")
    return value


def _check_max_repairs(value: object, field: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"must be an integer, got {value!r}", field=field)
    if not 0 <= value <= MAX_REPAIRS_LIMIT:
        raise InputError(f"must be from 0 to {MAX_REPAIRS_LIMIT}, got {value}", field=field)


def _check_pass_score(value: object, field: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"must be a number, got {value!r}", field=field)
    if not math.isfinite(value) or not 0 <= value <= 100:
        raise InputError(f"must be from 0 to 100, got {value}", field=field)


def resolve_config(config: HarnessConfig | None) -> HarnessConfig:
    """Explicit config wins; otherwise the environment (with defaults for unset variables)."""
    return config if config is not None else HarnessConfig.from_env()
