"""``rcaeval doctor``: check that this machine can run a suite — Python and packages, the
store, the registry (and a suite), the sandbox, and an agent spec (docs/doctor.md).

    from rcaeval.doctor import run_checks
    for c in run_checks(suite="smoke", agent="acp:python -m rcaeval.examples.example_agent"):
        print(c.name, c.status, c.detail, c.fix)
"""

from __future__ import annotations

from rcaeval.doctor._checks import Check, run_checks

__all__ = ["Check", "run_checks"]
