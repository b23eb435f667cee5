"""`rcaeval run --suite SUITE --agent SPEC`: run a suite against an agent, judge each case as
it finishes, write the reports; `--resume RUN_ID` finishes an interrupted run
(docs/running.md). Exit 0 when the run completed (verdicts are results), 7 when a case errored
or timed out (infrastructure), 4 on `--fail-under` / `--fail-on` or a baseline regression with
`--baseline-diff`, 130 when interrupted."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from rcaeval._vocab import UNFINISHED_OUTCOMES
from rcaeval.cli._opts import (
    AgentEnvOpt,
    AgentHomeOpt,
    AllowEndpointOpt,
    DbOpt,
    NetworkOpt,
    RegistryOpt,
    SandboxBindOpt,
    SandboxOpt,
    parse_agent_env,
)
from rcaeval.cli._semantic_opts import (
    SemanticModelOpt,
    SemanticOpt,
    SemanticSamplesOpt,
    SemanticTimeoutOpt,
    SemanticUrlOpt,
    semantic_config,
)

if TYPE_CHECKING:
    from rcaeval.store import Store

_STYLE = {"pass": "green", "fail": "red", "invalid": "magenta", "errored": "yellow",
          "timed_out": "yellow", "interrupted": "cyan", "pending": "cyan"}


def summary_table(summary: Any) -> Table:
    """One row per case: status, verdict, subtype, score, attempts, duration, note."""
    table = Table(title=f"run {summary.run_id} ({summary.suite_id} {summary.suite_version}, "
                  f"{summary.status})", title_justify="left")
    for col, justify in (("case", "left"), ("type", "left"), ("status", "left"),
                         ("verdict", "left"), ("subtype", "left"), ("score", "right"),
                         ("tries", "right"), ("time", "right")):
        table.add_column(col, justify=justify, no_wrap=True)
    table.add_column("note", overflow="fold")
    reused = set(summary.reused)
    for c in summary.cases:
        style = _STYLE.get(c.outcome, "white")
        notes = [n for n in ("quarantined" if c.quarantined else "",
                             "kept from before resume" if c.case_id in reused else "",
                             c.error or "") if n]
        table.add_row(
            c.case_id, c.case_type or "-",
            c.outcome if c.outcome in UNFINISHED_OUTCOMES else c.status,
            f"[{style}]{c.verdict or '-'}[/]", c.subtype or "-",
            "-" if c.score is None else f"{c.score:.2f}",
            "-" if c.attempts is None else str(c.attempts),
            "-" if c.duration_s is None else f"{c.duration_s:.1f}s",
            _one_line("; ".join(notes)))
    return table


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def wide_console() -> Console:
    """The stdout console of the run's tables: the terminal's width, 140 columns in a log
    (:func:`rcaeval.cli._console.out_console`)."""
    from rcaeval.cli._console import out_console

    return out_console()


def counts_line(summary: Any) -> str:
    counts = summary.counts()
    return f"{len(summary.cases)} case(s): " + ", ".join(f"{k} {v}" for k, v in counts.items())


def known_top1_line(store: Store, run_id: str) -> str | None:
    """Known Top-1 of a judged run, printed beside its verdicts: the ``suite_known_top1``
    metric (queries/metrics/suite_known_top1.sql) with its Wilson interval; None when the run
    has no judged known case with a ground-truth family."""
    from rcaeval.metrics import compute_metrics

    m = compute_metrics(store.con, ["suite_known_top1"], {"run_id": run_id}).row(0, named=True)
    if not m["denominator"]:
        return None
    return (f"{run_id}: known Top-1 {int(m['numerator'])}/{m['denominator']} = "
            f"{m['value']:.3f} [95% CI {m['ci_low']:.3f}, {m['ci_high']:.3f}] "
            "(answer names the ground-truth family)")


def print_summary(console: Console, summary: Any, store: Store | None = None) -> None:
    console.print(summary_table(summary))
    console.print(counts_line(summary), highlight=False)
    top1 = known_top1_line(store, summary.run_id) if store is not None else None
    if top1:
        console.print(top1, highlight=False, soft_wrap=True)
    if summary.reports:
        for path in summary.reports:
            console.print(f"report: {path}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        suite: Annotated[str, typer.Option("--suite", help="Suite id (suites/<id>.yaml).")],
        agent: Annotated[str, typer.Option(
            "--agent", help="replay:<behaviour> | command:<cmdline> | acp:<cmdline> | "
            "opencode:[PROVIDER/MODEL] | claude-code:[MODEL] | gemini:[MODEL] (docs/agents.md).")],
        agent_name: Annotated[str | None, typer.Option(
            "--agent-name", help="Name the agent in reports and charts (default: derived "
            "from --agent, e.g. replay:thorough -> thorough, acp:python -m pkg.my_agent -> "
            "my_agent).", show_default=False)] = None,
        registry: RegistryOpt = None,
        db: DbOpt = None,
        audit_root: Annotated[Path | None, typer.Option(
            "--audit-root", help="Audit dirs go to AUDIT_ROOT/<run_id>/<case_id>/ (default: "
            "<data>/eval_audits; a resumed run keeps its own).", show_default=False)] = None,
        workspace_root: Annotated[Path | None, typer.Option(
            "--workspace-root", help="Where fresh workspaces are made (default: a temporary "
            "dir, removed afterwards).", show_default=False)] = None,
        jobs: Annotated[int | None, typer.Option(
            "--jobs", "-j", min=1, help="Cases in parallel (default: the suite's "
            "execution.jobs).", show_default=False)] = None,
        timeout: Annotated[float | None, typer.Option(
            "--timeout", min=0.001, metavar="S", help="Per-case wall clock in seconds for "
            "every case, overriding case.yaml's execution.timeout_s (default: each case's "
            "own, else the suite's case_timeout_s).", show_default=False)
        ] = None,
        turn_timeout: Annotated[float | None, typer.Option(
            "--turn-timeout", min=0.001, help="Per prompt turn in seconds (default: the "
            "suite's turn_timeout_s).", show_default=False)] = None,
        retries: Annotated[int | None, typer.Option(
            "--retries", min=0, help="Retries for infrastructure errors only (default: the "
            "suite's max_infra_retries).", show_default=False)] = None,
        run_id: Annotated[str | None, typer.Option(
            "--run-id", help="Run id (default: <suite>-<UTC yyyymmddThhmmss>-<6 hex>).",
            show_default=False)] = None,
        resume: Annotated[str | None, typer.Option(
            "--resume", help="Finish the interrupted run RUN_ID (same suite and agent "
            "configuration) without re-running finished cases.", show_default=False)] = None,
        cases: Annotated[list[str] | None, typer.Option(
            "--case", help="Run only this case (repeatable).", show_default=False)] = None,
        agent_env: AgentEnvOpt = None,
        baseline_diff: Annotated[bool, typer.Option(
            "--baseline-diff/--no-baseline-diff", help="Compare the run with the suite's "
            "baseline afterwards; exit 4 on a regression.")] = False,
        progress: Annotated[bool, typer.Option(
            "--progress/--no-progress", help="Live progress bar (only on a terminal).")] = True,
        expose_case_ids: Annotated[bool, typer.Option(
            "--expose-case-ids", help="Show agents the real case ids (RCAEVAL_CASE_ID, "
            "case.json) instead of opaque case references. Only for suites whose ids do not "
            "hint at the answer; part of the agent configuration (a resume must agree).")
        ] = False,
        semantic: SemanticOpt = None,
        semantic_model: SemanticModelOpt = None,
        semantic_base_url: SemanticUrlOpt = None,
        semantic_samples: SemanticSamplesOpt = None,
        semantic_timeout: SemanticTimeoutOpt = None,
        fail_under: Annotated[float | None, typer.Option(
            "--fail-under", metavar="RATE", help="Exit 4 when the pass rate (passes / case "
            "runs, quarantined cases left out) is below RATE (0-1).", show_default=False)
        ] = None,
        fail_on: Annotated[list[str] | None, typer.Option(
            "--fail-on", metavar="VERDICTS", help="Exit 4 when a case is judged one of these "
            "(comma-separated: fail, invalid; errored and timed_out are accepted and always "
            "exit 7).", show_default=False)] = None,
        junit_xml: Annotated[Path | None, typer.Option(
            "--junit-xml", metavar="PATH", help="Write JUnit XML: one testcase per case "
            "(and repeat).", show_default=False)] = None,
        results_json: Annotated[Path | None, typer.Option(
            "--results-json", metavar="PATH", help="Write the results as JSON "
            "(docs/results.md).", show_default=False)] = None,
        repeat: Annotated[int | None, typer.Option(
            "--repeat", min=1, metavar="K", help="Run every case K times (a fresh workspace "
            "each; pass rate, pass@k, pass^k, flaky cases). Default 1.",
            show_default=False)] = None,
        tag: Annotated[list[str] | None, typer.Option(
            "--tag", metavar="TAG", help="Run only cases with this tag (suite entry or "
            "case.yaml; repeatable: any of them).", show_default=False)] = None,
        case_type: Annotated[list[str] | None, typer.Option(
            "--case-type", metavar="TYPE", help="Run only cases of this case_type "
            "(repeatable: any of them).", show_default=False)] = None,
        limit: Annotated[int | None, typer.Option(
            "--limit", min=1, metavar="N", help="Run only the first N selected cases "
            "(suite order).", show_default=False)] = None,
        tools: Annotated[str | None, typer.Option(
            "--tools", help="How agents get the incident data: mcp (incident tools over MCP), "
            "files (incident/ copy) or both (default: the suite's execution.tools, else both).",
            show_default=False)] = None,
        sandbox: SandboxOpt = "auto",
        network: NetworkOpt = True,
        sandbox_bind: SandboxBindOpt = None,
        allow_endpoint: AllowEndpointOpt = None,
        agent_home: AgentHomeOpt = None,
        executor: Annotated[str, typer.Option(
            "--executor", help="Where cases execute: local (threads here), ray (one Ray task "
            "per case on the cluster at $RAY_ADDRESS), ray:local (a Ray instance on this "
            "machine) or ray:<address> (docs/distributed.md). A run may be resumed on "
            "another executor.")] = "local",
        lab_dir: Annotated[Path | None, typer.Option(
            "--lab-dir", help="--suite lab: the lab dir (default: $RCAEVAL_LAB_DIR, else "
            "/tmp/rcaeval-lab-UID); the lab is brought up fresh there and taken down after.",
            show_default=False)] = None,
        lab_user: Annotated[str | None, typer.Option(
            "--lab-user", help="--suite lab, as root: the unprivileged account the lab runs "
            "as (default $RCAEVAL_LAB_USER, else nobody).", show_default=False)] = None,
    ) -> None:
        """Run a suite against an agent: fresh workspace per case, audit, judge, reports."""
        from rcaeval.errors import InputError
        from rcaeval.runner import check_fail_under, parse_fail_on

        if resume and run_id and resume != run_id:
            raise InputError("--run-id and --resume name different runs", field="--resume")
        fail_on_ = parse_fail_on(fail_on or [])
        check_fail_under(fail_under)
        env = parse_agent_env(agent_env)
        shadow = semantic_config(semantic, model=semantic_model, base_url=semantic_base_url,
                                 samples=semantic_samples, timeout=semantic_timeout)
        if resume and (tag or case_type or limit):
            raise InputError("--tag, --case-type and --limit cannot change the cases of a "
                             "resumed run", field="--resume")
        with contextlib.ExitStack() as stack:
            options: dict[str, Any] = {"executor": executor}
            if suite == "lab":
                from rcaeval.cli._run_lab import lab_suite

                registry = stack.enter_context(lab_suite(
                    options, lab_dir=lab_dir, user=lab_user, registry=registry))
            elif lab_dir is not None or lab_user is not None:
                raise InputError("--lab-dir and --lab-user go with --suite lab",
                                 field="--lab-dir")
            _run(suite, agent, registry=registry, options=options, cases=cases, tag=tag,
                 case_type=case_type, limit=limit, resume=resume, run_id=run_id, db=db,
                 repeat=repeat, baseline_diff=baseline_diff, fail_under=fail_under,
                 fail_on=fail_on_, junit_xml=junit_xml, results_json=results_json,
                 rest=dict(
                     audit_root=audit_root, workspace_root=workspace_root, jobs=jobs,
                     case_timeout_s=timeout, turn_timeout_s=turn_timeout,
                     max_infra_retries=retries, agent_env=env, progress=progress,
                     expose_case_ids=expose_case_ids, semantic=shadow, agent_name=agent_name,
                     tools=tools, sandbox=sandbox, network=network,
                     sandbox_binds=sandbox_bind or (), allow_endpoints=allow_endpoint or (),
                     agent_home=agent_home))


def _run(suite: str, agent: str, *, registry: Path | None, options: dict[str, Any],
         cases: list[str] | None, tag: list[str] | None, case_type: list[str] | None,
         limit: int | None, resume: str | None, run_id: str | None, db: Path | None,
         repeat: int | None, baseline_diff: bool, fail_under: float | None,
         fail_on: tuple[str, ...], junit_xml: Path | None, results_json: Path | None,
         rest: dict[str, Any]) -> None:
    from rcaeval.cli._run_ci import finish, is_repeat_group, run_repeated
    from rcaeval.runner import RunInterrupted, run_suite, select_cases
    from rcaeval.store import connect

    fail_on_ = fail_on
    selected = cases or None if resume else select_cases(
        registry, suite, case_ids=cases, tags=tag, case_types=case_type, limit=limit)
    console = wide_console()
    store = connect(db)
    options = {**rest, **options}
    options.update(registry_root=registry, case_ids=selected)
    try:
        if (repeat or 1) > 1 or (resume and is_repeat_group(store, resume)):
            run_repeated(console, store, suite, agent, repeat=repeat,
                         run_id=resume or run_id, resume=resume is not None,
                         options=options, baseline_diff=baseline_diff,
                         registry=registry, fail_under=fail_under, fail_on=fail_on_,
                         junit=junit_xml, results=results_json)
            return
        try:
            summary = run_suite(store, suite, agent, run_id=resume or run_id,
                                resume=resume is not None, **options)
        except RunInterrupted as exc:
            print_summary(console, exc.summary, store)
            console.print(f"interrupted: resume with --resume {exc.summary.run_id}",
                          highlight=False)
            raise typer.Exit(130) from None
        print_summary(console, summary, store)
        if suite == "lab":
            from rcaeval.cli._run_lab import print_lab

            print_lab(console, store, summary.run_id)
        console.print(f"store: {store.label}", highlight=False, soft_wrap=True)
        regressed = baseline_diff and _baseline_gate(console, store, summary.run_id,
                                                     registry)
        finish(console, store, [summary], fail_under=fail_under, fail_on=fail_on_,
               regressed=regressed, junit=junit_xml, results=results_json)
    finally:
        store.close()


def _baseline_gate(console: Console, store: Store, run_id: str, registry: Path | None) -> bool:
    """Print the baseline diff; True on a regression. No baseline: a warning, False."""
    from rcaeval.cli import err_console
    from rcaeval.errors import NotFoundError
    from rcaeval.report import diff_against_baseline, render_diff

    try:
        diff = diff_against_baseline(store, run_id, registry)
    except NotFoundError as exc:
        err_console.print(f"[yellow]warning:[/yellow] no baseline comparison: {exc}",
                          highlight=False)
        return False
    console.print(render_diff(diff, "text"), end="", highlight=False, markup=False)
    return diff.gate_failed
