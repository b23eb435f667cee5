"""The incident lab half of `rcaeval run`: `--suite lab` runs the lab's scenarios live
(docs/lab.md, "run --suite lab"). Not a command module: `_cmd_run` calls it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from rcaeval.errors import InputError

if TYPE_CHECKING:
    from rcaeval.store import Store


@contextmanager
def lab_suite(options: dict[str, Any], *, lab_dir: Path | None, user: str | None,
              registry: Path | None) -> Iterator[Path]:
    """The run on a fresh lab and its generated registry (``options`` is updated;
    :func:`rcaeval.lab.lab_session`), taken down after."""
    from rcaeval import lab
    from rcaeval.lab import lab_session, registry_root

    if registry is not None:
        raise InputError("--suite lab runs the lab's own registry ($RCAEVAL_LAB_REGISTRY), "
                         "not --registry", field="--registry")
    if options.get("executor") not in (None, "local"):
        raise InputError("--suite lab runs on the local executor only", field="--executor")
    where = (lab_dir or lab.default_dir()).resolve()
    with lab_session(where, registry_root(), user=user) as run_options:
        options.update(run_options)
        yield run_options["registry_root"]


def print_lab(console: Console, store: Store, run_id: str) -> None:
    """The run's mitigation table, when it is a lab run."""
    from rcaeval.lab import mitigation_rows, render_mitigation

    rows = mitigation_rows(store.con, run_id)
    if rows:
        console.print(render_mitigation(rows), end="", highlight=False, markup=False)
