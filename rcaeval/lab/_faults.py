"""The lab's process and disk faults (docs/lab.md, "Fault scenarios"): a CPU hog beside the
database (``cpu_hog``), a tablespace on a size-limited volume filled to the last byte
(``fill_volume``), a stray server taking the service's port so it crash-loops under its
supervisor (``squat_port``). ``inject`` returns the injector log's detail; ``revert`` undoes
it and restarts any lab component the fault took down."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from rcaeval.lab._procs import LabError, RunAs, read_procs, spawn, stop
from rcaeval.lab._scenario import (
    CpuHogInjector,
    FillVolumeInjector,
    Scenario,
    SquatPortInjector,
)
from rcaeval.lab._stack import COMPONENTS, psql, start_component, wait_ready
from rcaeval.lab._volume import fill, mount_volume, unmount_volumes, volume_path

INJECT_ORDER = 90  # injector processes stop before the lab's own components


def _run_as(state: dict[str, Any]) -> RunAs:
    return RunAs(state["user"], state["uid"], state["gid"])


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except (FileNotFoundError, PermissionError):
        return []
    return [int(x) for x in text.split()]


def inject(lab_dir: Path, state: dict[str, Any], sc: Scenario, inj: Any) -> dict[str, Any]:
    name = f"inject-{sc.id}"
    log = lab_dir / "logs" / f"{name}.log"
    if isinstance(inj, CpuHogInjector):
        argv = ["stress-ng", "--cpu", str(inj.cpu_workers), "--cpu-load", str(inj.cpu_load),
                "--timeout", "3600s", "--temp-path", str(lab_dir / "tmp")]
        spawn(lab_dir, name, argv, run_as=_run_as(state), log=log, order=INJECT_ORDER)
        return {"program": "stress-ng", "argv": argv[1:], "user": state["user"]}
    if isinstance(inj, FillVolumeInjector):
        path = mount_volume(lab_dir, inj.volume, inj.size_mb, _run_as(state))
        location = path / "pg"
        location.mkdir(exist_ok=True)
        if state["uid"] != os.getuid():
            os.chown(location, state["uid"], state["gid"])
        psql(state, file="volume_tablespace_create.sql",
             variables={"volume": inj.volume, "location": str(location)})
        for table in inj.tables:
            psql(state, file="volume_table_move.sql", timeout_s=120,
                 variables={"table": table, "tablespace": inj.volume})
        written = fill(path / inj.file, _run_as(state))
        return {"volume": inj.volume, "mount": str(path), "size_mb": inj.size_mb,
                "tables": inj.tables, "file": inj.file, "bytes": written}
    if isinstance(inj, SquatPortInjector):
        port = state["ports"][inj.component]
        spawn(lab_dir, name, [state["python"], "-I", str(lab_dir / "bin" / "_debugsrv.py"),
                              "--port", str(port), "--dir", str(lab_dir / "tmp")],
              run_as=_run_as(state), log=log, order=INJECT_ORDER)
        sup = next((p for p in read_procs(lab_dir) if p.name == inj.component and p.alive()),
                   None)
        if sup is None:
            raise LabError(f"lab: component {inj.component} is not running")
        for child in _children(sup.pid):  # the supervised service restarts (a deploy)
            os.kill(child, signal.SIGTERM)
        return {"component": inj.component, "port": port}
    raise LabError(f"lab: no injector for kind {inj.kind!r}")


def revert(lab_dir: Path, state: dict[str, Any], sc: Scenario, inj: Any) -> None:
    for proc in read_procs(lab_dir):
        if proc.name == f"inject-{sc.id}":
            stop(lab_dir, proc)
    if isinstance(inj, FillVolumeInjector):
        (volume_path(lab_dir) / inj.file).unlink(missing_ok=True)
        for table in inj.tables:
            psql(state, file="volume_table_move.sql", timeout_s=120,
                 variables={"table": table, "tablespace": "pg_default"})
        psql(state, file="volume_tablespace_drop.sql", variables={"volume": inj.volume})
        unmount_volumes(lab_dir)
    revive(lab_dir, state)
    if isinstance(inj, SquatPortInjector):  # its supervisor's next restart listens again
        wait_ready(lab_dir, state, inj.component)


def revive(lab_dir: Path, state: dict[str, Any]) -> list[str]:
    """Start again every lab component whose process is gone (pgbench exits once all its
    clients failed, e.g. on a full disk); the names started."""
    alive = {p.name for p in read_procs(lab_dir) if p.alive()}
    started = []
    for name in COMPONENTS:
        if name not in alive:
            start_component(lab_dir, state, name)
            started.append(name)
    for name in started:
        wait_ready(lab_dir, state, name)
    return started
