"""The result `rcaeval demo` prints: for every run, what its agent does, what it got and what
it is expected to get, and whether it did. Expectations come from the data, never from
counts written here: a recorded behaviour (and the runner's replay of one) is expected to get
each case's verdict in ``data/recorded/EXPECTED.csv``; the example ACP agent, a real
(deterministic, LLM-free) agent, is expected to run every case to a verdict with a valid
bundle: pass or fail, never invalid or errored."""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from rcaeval._vocab import VERDICTS

if TYPE_CHECKING:
    from rcaeval.store import Store

BEHAVIOUR_NOTES = {
    "thorough": "reads every channel, cites its evidence, names the cause",
    "shallow": "one channel only, a vague answer",
    "misdiagnosis": "full evidence, a confident wrong root cause",
    "fabricated_refs": "a thorough answer citing evidence ids it never collected",
    "wrong_scope": "answers for another cluster or time window",
    "crashed": "crashes before leaving a bundle",
    "thorough_zh": "the thorough answer, in Chinese (2 cases)",
}
"""What each recorded behaviour does (docs/synth.md "Recorded behaviours")."""
EXAMPLE_NOTE = "the example ACP agent: deterministic rules, no LLM"
EXAMPLE_EXPECTATION = "a verdict on every case, none invalid or errored"


@dataclass(frozen=True)
class DemoRow:
    run_id: str
    label: str
    does: str
    got: str
    expected: str
    ok: bool


def expected_verdicts(recorded: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """``run_id -> case_id -> (verdict, subtype hint)`` from ``recorded/EXPECTED.csv``."""
    path = recorded / "EXPECTED.csv"
    if not path.is_file():
        return {}
    out: dict[str, dict[str, tuple[str, str]]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["run_id"], {})[row["case_id"]] = (
                row["expected_verdict"], row.get("expected_subtype_hint") or "")
    return out


def _outcomes(store: Store, run_id: str) -> dict[str, str]:
    """``case_id -> verdict`` (or the case run's status when it has none) of a run."""
    from rcaeval.report import case_table

    cases = case_table(store, run_id)
    return {r["case_id"]: r["verdict"] or r.get("run_status") or "no verdict"
            for r in cases.iter_rows(named=True)}


def _counts(values: list[str]) -> str:
    c = Counter(values)
    order = [*VERDICTS, *sorted(set(c) - set(VERDICTS))]
    return ", ".join(f"{c[v]} {v}" for v in order if c[v]) or "no cases"


def demo_rows(store: Store, labels: dict[str, str], recorded: Path,
              replays: dict[str, str]) -> list[DemoRow]:
    """One row per demo run. ``replays`` maps a runner run id to the recorded run whose
    expectations it has (``demo-thorough`` -> ``rec-thorough``); a run with neither
    recorded expectations nor a replay is the example agent."""
    expected = expected_verdicts(recorded)
    rows = []
    for run_id, label in labels.items():
        got = _outcomes(store, run_id)
        source = replays.get(run_id, run_id)
        behaviour = source.removeprefix("rec-")
        if source in expected:
            want = expected[source]
            ok = got == {c: v for c, (v, _) in want.items()}
            hints = Counter(f"{v}: {h}" if h and v != "pass" else v for v, h in want.values())
            text = ", ".join(f"{n} {k}" for k, n in hints.items())
            if not ok:
                wrong = sorted(c for c in set(want) | set(got)
                               if got.get(c) != want.get(c, ("-",))[0])
                text += f"; differs on {', '.join(wrong[:3])}" + \
                    (f" and {len(wrong) - 3} more" if len(wrong) > 3 else "")
            rows.append(DemoRow(run_id, label, BEHAVIOUR_NOTES.get(behaviour, behaviour),
                                _counts(list(got.values())), text, ok))
        else:
            ok = bool(got) and all(v in ("pass", "fail") for v in got.values())
            rows.append(DemoRow(run_id, label, EXAMPLE_NOTE, _counts(list(got.values())),
                                EXAMPLE_EXPECTATION, ok))
    return rows


def demo_table(rows: list[DemoRow]) -> Table:
    """The rows as a borderless table (two lines per run: its id, then what its agent does)
    that wraps to the terminal's width."""
    from rich import box

    table = Table(title="result: what each run got, and what it is expected to get",
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("run / its agent", ratio=4)
    table.add_column("got", ratio=2)
    table.add_column("expected", ratio=4)
    for r in rows:
        table.add_row("[green]✓[/]" if r.ok else "[red]✗[/]",
                      f"{r.run_id}\n[dim]{r.does}[/]", r.got, r.expected)
    return table


def verdict_line(rows: list[DemoRow]) -> str:
    """The closing sentence: did every run get what it should?"""
    missed = [r.run_id for r in rows if not r.ok]
    if not missed:
        return (f"all {len(rows)} runs got what they are expected to: the judge passes the "
                "thorough runs and fails or invalidates each flawed behaviour for its flaw.")
    return f"{len(missed)} run(s) did NOT get what they are expected to: {', '.join(missed)}"
