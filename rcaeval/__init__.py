"""rcaeval: evaluate AI root-cause-analysis agents.

The top-level API is deliberately thin; each subpackage has its own facade
(``rcaeval.registry``, ``rcaeval.store``, ``rcaeval.extract``, ``rcaeval.judge``,
``rcaeval.runner``, ``rcaeval.report``, ``rcaeval.harness``, ``rcaeval.synth``).

    import rcaeval
    s = rcaeval.connect()                                  # the DuckDB store
    rcaeval.judge_audit(s, "data/recorded", "data/registry", out_dir="out")
    s.judgments()                                          # polars frame
    rcaeval.check_response({...})                          # runtime harness on one RCA report

Names are imported lazily so ``import rcaeval`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, tuple[str, str]] = {
    "connect": ("rcaeval.store", "connect"),
    "Store": ("rcaeval.store", "Store"),
    "load_case": ("rcaeval.registry", "load_case"),
    "load_suite": ("rcaeval.registry", "load_suite"),
    "validate_registry": ("rcaeval.registry", "validate_registry"),
    "judge_audit": ("rcaeval.judge", "judge_audit"),
    "run_suite": ("rcaeval.runner", "run_suite"),
    "write_reports": ("rcaeval.report", "write_reports"),
    "promote_baseline": ("rcaeval.report", "promote_baseline"),
    "diff_against_baseline": ("rcaeval.report", "diff_against_baseline"),
    "check_response": ("rcaeval.harness", "check"),
    "generate_sample": ("rcaeval.synth", "generate_sample"),
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'rcaeval' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
