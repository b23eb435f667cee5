"""The run loop: a suite's cases through an agent, each judged and committed as it finishes.

Worker threads call :func:`rcaeval.runner.execute_case` (agents are subprocesses, so threads
suffice); only the main thread touches the store. Per case the main thread extracts and
judges the audit dir, then writes the case's final ``eval_case_runs`` row: that update is the
case's commit point, so a run killed at any moment resumes cleanly (docs/running.md).
"""

from __future__ import annotations

import contextlib
import queue
import re
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rcaeval._ids import check_id, child_path
from rcaeval._paths import data_dir, registry_dir
from rcaeval._vocab import CASE_OUTCOMES
from rcaeval.errors import ExitCode, InputError, NotFoundError, RcaevalError
from rcaeval.runner._agent_name import check_agent_name, default_agent_name
from rcaeval.runner._agents import parse_agent_spec
from rcaeval.runner._case import to_run_case
from rcaeval.runner._executor import (
    CaseJob,
    Executor,
    case_resources,
    check_executor,
    connect_executor,
    make_executor,
)
from rcaeval.runner._mcp import check_tools_mode
from rcaeval.runner._orphans import workspace_root_for
from rcaeval.runner._progress import RunProgress, outcome_of
from rcaeval.runner._resume import (
    Done,
    agent_config,
    agent_hash,
    create_run,
    new_case_ref_key,
    new_run_id,
    persist_cases,
    plan_resume,
    problems_text,
    q,
    read_case_ref_key,
    record_cases,
    reset_cases,
)
from rcaeval.runner._sandbox import parse_binds, resolve_sandbox
from rcaeval.runner._workspace import remove_tree

if TYPE_CHECKING:
    from rcaeval.store import Store

STOP_GRACE_S = 15.0


@dataclass(frozen=True)
class CaseResult:
    """One case of a run as the summary shows it."""

    case_id: str
    status: str
    verdict: str | None
    subtype: str | None
    score: float | None
    attempts: int | None
    duration_s: float | None
    error: str | None
    case_type: str | None
    quarantined: bool = False

    @property
    def outcome(self) -> str:
        return outcome_of(self.status, self.verdict)


@dataclass
class RunSummary:
    """What :func:`run_suite` did. ``reused`` are cases a resume kept from before."""

    run_id: str
    suite_id: str
    suite_version: str
    agent_spec: str
    agent_hash: str
    status: str
    audit_dir: Path
    cases: list[CaseResult] = field(default_factory=list)
    reports: tuple[Path, Path] | None = None
    resumed: bool = False
    reused: tuple[str, ...] = ()

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(CASE_OUTCOMES, 0)
        for c in self.cases:
            out[c.outcome] = out.get(c.outcome, 0) + 1
        return out

    def frame(self) -> pl.DataFrame:
        cols = ("case_id", "status", "verdict", "subtype", "score", "attempts", "duration_s",
                "error", "case_type", "quarantined")
        return pl.DataFrame([{k: getattr(c, k) for k in cols} for c in self.cases],
                            schema={"case_id": pl.String, "status": pl.String,
                                    "verdict": pl.String, "subtype": pl.String,
                                    "score": pl.Float64, "attempts": pl.Int64,
                                    "duration_s": pl.Float64, "error": pl.String,
                                    "case_type": pl.String, "quarantined": pl.Boolean})


class RunFailed(RcaevalError):
    """An unexpected error stopped the run (a bug, a broken store). The run is marked
    ``failed``, every case committed before is kept and reported, and ``--resume`` finishes
    it. Exit code 5 (internal error); ``summary`` is the failed run's summary (``None`` when
    even the store could not be read)."""

    exit_code = ExitCode.INTERNAL

    def __init__(self, run_id: str, cause: BaseException, summary: RunSummary | None) -> None:
        self.summary = summary
        self.cause = cause
        super().__init__(f"run {run_id} failed: {cause!r}. Cases finished so far are kept"
                         + (" and reported" if summary and summary.reports else "")
                         + f"; finish the run with --resume {run_id}")


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C / SIGTERM stopped the run; it is marked ``interrupted`` (``summary``)."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__(f"run {summary.run_id} interrupted")
        self.summary = summary


