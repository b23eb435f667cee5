"""Repeats: run every case of a suite K times (docs/running.md#repeats).

Agents built on LLMs are not deterministic, so one run per case says little. A repeat group
is K ordinary runs of the same suite and agent configuration, ``<group>-r1`` … ``<group>-rK``,
run one after the other through :func:`rcaeval.runner.run_suite`: every attempt gets a fresh
workspace, is judged and stored like any run (so reports, ``explain`` and baselines work on
each), and the group is resumable. ``eval_repeat_runs`` records the group (migration 0006).
The statistics (per case pass rate, pass@k, pass^k, flaky; the suite pass rate with a Wilson
interval) are :func:`rcaeval.report.run_results` over the K summaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rcaeval.errors import InputError, NotFoundError
from rcaeval.runner._executor import check_executor, connect_executor, disconnect_executor
from rcaeval.runner._loop import RunInterrupted, RunSummary, run_suite
from rcaeval.runner._resume import new_run_id, q

if TYPE_CHECKING:
    from rcaeval.store import Store

MAX_REPEAT = 1000


def member_run_id(group_id: str, index: int) -> str:
    """The run id of repeat ``index`` (1-based) of group ``group_id``."""
    return f"{group_id}-r{index}"


@dataclass
class RepeatRun:
    """What :func:`run_repeats` did: one :class:`RunSummary` per repeat, in order."""

    group_id: str
    repeat: int
    summaries: list[RunSummary] = field(default_factory=list)

    @property
    def run_ids(self) -> list[str]:
        return [s.run_id for s in self.summaries]

    def results(self, store: Store, gate: Any = None) -> dict[str, Any]:
        """The results document (docs/results.md) with the repeat statistics."""
        from rcaeval.report import run_results

        return run_results(store, self.summaries, group_id=self.group_id, gate=gate)


class RepeatInterrupted(KeyboardInterrupt):
    """Ctrl-C / SIGTERM stopped a repeat group; ``result`` holds the runs so far (the last
    one interrupted). Resume with ``run_repeats(..., run_id=group_id, resume=True)``."""

    def __init__(self, result: RepeatRun) -> None:
        super().__init__(f"repeat group {result.group_id} interrupted")
        self.result = result


def repeat_group(store: Store, group_id: str) -> list[tuple[int, str, int, str | None]]:
    """``(repeat_index, run_id, repeats, run status or None)`` of a group, in order."""
    return store.con.execute(q("repeat_group"), {"group_id": group_id}).fetchall()


def run_repeats(
    store: Store,
    suite_id: str,
    agent_spec: str,
    *,
    repeat: int | None,
    run_id: str | None = None,
    resume: bool = False,
    **options: Any,
) -> RepeatRun:
    """Run suite ``suite_id`` ``repeat`` times (each an ordinary :func:`run_suite` run with
    ``options``) as repeat group ``run_id`` (default: a new run id). ``resume=True`` finishes
    group ``run_id`` (``repeat=None``: as many repeats as recorded): completed runs are
    kept, an interrupted one is resumed, missing ones start. Raises
    :class:`RepeatInterrupted` on Ctrl-C / SIGTERM."""
    if "case_ids" in options and resume and options["case_ids"]:
        raise InputError("--case cannot change the cases of a resumed run", field="--case")
    # one Ray connection for all K runs (a ray:local instance is started once, not K times)
    owned = connect_executor(check_executor(options.get("executor")))
    try:
        if resume:
            if not run_id:
                raise InputError("resume needs the repeat group to resume", field="--resume")
            plan = repeat_group(store, run_id)
            if not plan:
                raise NotFoundError(f"{run_id!r} is not a repeat group in the store (resume a "
                                    "single run without --repeat)")
            k = plan[0][2]
            if repeat is not None and repeat != k:
                raise InputError(f"repeat group {run_id!r} has {k} repeats, not {repeat}",
                                 field="--repeat")
            group = run_id
        else:
            if repeat is None or not 1 <= repeat <= MAX_REPEAT:
                raise InputError(f"--repeat must be between 1 and {MAX_REPEAT}, got {repeat}",
                                 field="--repeat")
            k = repeat
            group = run_id or new_run_id(suite_id)
            if repeat_group(store, group) or store.con.execute(
                    q("run_record"), {"run_id": group}).fetchone() is not None:
                raise InputError(f"run {group!r} already exists in the store; resume it with "
                                 f"--resume {group} or choose another --run-id", field="--run-id")
            plan = [(i, member_run_id(group, i), k, None) for i in range(1, k + 1)]
            with store.transaction():
                for i, rid, _k, _st in plan:
                    store.con.execute(q("insert_repeat_run"), {
                        "group_id": group, "run_id": rid, "repeat_index": i, "repeats": k})
        result = RepeatRun(group_id=group, repeat=k)
        for _i, rid, _k, status in plan:
            try:
                summary = run_suite(store, suite_id, agent_spec, run_id=rid,
                                    resume=status is not None, **options)
            except RunInterrupted as exc:
                result.summaries.append(exc.summary)
                raise RepeatInterrupted(result) from None
            result.summaries.append(summary)
        return result
    finally:
        if owned:
            disconnect_executor()


