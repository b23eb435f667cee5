"""The exit status of a finished run (docs/cli.md, docs/running.md).

Verdicts are results, so by themselves they never fail a run. What does:

- **infrastructure** (exit 7, :attr:`ExitCode.INFRA_ERROR`): a case ``errored`` (the agent
  could not start, the ACP handshake failed after the retries, a malformed case, a judge
  error) or ``timed_out`` (the case deadline killed the agent). Its result is missing or
  partial, so the run does not measure what it was meant to;
- **thresholds** the caller asked for (exit 4, :attr:`ExitCode.GATE_FAILED`): the suite pass
  rate (metric ``attempt_pass_rate``) below ``fail_under``, or a case whose verdict is one of
  ``fail_on``.

Quarantined cases run and are reported but never fail a run. Infrastructure wins over
thresholds when both apply (every reason is listed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rcaeval._vocab import INFRA_OUTCOMES
from rcaeval.errors import ExitCode, InputError

if TYPE_CHECKING:
    from rcaeval.store import Store

FAIL_ON_CHOICES: tuple[str, ...] = ("fail", "invalid")
"""Verdicts ``--fail-on`` acts on (it also accepts the INFRA_OUTCOMES, which exit 7 anyway)."""


@dataclass(frozen=True)
class RunGate:
    """Why a run fails (``reasons`` empty: exit 0) and with which ``exit_code``."""

    exit_code: ExitCode
    reasons: tuple[str, ...]
    pass_rate: float | None
    passes: int
    attempts: int

    @property
    def failed(self) -> bool:
        return self.exit_code != ExitCode.OK


def parse_fail_on(values: Iterable[str]) -> tuple[str, ...]:
    """``["invalid,fail"]`` -> ``("invalid", "fail")``; unknown names are an InputError.

    ``errored`` / ``timed_out`` are accepted and dropped: those cases fail every run (exit 7)
    whether or not they are listed."""
    out: list[str] = []
    for value in values:
        for item in (v.strip() for v in value.split(",")):
            if not item:
                continue
            if item in INFRA_OUTCOMES:
                continue  # accepted (`--fail-on invalid,errored`): they always exit 7 anyway
            if item not in FAIL_ON_CHOICES:
                raise InputError(f"unknown verdict {item!r}; --fail-on takes "
                                 f"{', '.join(FAIL_ON_CHOICES + INFRA_OUTCOMES)}",
                                 field="--fail-on")
            if item not in out:
                out.append(item)
    return tuple(out)


def check_fail_under(value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise InputError(f"--fail-under is a pass rate between 0 and 1, got {value}",
                         field="--fail-under")
    return value


def _some(items: Sequence[str], limit: int = 5) -> str:
    head = ", ".join(items[:limit])
    return head if len(items) <= limit else f"{head} and {len(items) - limit} more"


def gate_run(store: Store, summaries: Sequence[Any], *, fail_under: float | None = None,
             fail_on: Sequence[str] = ()) -> RunGate:
    """The exit status of the finished run(s) ``summaries`` (one per repeat)."""
    from rcaeval.metrics import compute_metrics

    check_fail_under(fail_under)
    fail_on = parse_fail_on(fail_on)
    many = len(summaries) > 1
    excluded = sorted({c.case_id for s in summaries for c in s.cases if c.quarantined})
    infra: dict[str, list[str]] = {o: [] for o in INFRA_OUTCOMES}
    verdicts: dict[str, list[str]] = {v: [] for v in fail_on}
    for i, s in enumerate(summaries, 1):
        for c in s.cases:
            if c.quarantined:
                continue
            label = f"{c.case_id}#{i}" if many else c.case_id
            if c.outcome in infra:
                infra[c.outcome].append(label)
            if c.verdict in verdicts:
                verdicts[c.verdict].append(label)
    rate = compute_metrics(store.con, ["attempt_pass_rate"],
                           {"run_ids": [s.run_id for s in summaries], "excluded": excluded})
    row = rate.row(0, named=True)
    passes, attempts, value = int(row["numerator"] or 0), int(row["denominator"] or 0), \
        row["value"]
    reasons: list[str] = []
    code = ExitCode.OK
    for outcome, cases in infra.items():
        if cases:
            word = "errored" if outcome == "errored" else "timed out"
            reasons.append(f"{len(cases)} case(s) {word} (infrastructure): {_some(cases)}")
            code = ExitCode.INFRA_ERROR
    threshold: list[str] = []
    if fail_under is not None and (value is None or value < fail_under):
        shown = "none" if value is None else f"{value:.3f}"
        threshold.append(f"pass rate {shown} ({passes}/{attempts}) is below --fail-under "
                         f"{fail_under:g}")
    for verdict, cases in verdicts.items():
        if cases:
            threshold.append(f"{len(cases)} case(s) judged {verdict} (--fail-on): "
                             f"{_some(cases)}")
    if threshold and code == ExitCode.OK:
        code = ExitCode.GATE_FAILED
    return RunGate(exit_code=code, reasons=tuple(reasons + threshold), pass_rate=value,
                   passes=passes, attempts=attempts)