# -- interrupts ----------------------------------------------------------------------------

class _Interrupts:
    """SIGINT/SIGTERM raise KeyboardInterrupt, except inside a critical section (a case's
    judging and commit), where they are deferred to its end; ignored once stopping."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending = False
        self.stopping = False
        self._saved: dict[int, Any] = {}

    def handler(self, signum: int, frame: Any) -> None:
        if self.stopping:
            return
        if self.depth:
            self.pending = True
            return
        raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._saved[sig] = signal.signal(sig, self.handler)
        try:
            yield
        finally:
            for sig, old in self._saved.items():
                signal.signal(sig, old)

    @contextmanager
    def critical(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
        if not self.depth and self.pending and not self.stopping:
            self.pending = False
            raise KeyboardInterrupt


# -- the loop ------------------------------------------------------------------------------

def _select(suite: Any, case_ids: Sequence[str] | None) -> list[str]:
    ids = suite.case_ids
    if not case_ids:
        return list(ids)
    wanted = list(dict.fromkeys(case_ids))
    unknown = [c for c in wanted if c not in ids]
    if unknown:
        raise NotFoundError(f"case(s) {', '.join(unknown)} not in suite {suite.suite_id!r}")
    return [c for c in ids if c in wanted]


def _summary(store: Store, run_id: str, suite: Any, base: dict[str, Any]) -> RunSummary:
    quarantined = {c.id for c in suite.cases if c.status == "quarantined"}
    rows = store.con.execute(q("summary"), {"run_id": run_id}).fetchall()
    cases = [CaseResult(case_id=r[0], status=r[1], attempts=r[2], duration_s=r[3], error=r[4],
                        verdict=r[9], subtype=r[10], score=r[11], case_type=r[12],
                        quarantined=r[0] in quarantined) for r in rows]
    return RunSummary(cases=cases, **base)


def _drain(store: Store, run_id: str, cases: Mapping[str, Any], events: queue.Queue[Any],
           remaining: int, bar: RunProgress, guard: _Interrupts, semantic: Any = None) -> None:
    """Main-thread loop: mark started cases running; judge and commit finished ones (every
    case finished since the last pass, in one judging pass) until ``remaining`` are done."""
    while remaining:
        try:
            batch = [events.get(timeout=0.2)]
        except queue.Empty:
            continue
        while True:
            try:
                batch.append(events.get_nowait())
            except queue.Empty:
                break
        with guard.critical():
            started = [e for e in batch if e[0] == "started"]
            if started:
                with store.transaction():
                    for _, cid, ts in started:
                        store.con.execute(q("mark_running"), {
                            "run_id": run_id, "case_id": cid, "started_at": ts})
                for _, cid, _ts in started:
                    bar.started(cid)
            finished = [e[1] for e in batch if e[0] == "done"]
            if finished:
                for cid, outcome in persist_cases(store, run_id, cases, finished, semantic):
                    bar.record(outcome, cid)
                remaining -= len(finished)
        store.release()  # the write lock is held only while committing (docs/store.md)


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")


def _local_root(audit_root: str | Path) -> Path:
    """The audit root as a path; a URL (``s3://...``, ``gs://...``, ``file://...``: fsspec
    style) is refused, naming the option: the audit mirror's guarantees rest on an atomic
    rename within one file system, which object stores do not have (docs/distributed.md,
    "Shared storage"). ``Path`` would fold ``s3://b`` into the local dir ``s3:/b``."""
    if _URL.match(str(audit_root)):
        raise InputError(
            f"{audit_root}: URLs are not supported for the audit root (object storage has no "
            "atomic rename, which the audit mirror relies on); mount the storage and give its "
            "path (docs/distributed.md, \"Shared storage\")", field="--audit-root")
    return Path(audit_root)


