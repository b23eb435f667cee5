"""Run records for the run loop: run ids, the agent hash, creating a run, committing each
finished case (judge, then its final ``eval_case_runs`` row), and resuming a run.

A run's rows live in ``eval_runs`` / ``eval_case_runs``; ``<audit_root>/<run_id>/run.json``
keeps the canonical agent configuration whose hash is ``eval_runs.agent_hash`` (so a refused
resume can say what differs). Every statement is a file under ``queries/runner/``.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from rcaeval._paths import read_query, read_statement
from rcaeval.errors import InputError, NotFoundError
from rcaeval.registry import DEFAULT_TOOLS_MODE
from rcaeval.runner._execute import CaseExecution
from rcaeval.runner._progress import outcome_of

if TYPE_CHECKING:
    from rcaeval.store import Store

RUN_CONFIG_FILE = "run.json"
FINAL_STATUSES = ("judged", "errored", "timed_out")


def q(name: str) -> str:
    """Text of ``queries/runner/<name>.sql``."""
    return read_query(f"runner/{name}.sql")


def new_run_id(suite_id: str, now: datetime | None = None) -> str:
    """``<suite>-<UTC yyyymmddThhmmss>-<6 hex>``."""
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%S")
    return f"{suite_id}-{stamp}-{secrets.token_hex(3)}"


def agent_config(
    agent_spec: str,
    agent_env: Mapping[str, str | None] | None,
    *,
    case_timeout_s: float | None,
    turn_timeout_s: float,
    expose_case_ids: bool = False,
    tools: str | None = None,
) -> dict[str, Any]:
    """The canonical agent configuration: what decides how an agent behaves on a case.

    Explicit environment values are stored as a sha256 prefix (they may be API keys);
    inherited ones (``--agent-env KEY``) by name only, so rotating a key does not change
    the hash. ``case_timeout_s`` is the explicit override (``None``: each case's own, else
    the suite's). ``expose_case_ids`` (the agent sees real case ids, not opaque references)
    is recorded only when set, and ``tools`` only when not the default (``both``), so the hash
    of a default configuration is unchanged. ``jobs``
    and retries are not part of it: they do not change a case's result.
    """
    env: dict[str, str] = {}
    for key in sorted(agent_env or {}):
        value = (agent_env or {})[key]
        env[key] = "<inherited>" if value is None else \
            "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:16]
    config: dict[str, Any] = {
        "spec": agent_spec, "env": env,
        "case_timeout_s": None if case_timeout_s is None else float(case_timeout_s),
        "turn_timeout_s": float(turn_timeout_s)}
    if expose_case_ids:
        config["expose_case_ids"] = True
    if tools is not None and tools != DEFAULT_TOOLS_MODE:
        config["tools"] = tools
    return config


def agent_hash(config: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON (sorted keys) of :func:`agent_config`."""
    return hashlib.sha256(orjson.dumps(config, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _describe_diff(old: Mapping[str, Any] | None, new: Mapping[str, Any],
                   old_spec: str | None) -> str:
    if old is None:
        if old_spec != new["spec"]:
            return f"agent spec {old_spec!r} -> {new['spec']!r}"
        return "agent environment or timeouts (no run.json to say which)"
    parts = []
    for key in sorted(set(old) | set(new)):
        if key == "env":
            o, n = old.get("env") or {}, new.get("env") or {}
            for name in sorted(set(o) | set(n)):
                if o.get(name) != n.get(name):
                    state = ("added" if name not in o else "removed" if name not in n
                             else "value changed")
                    parts.append(f"--agent-env {name} {state}")
        elif key == "expose_case_ids":
            if bool(old.get(key)) != bool(new.get(key)):
                parts.append("--expose-case-ids " + ("added" if new.get(key) else "removed"))
        elif old.get(key) != new.get(key):
            parts.append(f"{key} {old.get(key)!r} -> {new.get(key)!r}")
    return "; ".join(parts) or "agent configuration"


@dataclass(frozen=True)
class ResumePlan:
    """What a resume does: ``done`` cases are kept, ``todo`` cases run again."""

    run_id: str
    audit_root: Path
    done: tuple[str, ...]
    todo: tuple[str, ...]


def create_run(
    store: Store,
    run_id: str,
    *,
    suite_id: str,
    suite_version: str,
    agent_spec: str,
    config: Mapping[str, Any],
    audit_root: Path,
    case_ids: Sequence[str],
    judge_version: str,
    case_ref_key: str | None = None,
    agent_name: str | None = None,
    sandbox: str | None = None,
) -> None:
    """Insert the ``eval_runs`` row (status running) and one pending ``eval_case_runs`` row
    per case, in one transaction, and write ``run.json`` (with ``case_ref_key``, the run's
    secret for opaque case references). ``sandbox`` is the effective agent sandbox
    (``Sandbox.describe()``)."""
    if store.con.execute(q("run_record"), {"run_id": run_id}).fetchone() is not None:
        raise InputError(f"run {run_id!r} already exists in the store; resume it with "
                         f"--resume {run_id} or choose another --run-id", field="--run-id")
    run_dir = audit_root / run_id
    if run_dir.exists() and any(run_dir.iterdir()):
        raise InputError(f"audit dir {run_dir} already exists and is not empty; choose another "
                         "--run-id or --audit-root", field="--run-id")
    digest = agent_hash(config)
    with store.transaction():
        store.con.execute(read_query("store/insert_run.sql"), {
            "run_id": run_id, "source": "runner", "suite_id": suite_id,
            "suite_version": suite_version, "agent_spec": agent_spec, "agent_hash": digest,
            "audit_root": str(audit_root), "judge_version": judge_version, "notes": None,
            "agent_name": agent_name, "sandbox": sandbox})
        for cid in case_ids:
            store.con.execute(q("insert_case_run"), {"run_id": run_id, "case_id": cid})
    write_run_config(run_dir, run_id=run_id, suite_id=suite_id, suite_version=suite_version,
                     config=config, case_ids=case_ids, case_ref_key=case_ref_key)


def new_case_ref_key() -> str:
    """A run's secret for :func:`~rcaeval.runner.opaque_case_ref` (kept in ``run.json``,
    runner-side): without it an agent that knows the run id could confirm a guessed case id."""
    return secrets.token_hex(16)


def write_run_config(run_dir: Path, *, run_id: str, suite_id: str, suite_version: str,
                     config: Mapping[str, Any], case_ids: Sequence[str],
                     case_ref_key: str | None = None) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    doc: dict[str, Any] = {
        "run_id": run_id, "suite_id": suite_id, "suite_version": suite_version,
        "agent_hash": agent_hash(config), "agent_config": dict(config),
        "case_ids": list(case_ids)}
    if case_ref_key:
        doc["case_ref_key"] = case_ref_key
    (run_dir / RUN_CONFIG_FILE).write_bytes(
        orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
                     | orjson.OPT_APPEND_NEWLINE))


def _read_run_doc(run_dir: Path) -> dict[str, Any] | None:
    try:
        doc = orjson.loads((run_dir / RUN_CONFIG_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) else None


def _read_run_config(run_dir: Path) -> dict[str, Any] | None:
    doc = _read_run_doc(run_dir)
    cfg = doc.get("agent_config") if doc is not None else None
    return cfg if isinstance(cfg, dict) else None


def read_case_ref_key(run_dir: Path) -> str | None:
    """The run's case-reference secret from ``run.json`` (``None`` when it has none, e.g. a
    run made before opaque case references: its references are then unkeyed)."""
    doc = _read_run_doc(run_dir)
    key = doc.get("case_ref_key") if doc is not None else None
    return key if isinstance(key, str) and key else None


def plan_resume(
    store: Store,
    run_id: str,
    *,
    suite_id: str,
    suite_version: str,
    config: Mapping[str, Any],
    audit_root: Path | None,
) -> ResumePlan:
    """Check that ``run_id`` can be resumed with this suite and agent configuration and say
    which cases are finished. Raises :class:`NotFoundError` for an unknown run and
    :class:`InputError` naming what differs."""
    row = store.con.execute(q("run_record"), {"run_id": run_id}).fetchone()
    if row is None:
        raise NotFoundError(f"run {run_id!r} is not in the store: nothing to resume")
    rec = dict(zip(("run_id", "suite_id", "suite_version", "agent_spec", "agent_hash",
                    "source", "audit_root", "status"), row, strict=True))
    if rec["source"] != "runner":
        raise InputError(f"run {run_id!r} was not made by the runner (source "
                         f"{rec['source']!r}): only runner runs can be resumed", field="--resume")
    if rec["suite_id"] != suite_id:
        raise InputError(f"run {run_id!r} is of suite {rec['suite_id']!r}, not {suite_id!r}",
                         field="--suite")
    if rec["suite_version"] != suite_version:
        raise InputError(f"suite {suite_id!r} is at version {suite_version!r} but run "
                         f"{run_id!r} started at {rec['suite_version']!r}; start a new run",
                         field="--resume")
    recorded_root = Path(rec["audit_root"]) if rec["audit_root"] else None
    if audit_root is not None and recorded_root is not None \
            and audit_root.resolve() != recorded_root.resolve():
        raise InputError(f"run {run_id!r} keeps its audits in {recorded_root}, not "
                         f"{audit_root}", field="--audit-root")
    root = recorded_root or audit_root
    if root is None:
        raise InputError(f"run {run_id!r} records no audit root; pass --audit-root")
    digest = agent_hash(config)
    if rec["agent_hash"] != digest:
        what = _describe_diff(_read_run_config(root / run_id), config, rec["agent_spec"])
        raise InputError(f"run {run_id!r} was made with a different agent configuration "
                         f"({what}); resume needs the same --agent, --agent-env, timeouts and "
                         "--expose-case-ids",
                         field="--agent")
    state = store.con.execute(q("resume_state"), {"run_id": run_id}).fetchall()
    done = tuple(cid for cid, _status, _has, finished in state if finished)
    todo = tuple(cid for cid, _status, _has, finished in state if not finished)
    return ResumePlan(run_id=run_id, audit_root=root, done=done, todo=todo)


def case_tables(store: Store, *, whole_run: bool = False) -> list[str]:
    rows = store.con.execute(q("case_tables"), {"all": whole_run}).fetchall()
    return [r[0] for r in rows]


def remove_case_audit(run_dir: Path, case_id: str) -> None:
    """Delete a case's (partial) audit dir and any half-mirrored sibling of it."""
    for path in (run_dir / case_id, *run_dir.glob(f".{case_id}.partial-*")):
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)


def reset_cases(store: Store, run_id: str, case_ids: Sequence[str], run_dir: Path) -> None:
    """Make ``case_ids`` pending again: drop every row derived from them (judgments, facts,
    raw rows, case_meta) and their audit dirs, in one transaction; reopen the run."""
    tables = case_tables(store)
    with store.transaction():
        for cid in case_ids:
            for table in tables:
                store.con.execute(read_statement("runner/delete_case_rows.sql", table=table),
                                  {"run_id": run_id, "case_id": cid})
            store.con.execute(q("reset_case"), {"run_id": run_id, "case_id": cid})
        store.con.execute(q("reopen_run"), {"run_id": run_id})
    for cid in case_ids:
        remove_case_audit(run_dir, cid)


def drop_run(store: Store, run_id: str, audit_root: Path | None = None) -> None:
    """Delete every row of ``run_id`` (all tables with a ``run_id`` column) and, when
    ``audit_root`` is given, its audit dir. Used by ``rcaeval demo`` to replace its runs."""
    tables = case_tables(store, whole_run=True)
    with store.transaction():
        for table in tables:
            store.con.execute(read_statement("runner/delete_run_rows.sql", table=table),
                              {"run_id": run_id})
    if audit_root is not None and (audit_root / run_id).is_dir():
        shutil.rmtree(audit_root / run_id)


# -- persisting finished cases ---------------------------------------------------------------


@dataclass
class Done:
    case_id: str
    execution: CaseExecution | None = None
    error: str | None = None


def problems_text(problems: Sequence[Any]) -> str:
    parts = [f"{p.where()} {p.code}: {p.message}" if hasattr(p, "where") else str(p)
             for p in problems]
    return "malformed case: " + "; ".join(parts)


def _notes(ex: CaseExecution) -> str | None:
    notes = []
    if ex.status == "crashed":
        notes.append(f"agent crashed: {ex.error or 'no detail'}")
    elif ex.error:
        notes.append(ex.error)
    notes += ex.notes
    skipped = ex.manifest.get("skipped") or []
    if skipped:
        listed = ", ".join(f"{s.get('path')} ({s.get('reason')})" for s in skipped[:5])
        more = f" +{len(skipped) - 5} more" if len(skipped) > 5 else ""
        notes.append(f"audit skipped {len(skipped)} file(s): {listed}{more}")
    return "; ".join(notes) or None


def case_rules(merged: Any) -> Any:
    """The judge's view of a loaded registry case (rcaeval.judge.CaseRules)."""
    from rcaeval.judge import CaseRules

    return CaseRules(merged.case_id, merged.case.model_dump(mode="json"),
                     merged.judge.model_dump(mode="json"), merged.rules_hash)


def record_cases(store: Store, run_id: str, merged: Mapping[str, Any]) -> None:
    """``case_meta`` for the cases a run is about to start (``{case_id: MergedCase}``): a case
    that errors, times out or is interrupted before it is judged keeps its case type in the
    summary, reports, results JSON and JUnit."""
    from rcaeval.judge import Judging

    rules = {cid: case_rules(m) for cid, m in merged.items()}
    Judging(store).record_case_meta([(run_id, cid) for cid in rules], rules)


def _judge(store: Store, run_id: str, items: list[tuple[Any, CaseExecution]],
           semantic: Any = None) -> dict[str, str]:
    """Register, extract and judge these finished cases (one judging pass); judgment.json
    lands in each audit dir. Returns ``{case_id: error}`` for cases that could not be judged
    (a failing batch is retried case by case). ``semantic``: a SemanticConfig for the
    semantic shadow (docs/semantic.md)."""
    from rcaeval.extract import CaseRef
    from rcaeval.judge import Judging

    try:
        rules = {m.case_id: case_rules(m) for m, _ in items}
        pairs = [(run_id, m.case_id) for m, _ in items]
        refs = [CaseRef(run_id, m.case_id, Path(ex.audit_dir or ""), registry_case=m.case_dir,
                        registry_incident=m.incident_dir) for m, ex in items]
        Judging(store, semantic=semantic).judge(pairs, rules, refs=refs, workers=1)
        return {}
    except Exception as exc:  # noqa: BLE001 - a judge failure must not stop the run
        if len(items) == 1:
            return {items[0][0].case_id: f"judge error: {exc}"}
        errors: dict[str, str] = {}
        for item in items:
            errors.update(_judge(store, run_id, [item], semantic))
        return errors


def _finish_params(run_id: str, case_id: str, status: str, ex: CaseExecution | None,
                   error: str | None) -> dict[str, Any]:
    usage = ex.usage if ex else {}
    return {
        "run_id": run_id, "case_id": case_id, "status": status,
        "attempts": ex.attempts if ex else 0,
        "workspace_id": ex.workspace_id if ex else None,
        "audit_path": str(ex.audit_dir) if ex and ex.audit_dir else None,
        "started_at": ex.started_at if ex else None,
        "finished_at": ex.finished_at if ex else None,
        "duration_s": ex.duration_s if ex else None,
        **{k: usage.get(k) for k in ("input_tokens", "output_tokens", "cache_read_tokens",
                                     "cache_write_tokens", "cost_usd")},
        "error": error,
    }


def persist_cases(store: Store, run_id: str, cases: Mapping[str, Any], done: list[Done],
                  semantic: Any = None) -> list[tuple[str, str]]:
    """Judge and commit finished cases; returns ``(case_id, outcome)`` per case."""
    judgeable = [(cases[d.case_id], d.execution) for d in done
                 if d.execution is not None and d.execution.status != "errored"
                 and d.execution.audit_dir is not None and d.execution.audit_dir.is_dir()]
    judge_errors = _judge(store, run_id, judgeable, semantic) if judgeable else {}
    params = []
    for d in done:
        ex = d.execution
        if ex is None:
            params.append(_finish_params(run_id, d.case_id, "errored", None, d.error))
            continue
        note = _notes(ex)
        if d.case_id in judge_errors:
            status, note = "errored", "; ".join(filter(None, [judge_errors[d.case_id], note]))
        elif ex.status == "errored" or ex.audit_dir is None or not ex.audit_dir.is_dir():
            status = "errored"
        else:
            status = "timed_out" if ex.status == "timed_out" else "judged"
        params.append(_finish_params(run_id, d.case_id, status, ex, note))
    try:
        with store.transaction():
            for p in params:
                store.con.execute(q("finish_case"), p)
    except Exception:  # noqa: BLE001 - one bad row must not fail the batch: case by case
        for i, p in enumerate(params):
            try:
                store.con.execute(q("finish_case"), p)
            except Exception as exc:  # noqa: BLE001 - recorded as the case's error
                params[i] = {**_finish_params(run_id, p["case_id"], "errored", None,
                                              f"runner error: cannot record the case: {exc}"),
                             "attempts": p["attempts"], "audit_path": p["audit_path"]}
                store.con.execute(q("finish_case"), params[i])
    verdicts = dict(store.con.execute(q("verdicts"), {"run_id": run_id}).fetchall()) \
        if judgeable else {}
    return [(p["case_id"], outcome_of(p["status"], verdicts.get(p["case_id"]))) for p in params]
