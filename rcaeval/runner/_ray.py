"""The Ray executor: one Ray task per case on a Ray cluster (docs/distributed.md).

Each task runs :func:`rcaeval.runner._executor.run_job` on a worker node: a fresh workspace
on the node, the agent started there through the runner's one spawn point (own session,
sandbox where the node has one), the audit mirrored to the shared audit root with the same
manifest, checksums and atomic rename as locally. The driver (this process) only schedules,
collects and - through the run loop - judges and writes the store.

A task whose worker process or node dies is not the agent's failure: the driver records the
lost attempt as an infrastructure error and submits the case again (it shares the case's
``max_infra_retries`` budget with the in-task retries); when the budget is spent the case is
``errored`` (exit 7), never judged. Ray's own task retries are off so every attempt is
accounted for.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import queue
import threading
import time
from pathlib import Path
from typing import Any

from rcaeval.errors import InputError
from rcaeval.runner._agents import now_iso
from rcaeval.runner._case import RunCase
from rcaeval.runner._execute import CaseExecution
from rcaeval.runner._executor import STOP_GRACE_S, CaseJob, Resources, run_job, stop_agents
from rcaeval.runner._orphans import workspace_root_for
from rcaeval.runner._resume import Done
from rcaeval.runner._workspace import remove_tree

RAY_ADDRESS_ENV = "RAY_ADDRESS"


def import_ray() -> Any:
    """``import ray``, or an :class:`InputError` saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise InputError("the Ray executor needs Ray: pip install 'rcaeval-judge[ray]' "
                         f"({exc})", field="--executor") from None
    return ray