def run_suite(
    store: Store,
    suite_id: str,
    agent_spec: str,
    *,
    registry_root: str | Path | None = None,
    audit_root: str | Path | None = None,
    workspace_root: str | Path | None = None,
    jobs: int | None = None,
    case_timeout_s: float | None = None,
    max_infra_retries: int | None = None,
    turn_timeout_s: float | None = None,
    run_id: str | None = None,
    resume: bool = False,
    case_ids: Sequence[str] | None = None,
    agent_env: Mapping[str, str | None] | None = None,
    progress: bool = True,
    reports: bool = True,
    expose_case_ids: bool = False,
    semantic: Any = None,
    agent_name: str | None = None,
    tools: str | None = None,
    sandbox: str | None = None,
    network: bool = True,
    sandbox_binds: Sequence[str] = (),
    allow_endpoints: Sequence[str] = (),
    agent_home: str | Path | None = None,
    executor: str | None = None,
    case_context: Any = None,
) -> RunSummary:
    """Run suite ``suite_id`` against the agent ``agent_spec`` (docs/running.md).

    Every case (quarantined ones too) runs in a fresh workspace, ``jobs`` at a time (default:
    the suite's execution policy, like the timeouts and retries); as each finishes it is
    judged and committed. ``resume=True`` continues run ``run_id``: finished cases are kept,
    the rest re-run. Ends with ``report.txt`` / ``report_detail.txt`` in
    ``<audit_root>/<run_id>/``. Ctrl-C or SIGTERM marks the run ``interrupted`` and raises
    :class:`RunInterrupted` (a ``KeyboardInterrupt``) carrying the summary.

    Agents see an opaque case reference, not the case id (keyed with a per-run secret kept in
    ``run.json``); ``expose_case_ids=True`` shows them the real ids. It is part of the agent
    configuration, so a resume must agree. ``tools`` (``mcp`` | ``files`` | ``both``; default
    the suite's ``execution.tools``) is how agents get the incident data; part of it too.
    ``sandbox`` (``auto`` default | ``require`` (``bwrap``) | ``none``), ``network`` and
    ``sandbox_binds`` (``PATH`` / ``PATH:ro``, like ``--sandbox-bind``) and
    ``allow_endpoints`` (``HOST:PORT`` on loopback, with ``network=False``) choose the agent
    sandbox; ``agent_home`` (``--agent-home``) is one ``HOME`` for every case
    (docs/agents.md, "Sandbox").

    ``semantic`` (a :class:`rcaeval.semantic.SemanticConfig`) runs the semantic shadow on
    each judged case (docs/semantic.md); the deterministic judgment is the same without it.

    ``agent_name`` labels the run in ``eval_runs.agent_name`` (reports and charts group by it);
    default :func:`default_agent_name` of ``agent_spec``. A resumed run keeps its name.

    ``executor`` is where cases execute: ``local`` (default; ``jobs`` threads here), ``ray``
    (the Ray cluster at ``$RAY_ADDRESS``), ``ray:local`` or ``ray:<address>``: one Ray task
    per case, ``jobs`` (default: the cluster's CPUs) outstanding (docs/distributed.md). It is
    not part of the agent configuration: a run may be resumed on another executor.

    ``case_context`` (local executor only) wraps each case's tool server and agent: a live
    environment such as the incident lab (docs/lab.md, ``rcaeval.runner.CaseHook``).
    """
    from rcaeval.judge import JUDGE_VERSION
    from rcaeval.registry import iter_suite_cases, load_suite

    if run_id is not None:  # it becomes AUDIT_ROOT/<run_id>/ and a workspace dir
        check_id(run_id, field="--resume" if resume else "--run-id")
    root = Path(registry_root) if registry_root is not None else registry_dir()
    suite = load_suite(root, suite_id)
    policy = suite.execution
    executor_spec = check_executor(executor)
    if executor_spec == "local":
        jobs = jobs or policy.jobs
    if jobs is not None and jobs < 1:
        raise InputError(f"jobs must be at least 1, got {jobs}", field="--jobs")
    explicit_timeout = float(case_timeout_s) if case_timeout_s else None
    timeout = explicit_timeout or float(policy.case_timeout_s)
    turn_timeout = float(turn_timeout_s or policy.turn_timeout_s)
    retries = policy.max_infra_retries if max_infra_retries is None else max_infra_retries
    tools_mode = check_tools_mode(tools or policy.tools)
    sb = resolve_sandbox(sandbox, network=network, binds=parse_binds(sandbox_binds),
                         endpoints=allow_endpoints, home=agent_home)
    adapter = parse_agent_spec(agent_spec, env=agent_env)
    config = agent_config(agent_spec, agent_env, case_timeout_s=explicit_timeout,
                          turn_timeout_s=turn_timeout, expose_case_ids=expose_case_ids,
                          tools=tools_mode)
    given_root = _local_root(audit_root) if audit_root is not None else None
    # a Ray cluster that cannot be reached (or Ray not installed) never leaves a run behind
    owned = connect_executor(executor_spec)
    # Every case file is read before the run is recorded: a registry that cannot be read
    # never leaves a run behind (a malformed case is only that case's error, below).
    entries = {e.entry.id: e for e in iter_suite_cases(root, suite_id)}

    reused: tuple[str, ...] = ()
    if resume:
        if not run_id:
            raise InputError("resume needs the run id to resume", field="--resume")
        plan = plan_resume(store, run_id, suite_id=suite_id, suite_version=suite.version,
                           config=config, audit_root=given_root)
        if case_ids and set(case_ids) != set(plan.done + plan.todo):
            raise InputError("--case cannot change the cases of a resumed run (it keeps the "
                             "cases it started with)", field="--case")
        audits = plan.audit_root
        todo, reused = list(plan.todo), plan.done
        reset_cases(store, run_id, todo, audits / run_id)
        ref_key = read_case_ref_key(audits / run_id)
    else:
        todo = _select(suite, case_ids)
        run_id = run_id or new_run_id(suite_id)
        audits = given_root or data_dir() / "eval_audits"
        ref_key = new_case_ref_key()
        create_run(store, run_id, suite_id=suite_id, suite_version=suite.version,
                   agent_spec=agent_spec, config=config, audit_root=audits, case_ids=todo,
                   judge_version=JUDGE_VERSION, case_ref_key=ref_key,
                   agent_name=check_agent_name(agent_name) if agent_name is not None
                   else default_agent_name(agent_spec), sandbox=sb.describe())
    record_cases(store, run_id, {cid: entries[cid].case for cid in todo
                                 if cid in entries and entries[cid].case is not None})
    run_dir = child_path(audits, run_id, what="--audit-root")
    base = {"run_id": run_id, "suite_id": suite_id, "suite_version": suite.version,
            "agent_spec": agent_spec, "agent_hash": agent_hash(config), "audit_dir": run_dir,
            "resumed": resume, "reused": reused}

    _share_store(store)
    own_ws = workspace_root is None
    ws_root = workspace_root_for(workspace_root, run_id, resume)
    events: queue.Queue[Any] = queue.Queue()
    job = CaseJob(run_id=run_id, agent_spec=agent_spec, agent_env=dict(agent_env or {}),
                  audit_root=str(audits if executor_spec == "local" else audits.resolve()),
                  timeout_s=timeout,
                  turn_timeout_s=turn_timeout, max_infra_retries=retries,
                  expose_case_ids=expose_case_ids, case_ref_key=ref_key, tools=tools_mode,
                  sandbox=sandbox, network=network, sandbox_binds=sb.binds,
                  allow_endpoints=sb.endpoints, agent_home=sb.home,
                  explicit_timeout=explicit_timeout is not None)
    guard = _Interrupts()
    pool: Executor | None = None

    done_outcomes = [outcome_of(st, v) for st, v in store.con.execute(
        q("outcomes"), {"run_id": run_id, "case_ids": list(reused)}).fetchall()]
    bar = RunProgress(len(todo) + len(reused), title=suite_id, enabled=progress,
                      done=done_outcomes)
    cases: dict[str, Any] = {}
    with guard.installed():
        try:
            pool = make_executor(executor_spec, job, events, jobs=jobs, ws_root=ws_root,
                                 workspace_root=workspace_root, adapter=adapter, sandbox=sb,
                                 owned=owned, min_jobs=policy.jobs,
                                 case_context=case_context)
            with bar:
                early: list[Done] = []
                submitted = 0
                for cid in todo:
                    entry = entries.get(cid)
                    if entry is None:
                        early.append(Done(cid, error=f"case no longer in suite {suite_id!r}"))
                    elif entry.case is None:
                        early.append(Done(cid, error=problems_text(entry.problems)))
                    else:
                        cases[cid] = entry.case
                        pool.submit(cid, to_run_case(entry.case),
                                    case_resources(policy, entry.case))
                        submitted += 1
                if early:
                    with guard.critical():
                        for _cid, outcome in persist_cases(store, run_id, cases, early,
                                                           semantic):
                            bar.record(outcome)
                store.release()
                _drain(store, run_id, cases, events, submitted, bar, guard, semantic)
                store.con.execute(q("finish_run"), {"run_id": run_id, "status": "completed"})
        except KeyboardInterrupt:
            guard.stopping = True
            if pool is not None:
                pool.stop()
            store.con.execute(q("finish_run"), {"run_id": run_id, "status": "interrupted"})
            _record_context(case_context, store, run_id)
            summary = _summary(store, run_id, suite, {**base, "status": "interrupted"})
            if reports:
                try:
                    summary.reports = _write_reports(store, run_id, run_dir, root)
                except Exception:  # noqa: BLE001 - an interrupted run's reports are best effort
                    summary.reports = None
            raise RunInterrupted(summary) from None
        except Exception as exc:  # noqa: BLE001 - no failure may strand a recorded run
            guard.stopping = True
            if pool is not None:
                pool.stop()
            raise RunFailed(run_id, exc, _fail_run(store, run_id, suite, base, run_dir, root,
                                                   reports)) from exc
        finally:
            if pool is not None:
                pool.close()
            if own_ws:
                remove_tree(ws_root)
    _record_context(case_context, store, run_id)
    summary = _summary(store, run_id, suite, {**base, "status": "completed"})
    if reports:
        summary.reports = _write_reports(store, run_id, run_dir, root)
    return summary


