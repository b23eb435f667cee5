"""`rcaeval demo`: the README's main job on the bundled sample (docs/running.md).

Runs the `smoke` suite twice through the real run loop — the recorded thorough agent
(`replay:thorough`) and the example ACP agent as a subprocess — judges the recorded
behaviours of `data/recorded/`, writes every run's reports and prints the result: per run,
what its agent does, what it got, what it is expected to get and whether it did
(:mod:`rcaeval.cli._demo_result`).
The demo's run ids are fixed (`demo-thorough`, `demo-example-acp`, `rec-<behaviour>`), so
re-running it replaces the previous demo's rows and audit dirs instead of piling up runs.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from rcaeval.cli._opts import DbOpt, RegistryOpt

SUITE = "smoke"


def demo_agents() -> list[tuple[str, str, str]]:
    """(run id, agent spec, label) of the demo's runner runs; the example ACP agent only
    where the ``acp`` extra is installed."""
    from rcaeval.runner import acp_available

    agents = [("demo-thorough", "replay:thorough", "replay:thorough (runner)")]
    if acp_available():
        acp = f"acp:{shlex.quote(sys.executable)} -m rcaeval.examples.example_agent"
        agents.append(("demo-example-acp", acp, "example ACP agent (runner)"))
    return agents


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        db: DbOpt = None,
        out: Annotated[Path | None, typer.Option(
            "--out", help="Audit dirs and reports (default: <data>/eval_audits).",
            show_default=False)] = None,
        registry: RegistryOpt = None,
        progress: Annotated[bool, typer.Option(
            "--progress/--no-progress", help="Live progress bars (only on a terminal).")
        ] = True,
    ) -> None:
        """Run the smoke suite with two agents, judge the recorded behaviours, report."""
        from rcaeval._paths import data_dir, registry_dir
        from rcaeval.cli._cmd_run import wide_console
        from rcaeval.cli._demo_result import demo_rows, demo_table, verdict_line
        from rcaeval.judge import judge_audit
        from rcaeval.report import write_reports
        from rcaeval.runner import drop_run, run_suite
        from rcaeval.store import connect

        console = wide_console()
        audits = out or data_dir() / "eval_audits"
        reg = registry or registry_dir()
        recorded = data_dir() / "recorded"
        t0 = time.monotonic()
        labels: dict[str, str] = {}
        reports: dict[str, Path] = {}
        with connect(db) as store:
            agents = demo_agents()
            if len(agents) == 1:
                from rcaeval.runner import ACP_EXTRA_HINT

                console.print("skipping the example ACP agent: the acp extra is not installed "
                              f"({ACP_EXTRA_HINT})", highlight=False, markup=False)
            for run_id, spec, label in agents:
                drop_run(store, run_id, audits)
                console.print(f"running suite {SUITE} with {label}: {spec}", highlight=False)
                summary = run_suite(store, SUITE, spec, registry_root=reg, audit_root=audits,
                                    run_id=run_id, progress=progress)
                labels[run_id] = label
                if summary.reports:
                    reports[run_id] = summary.reports[0]
            console.print(f"judging the recorded behaviours in {recorded}", highlight=False)
            frame = judge_audit(store, recorded, reg, out_dir=audits, progress=False)
            for run_id in sorted(frame["run_id"].unique().to_list()):
                labels[run_id] = run_id.removeprefix("rec-") + " (recorded)"
                reports[run_id] = write_reports(store, run_id, audits / run_id,
                                                registry_root=reg)[0]
            console.print()
            rows = demo_rows(store, labels, recorded, {"demo-thorough": "rec-thorough"})
            console.print(demo_table(rows))
            console.print(verdict_line(rows), highlight=False)
            db_path = store.label
        console.print(f"\nstore:   {db_path}", highlight=False, soft_wrap=True)
        console.print(f"reports: {audits}/<run_id>/report.txt, report_detail.txt "
                      f"(e.g. {reports.get('demo-thorough', audits)})",
                      highlight=False, soft_wrap=True)
        console.print(f"done in {time.monotonic() - t0:.1f}s\n", highlight=False)
        db_opt = f" --db {shlex.quote(db_path)}"
        console.print("explore:", highlight=False)
        for line in (
            f"rcaeval explain rec-misdiagnosis tikv-panic-restart-001{db_opt}",
            "rcaeval db sql \"SELECT run_id, verdict, count(*) AS n FROM eval_judgment "
            f"GROUP BY ALL ORDER BY ALL\"{db_opt}",
            "python -c \"import rcaeval.store as st; s = st.connect("
            f"{db_path!r}, read_only=True); print(s.judgments(run_id={agents[-1][0]!r}))\"",
        ):
            console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