def connect(spec: str) -> bool:
    """Connect this process to the cluster ``spec`` names unless Ray is already initialised
    (an API user's own ``ray.init``). Returns True when this call started the connection
    (and the executor shuts it down afterwards)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    if spec == "ray:local":
        # "local": a new instance even where RAY_ADDRESS names a cluster
        ray.init(address="local", include_dashboard=False, log_to_driver=False)
        return True
    address = spec[4:].strip() if spec.startswith("ray:") else os.environ.get(RAY_ADDRESS_ENV)
    if not address:
        raise InputError(f"--executor ray needs ${RAY_ADDRESS_ENV} (the cluster's address, "
                         "e.g. ray://head:10001 or head:6379); use ray:local for a Ray "
                         "instance on this machine", field="--executor")
    ray.init(address=address, log_to_driver=False)
    return True


def ray_case(job: CaseJob, rc: RunCase, prior: list[dict[str, Any]],
             workspace_root: str | None) -> Done:
    """The Ray task body (runs on a worker): one case in a fresh workspace on this node."""
    if rc.incident_dir is not None and not Path(rc.incident_dir).exists():
        return Done(rc.case_id, error=f"infrastructure error: the case's incident data "
                    f"{rc.incident_dir} is not visible on Ray node {os.uname().nodename}: "
                    "put the registry on the shared volume (docs/distributed.md)")
    if prior:  # a worker lost while mirroring may have left a half-assembled audit
        for partial in (Path(job.audit_root) / job.run_id).glob(f".{rc.case_id}.partial-*"):
            remove_tree(partial)
    own = workspace_root is None
    # without --workspace-root: a temporary root marked with this worker's pid; the next task
    # on the node removes the roots (and kills the agents) of workers that died mid-case
    root = workspace_root_for(workspace_root, job.run_id, False)
    ctx = import_ray().get_runtime_context()
    where = {"kind": "ray", "host": os.uname().nodename, "node_id": ctx.get_node_id(),
             "resources": ctx.get_assigned_resources()}
    try:
        return run_job(job, rc, root, prior_attempts=prior, manifest_extra={"executor": where})
    except BaseException:
        # ray.cancel raises KeyboardInterrupt here: the agents must not outlive the task
        stop_agents(root / job.run_id, grace_s=0)
        raise
    finally:
        if own:
            remove_tree(root)


class _Item:
    __slots__ = ("case_id", "rc", "resources", "prior", "started_at", "t0")

    def __init__(self, case_id: str, rc: RunCase, resources: Resources) -> None:
        self.case_id, self.rc, self.resources = case_id, rc, resources
        self.prior: list[dict[str, Any]] = []
        self.started_at: str | None = None
        self.t0 = 0.0


class RayExecutor:
    """At most ``jobs`` outstanding Ray tasks (default: the cluster's CPUs, at least
    ``min_jobs``, the suite's ``execution.jobs``), each asking
    for its case's ``cpus`` / ``memory_mb``; results go to the run loop's event queue."""

    def __init__(self, job: CaseJob, events: queue.Queue[Any], *, jobs: int | None,
                 workspace_root: str | Path | None, owned: bool = False,
                 min_jobs: int = 1) -> None:
        self.ray = import_ray()
        self.owned = owned
        # --agent-env NAME passes the runner's own value: the driver's, not a worker's
        env = {k: v if v is not None else os.environ.get(k) for k, v in job.agent_env.items()}
        self.job = dataclasses.replace(job, agent_env={k: v for k, v in env.items()
                                                       if v is not None})
        self.events = events
        self.ws_root = str(Path(workspace_root).resolve()) if workspace_root else None
        self.jobs = jobs or max(min_jobs, int(self.ray.cluster_resources().get("CPU", 1)))
        self.remote = self.ray.remote(ray_case)
        self.pending: collections.deque[_Item] = collections.deque()
        self.inflight: dict[Any, _Item] = {}
        self.cv = threading.Condition()
        self.stopping = False
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._pump, name="rcaeval-ray", daemon=True)
        self.thread.start()

    def submit(self, case_id: str, rc: RunCase, resources: Resources) -> None:
        with self.cv:
            if self.failed is not None:
                self._fail(case_id)
                return
            self.pending.append(_Item(case_id, rc, resources))
            self.cv.notify()

    def _launch(self, item: _Item) -> None:
        opts: dict[str, Any] = {"num_cpus": item.resources.cpus, "max_retries": 0,
                                "name": f"rcaeval:{self.job.run_id}:{item.case_id}"}
        if item.resources.memory_mb:
            opts["memory"] = int(item.resources.memory_mb) * 1024 * 1024
        ref = self.remote.options(**opts).remote(self.job, item.rc, item.prior, self.ws_root)
        if item.started_at is None:
            item.started_at = now_iso()
            self.events.put(("started", item.case_id, item.started_at))
        item.t0 = time.monotonic()
        self.inflight[ref] = item

    def _pump(self) -> None:
        try:
            self._pump_loop()
        except BaseException as exc:  # noqa: BLE001 - e.g. the connection to the cluster
            # the loop waits for every case: end each one as an infrastructure error
            with self.cv:
                self.failed = exc
                items = [*self.inflight.values(), *self.pending]
                self.inflight.clear()
                self.pending.clear()
            for item in items:
                self._fail(item.case_id)

    def _fail(self, case_id: str) -> None:
        self.events.put(("done", Done(case_id, error=(
            f"infrastructure error: the Ray executor failed: {self.failed!r}"))))

    def _pump_loop(self) -> None:
        while True:
            with self.cv:
                if self.stopping:
                    return
                while self.pending and len(self.inflight) < self.jobs:
                    item = self.pending.popleft()
                    try:
                        self._launch(item)
                    except BaseException:
                        self.pending.appendleft(item)  # ended with the others, below
                        raise
                if not self.inflight:
                    self.cv.wait(0.5)
                    continue
                refs = list(self.inflight)
            ready, _ = self.ray.wait(refs, num_returns=1, timeout=0.5)
            with self.cv:
                if self.stopping:
                    return
                for ref in ready:
                    self._collect(ref, self.inflight.pop(ref))

    def _collect(self, ref: Any, item: _Item) -> None:
        exc_mod = self.ray.exceptions
        try:
            done = self.ray.get(ref)
        except exc_mod.RayTaskError as exc:  # the task body raised (a runner bug)
            done = Done(item.case_id, error=f"runner error on the Ray worker: {exc}")
        except exc_mod.RayError as exc:  # the worker process or its node is gone
            self._lost(item, exc)
            return
        ex = done.execution
        if ex is not None and ex.audit_dir is not None and not Path(ex.audit_dir).is_dir():
            ex.status, ex.error = "errored", (
                f"infrastructure error: the audit the Ray worker wrote to {ex.audit_dir} is "
                "not visible here: mount the audit root at the same path on every node "
                "(docs/distributed.md)")
        self.events.put(("done", done))

    def _lost(self, item: _Item, exc: BaseException) -> None:
        reason = f"Ray worker lost ({type(exc).__name__}): {str(exc).splitlines()[0][:300]}"
        item.prior.append({"attempt": len(item.prior) + 1, "workspace_id": None,
                           "status": "errored", "infra_error": True, "error": reason,
                           "started_at": item.started_at, "finished_at": now_iso(),
                           "duration_s": round(time.monotonic() - item.t0, 3)})
        if len(item.prior) <= self.job.max_infra_retries:
            self.pending.appendleft(item)
            return
        n = len(item.prior)
        ex = CaseExecution(run_id=self.job.run_id, case_id=item.case_id, status="errored",
                           attempts=n, audit_dir=None, usage={},
                           duration_s=sum(a["duration_s"] for a in item.prior),
                           error=f"infrastructure error: {reason} (attempt {n} of "
                                 f"{self.job.max_infra_retries + 1})",
                           started_at=item.started_at, finished_at=now_iso(),
                           attempt_log=list(item.prior))
        self.events.put(("done", Done(item.case_id, execution=ex)))

    def stop(self) -> None:
        """Cancel queued and running tasks; a running task gets KeyboardInterrupt (its agents
        are killed there); whatever has not ended within the grace period is force-killed."""
        with self.cv:
            self.stopping = True
            self.pending.clear()
            refs = list(self.inflight)
            self.cv.notify()
        for ref in refs:
            self.ray.cancel(ref, force=False)
        left = refs
        deadline = time.monotonic() + STOP_GRACE_S
        while left and time.monotonic() < deadline:
            _ready, left = self.ray.wait(left, num_returns=len(left), timeout=0.5)
        for ref in left:
            self.ray.cancel(ref, force=True)

    def close(self) -> None:
        with self.cv:
            self.stopping = True
            self.cv.notify()
        self.thread.join(timeout=5)
        if self.owned:
            self.ray.shutdown()