def _record_context(case_context: Any, store: Store, run_id: str) -> None:
    """A ``case_context`` with ``record(store, run_id)`` stores what it measured (the lab's
    mitigation rows) before the reports are written, on the main thread."""
    record = getattr(case_context, "record", None)
    if callable(record):
        record(store, run_id)


RUNNER_LOCK_TIMEOUT_S = 3600.0
"""How long the runner waits for a reader that keeps the store locked before it fails."""


def _share_store(store: Store) -> None:
    """Let other processes read the store during the run: the runner releases its connection
    after every commit and, when a reader holds the file, waits for it (saying so once)."""
    if getattr(store, "release", None) is None:
        return
    if store.lock_timeout is None:
        store.lock_timeout = RUNNER_LOCK_TIMEOUT_S
    if store.on_wait is None:
        def say(message: str) -> None:
            print(f"rcaeval run: waiting for the store lock ({message.split(': ', 1)[-1]})",
                  file=sys.stderr, flush=True)
        store.on_wait = say


def _fail_run(store: Store, run_id: str, suite: Any, base: dict[str, Any], run_dir: Path,
              registry: Path, reports: bool) -> RunSummary | None:
    """Best effort after an unexpected error: mark the run ``failed`` (its unfinished cases
    stay pending/running for ``--resume``), summarise it and write its reports."""
    try:  # no transaction is open: store.transaction rolled back the failed one, if any
        store.con.execute(q("finish_run"), {"run_id": run_id, "status": "failed"})
        summary = _summary(store, run_id, suite, {**base, "status": "failed"})
    except Exception:  # noqa: BLE001 - the store itself is broken: nothing more to record
        return None
    if reports:
        with contextlib.suppress(Exception):
            summary.reports = _write_reports(store, run_id, run_dir, registry)
    return summary


def _write_reports(store: Store, run_id: str, run_dir: Path, registry: Path) -> tuple[Path, Path]:
    from rcaeval.report import write_reports

    return write_reports(store, run_id, run_dir, registry_root=registry)
