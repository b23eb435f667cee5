"""The run loop's live progress bar: cases done out of total, and the outcome counts so far.

Outcomes: a judged case counts by verdict (``pass`` / ``fail`` / ``invalid``); a timed-out
case counts as ``timed_out`` and an errored one as ``errored`` whatever else is known. The bar
is drawn on stderr and only on a terminal; otherwise (CI logs, pipes, ``progress=False``) the
object is a silent counter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from rcaeval._vocab import CASE_OUTCOMES as OUTCOMES
from rcaeval._vocab import UNFINISHED_BY_STATUS

_STYLE = {"pass": "green", "fail": "red", "invalid": "magenta", "errored": "yellow",
          "timed_out": "yellow"}
_SHORT = {"pass": "pass", "fail": "fail", "invalid": "inv", "errored": "err", "timed_out": "t/o"}


def outcome_of(status: str, verdict: str | None) -> str:
    """The progress/summary outcome of one case run: its verdict, ``errored``/``timed_out``,
    or for a case a stopped run did not finish ``interrupted`` (it was running) or
    ``pending`` (it never started); a judged case without a verdict is ``errored``."""
    if status in ("errored", "timed_out"):
        return status
    if verdict:
        return verdict
    return UNFINISHED_BY_STATUS.get(status, "errored")


IN_FLIGHT_SHOWN = 3
"""Cases in flight named on the bar (then ``+N``)."""


class RunProgress:
    """``with RunProgress(total, title=...) as p: p.started("c1"); p.record("pass", "c1")``.
    The bar shows the counts abbreviated: pass, fail, inv(alid), err(ored), t/o (timed out),
    the elapsed time, the estimated time left (ETA, from the pace so far) and the cases in
    flight."""

    def __init__(self, total: int, *, title: str, enabled: bool = True,
                 done: Iterable[str] = (), console: Console | None = None) -> None:
        self.total = total
        self.counts: Counter[str] = Counter(done)
        self.console = console or Console(stderr=True)
        self.enabled = enabled and self.console.is_terminal
        self._progress: Progress | None = None
        self._task: int | None = None
        self._title = title
        self.in_flight: list[str] = []

    def text(self) -> str:
        return " ".join(f"[{_STYLE[o]}]{_SHORT[o]} {self.counts.get(o, 0)}[/]" for o in OUTCOMES)

    def flight_text(self) -> str:
        """``running 2: case-a, case-b`` (at most IN_FLIGHT_SHOWN named, then ``+N``)."""
        if not self.in_flight:
            return ""
        shown = ", ".join(self.in_flight[:IN_FLIGHT_SHOWN])
        more = len(self.in_flight) - IN_FLIGHT_SHOWN
        return f"running {len(self.in_flight)}: {shown}" + (f" +{more}" if more > 0 else "")

    @property
    def completed(self) -> int:
        return sum(self.counts.values())

    def started(self, case_id: str) -> None:
        """A worker picked ``case_id`` up."""
        if case_id not in self.in_flight:
            self.in_flight.append(case_id)
        self._update()

    def _update(self) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self.completed, counts=self.text(),
                                  flight=self.flight_text())

    def __enter__(self) -> RunProgress:
        if self.enabled:
            self._progress = Progress(
                SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(bar_width=16),
                MofNCompleteColumn(), TextColumn("{task.fields[counts]}"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[flight]}"),
                console=self.console, transient=False)
            self._progress.start()
            self._task = self._progress.add_task(self._title, total=self.total,
                                                 completed=self.completed, counts=self.text(),
                                                 flight=self.flight_text())
        return self

    def record(self, outcome: str, case_id: str | None = None) -> None:
        """A case finished with ``outcome`` (and is no longer in flight)."""
        self.counts[outcome] += 1
        if case_id in self.in_flight:
            self.in_flight.remove(case_id)
        self._update()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
