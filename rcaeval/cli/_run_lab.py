"""The incident lab half of `rcaeval run`: `--suite lab` runs the lab's scenarios live
(docs/lab.md, "run --suite lab"). Not a command module: `_cmd_run` calls it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from rcaeval.errors import InputError


@contextmanager
def lab_suite(options: dict[str, Any], *, lab_dir: Path | None, user: str | None,
              registry: Path | None) -> Iterator[Path]:
    """Generate the lab registry, bring the lab up fresh (which also stops what a killed run
    left running), point the run at both (``options`` is updated), take the lab down after."""
    from rcaeval import lab
    from rcaeval.lab._suite import LabCases, registry_root, write_registry

    if registry is not None:
        raise InputError("--suite lab runs the lab's own registry ($RCAEVAL_LAB_REGISTRY), "
                         "not --registry", field="--registry")
    if options.get("executor") not in (None, "local"):
        raise InputError("--suite lab runs on the local executor only", field="--executor")
    scenarios = lab.load_scenarios()
    root = write_registry(registry_root(), scenarios)
    where = (lab_dir or lab.default_dir()).resolve()
    lab.up(where, user=user)
    options.update(registry_root=root, case_context=LabCases(where, root, scenarios),
                   jobs=1, tools="mcp")
    try:
        yield root
    finally:
        lab.down(where)


def print_lab(console: Console, store: Any, run_id: str) -> None:
    """The run's mitigation table, when it is a lab run."""
    from rcaeval.lab._suite import mitigation_rows, render_mitigation

    rows = mitigation_rows(store.con, run_id)
    if rows:
        console.print(render_mitigation(rows), end="", highlight=False, markup=False)
