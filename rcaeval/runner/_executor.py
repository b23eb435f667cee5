"""Executors: where the cases of a run execute (docs/running.md, docs/distributed.md).

The run loop hands every case to an executor as a :class:`CaseJob` and drains the events it
reports on a queue: ``("started", case_id, iso_ts)`` when an agent is about to start on the
case and ``("done", Done)`` when the case's audit is on disk. Only the loop's main thread
touches the store; executors never do.

- ``local`` (default): a pool of ``jobs`` threads on this machine (agents are subprocesses,
  so threads suffice).
- ``ray`` / ``ray:local`` / ``ray:<address>``: one Ray task per case on a Ray cluster
  (:mod:`rcaeval.runner._ray`, the ``ray`` extra).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rcaeval.errors import InputError
from rcaeval.runner._agents import AgentAdapter, AgentOutcome, now_iso, parse_agent_spec
from rcaeval.runner._case import RunCase
from rcaeval.runner._execute import execute_case
from rcaeval.runner._proc import kill_group, proc_stats
from rcaeval.runner._resume import Done
from rcaeval.runner._sandbox import Bind, Sandbox, resolve_sandbox

EXECUTORS = ("local", "ray", "ray:local")
"""The executor specs ``--executor`` documents (``ray:<address>`` names a cluster too)."""
DEFAULT_EXECUTOR = "local"
STOP_GRACE_S = 15.0
"""How long a stopping executor keeps killing agents while its workers return."""


@dataclass(frozen=True)
class CaseJob:
    """Everything a worker needs to run one case of a run (picklable: it travels to Ray
    workers). ``sandbox`` is the mode, resolved where the case runs."""

    run_id: str
    agent_spec: str
    agent_env: Mapping[str, str | None]
    audit_root: str
    timeout_s: float
    turn_timeout_s: float
    max_infra_retries: int
    expose_case_ids: bool
    case_ref_key: str | None
    tools: str
    sandbox: str | None
    network: bool
    explicit_timeout: bool
    """An explicit ``--timeout`` beats the case's own ``execution.timeout_s``."""
    sandbox_binds: tuple[Bind, ...] = ()
    allow_endpoints: tuple[tuple[str, int], ...] = ()
    agent_home: str | None = None


@dataclass(frozen=True)
class Resources:
    """What one case asks of a cluster node (suite ``execution``, overridden per case)."""

    cpus: float = 1.0
    memory_mb: int | None = None


def case_resources(policy: Any, merged: Any) -> Resources:
    """The suite policy's ``cpus`` / ``memory_mb``, overridden by the case's own
    ``execution.cpus`` / ``execution.memory_mb``."""
    own = getattr(getattr(merged, "case", None), "execution", None)
    cpus = getattr(own, "cpus", None) or getattr(policy, "cpus", None) or 1.0
    mem = getattr(own, "memory_mb", None) or getattr(policy, "memory_mb", None)
    return Resources(cpus=float(cpus), memory_mb=mem)


def run_job(job: CaseJob, rc: RunCase, ws_root: Path, *, adapter: AgentAdapter | None = None,
            sandbox: Sandbox | None = None,
            prior_attempts: Sequence[dict[str, Any]] = (),
            manifest_extra: Mapping[str, Any] | None = None,
            case_context: Any = None) -> Done:
    """Run one case where this is called (a local thread or a Ray worker) and return what
    the loop persists. A malformed case or a runner bug is that case's error, not the run's."""
    try:  # resolved where the case runs: a Ray node may lack bubblewrap
        sb = sandbox if sandbox is not None else resolve_sandbox(
            job.sandbox, network=job.network, binds=job.sandbox_binds,
            endpoints=job.allow_endpoints, home=job.agent_home)
    except InputError as exc:
        return Done(rc.case_id, error=f"sandbox unavailable on {os.uname().nodename}: {exc}")
    try:
        if job.explicit_timeout:
            rc = dataclasses.replace(rc, timeout_s=None)
        agent = adapter if adapter is not None else parse_agent_spec(job.agent_spec,
                                                                     env=dict(job.agent_env))
        ex = execute_case(job.run_id, rc, agent, workspace_root=ws_root,
                          audit_root=job.audit_root, timeout_s=job.timeout_s,
                          turn_timeout_s=job.turn_timeout_s,
                          max_infra_retries=job.max_infra_retries,
                          expose_case_ids=job.expose_case_ids, case_ref_key=job.case_ref_key,
                          tools=job.tools, sandbox=sb, overwrite_audit=bool(prior_attempts),
                          prior_attempts=prior_attempts, manifest_extra=manifest_extra,
                          case_context=case_context)
        return Done(rc.case_id, execution=ex)
    except InputError as exc:
        return Done(rc.case_id, error=f"malformed case: {exc}")
    except Exception as exc:  # noqa: BLE001 - reported as this case's error
        return Done(rc.case_id, error=f"runner error: {exc!r}")


# -- stopping agents -------------------------------------------------------------------------

def agent_groups(ws_root: Path) -> list[int]:
    """Process groups led by our direct children that are agents working under ``ws_root``:
    every agent runs in its own session, with ``RCAEVAL_WORKSPACE`` under ``ws_root`` in its
    environment (so a notebook kernel's other children are never touched)."""
    me, out = os.getpid(), []
    marker = b"RCAEVAL_WORKSPACE=" + str(ws_root).encode() + b"/"
    for pid, _, ppid, pgrp in proc_stats():
        if ppid != me or pgrp != pid:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                env = fh.read().split(b"\0")
        except OSError:
            continue
        if any(item.startswith(marker) for item in env):
            out.append(pid)
    return out


def stop_agents(ws_root: Path, finished: Any = None, grace_s: float = STOP_GRACE_S) -> None:
    """Kill the agent process groups under ``ws_root`` until ``finished()`` is true (or once
    when it is ``None``), for at most ``grace_s``."""
    deadline = time.monotonic() + grace_s
    while True:
        for pgid in agent_groups(ws_root):
            kill_group(pgid, grace_s=0.5)
        if finished is None or finished() or time.monotonic() >= deadline:
            return
        time.sleep(0.05)


# -- the interface and the local executor ----------------------------------------------------

class Executor(Protocol):
    """Runs :class:`CaseJob` cases and reports ``started`` / ``done`` events on a queue."""

    def submit(self, case_id: str, rc: RunCase, resources: Resources) -> None: ...

    def stop(self) -> None:
        """Ctrl-C: start no new case, cancel what is queued, kill running agents (bounded)."""

    def close(self) -> None: ...


class _Stoppable:
    """Adapter wrapper: once the run stops, no new attempt (retry) starts an agent."""

    def __init__(self, inner: AgentAdapter, stop: threading.Event) -> None:
        self.inner, self.stop = inner, stop
        self.name, self.spec = inner.name, inner.spec

    def info(self) -> dict[str, Any]:
        return self.inner.info()

    def run_case(self, workspace: Any, *, timeout_s: float,
                 turn_timeout_s: float | None = None) -> AgentOutcome:
        if self.stop.is_set():
            return AgentOutcome(status="errored", error="run interrupted",
                                agent_info=self.inner.info())
        return self.inner.run_case(workspace, timeout_s=timeout_s, turn_timeout_s=turn_timeout_s)


class LocalExecutor:
    """``jobs`` worker threads on this machine; workspaces under ``ws_root``."""

    def __init__(self, job: CaseJob, events: queue.Queue[Any], *, jobs: int, ws_root: Path,
                 adapter: AgentAdapter, sandbox: Sandbox, case_context: Any = None) -> None:
        self.job, self.events, self.ws_root, self.sandbox = job, events, ws_root, sandbox
        self.case_context = case_context
        self._stop = threading.Event()
        self.adapter = _Stoppable(adapter, self._stop)
        self.pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="rcaeval-case")
        self.futures: list[Future[Any]] = []

    def submit(self, case_id: str, rc: RunCase, resources: Resources) -> None:
        self.futures.append(self.pool.submit(self._work, case_id, rc))

    def _work(self, case_id: str, rc: RunCase) -> None:
        if self._stop.is_set():
            return
        self.events.put(("started", case_id, now_iso()))
        self.events.put(("done", run_job(self.job, rc, self.ws_root, adapter=self.adapter,
                                         sandbox=self.sandbox,
                                         case_context=self.case_context)))

    def stop(self) -> None:
        self._stop.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
        stop_agents(self.ws_root / self.job.run_id,
                    finished=lambda: all(f.done() for f in self.futures))

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def check_executor(spec: str | None) -> str:
    """Validate an ``--executor`` value: ``local``, ``ray``, ``ray:local`` or
    ``ray:<address>``."""
    value = (spec or DEFAULT_EXECUTOR).strip()
    if value == "local" or value == "ray" or (value.startswith("ray:") and value[4:].strip()):
        return value
    raise InputError(f"unknown executor {spec!r}: use local, ray (cluster at $RAY_ADDRESS), "
                     "ray:local (a Ray instance on this machine) or ray:<address>",
                     field="--executor")


def connect_executor(spec: str) -> bool:
    """Before a run is recorded: import Ray and connect to the cluster a ``ray`` spec names
    (raises :class:`InputError` when Ray is missing or no address is known). True when this
    call started the connection (the executor then shuts it down when the run ends)."""
    if spec == "local":
        return False
    from rcaeval.runner._ray import connect

    return connect(spec)


def disconnect_executor() -> None:
    """Shut down the Ray connection :func:`connect_executor` started."""
    import ray

    ray.shutdown()


def make_executor(spec: str, job: CaseJob, events: queue.Queue[Any], *, jobs: int | None,
                  ws_root: Path, workspace_root: str | Path | None, adapter: AgentAdapter,
                  sandbox: Sandbox, owned: bool = False, min_jobs: int = 1,
                  case_context: Any = None) -> Executor:
    """The executor ``spec`` names (see :func:`check_executor`). ``case_context`` (a live
    environment around each case, local only) goes to :func:`execute_case`."""
    if spec == "local":
        return LocalExecutor(job, events, jobs=jobs or 1, ws_root=ws_root, adapter=adapter,
                             sandbox=sandbox, case_context=case_context)
    if case_context is not None:
        raise InputError("a live suite (the incident lab) runs on the local executor only",
                         field="--executor")
    from rcaeval.runner._ray import RayExecutor

    return RayExecutor(job, events, jobs=jobs, workspace_root=workspace_root, owned=owned,
                       min_jobs=min_jobs)
