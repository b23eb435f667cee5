"""`rcaeval lab up|down|status|scenarios|inject|revert`: the incident lab (docs/lab.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

_DIR = typer.Option("--dir", help="The lab dir (default: $RCAEVAL_LAB_DIR, else "
                    "/tmp/rcaeval-lab-UID).", show_default=False)
_JSON = typer.Option("--json", help="Print JSON.")


def _print(data: object, as_json: bool, text: str) -> None:
    typer.echo(json.dumps(data, indent=1, sort_keys=True) if as_json else text)


def register(app: typer.Typer) -> None:
    lab_app = typer.Typer(help="The incident lab: live faults on a local PostgreSQL + "
                          "Prometheus stack (docs/lab.md).", no_args_is_help=True)
    app.add_typer(lab_app, name="lab")

    @lab_app.command("up")
    def up(
        lab_dir: Annotated[Path | None, _DIR] = None,
        user: Annotated[str | None, typer.Option(
            "--user", help="As root: the unprivileged account the lab runs as (default "
            "$RCAEVAL_LAB_USER, else nobody).", show_default=False)] = None,
        tps: Annotated[float, typer.Option(
            "--tps", help="pgbench transactions per second (rate-limited).")] = 2.0,
        rps: Annotated[float, typer.Option(
            "--rps", help="Requests per second of the load generator.")] = 2.0,
        as_json: Annotated[bool, _JSON] = False,
    ) -> None:
        """Start the lab fresh (stopping what an earlier or killed run left behind)."""
        from rcaeval import lab

        state = lab.up(lab_dir, user=user, workload_tps=tps, service_rps=rps)
        ports = state["ports"]
        _print(state, as_json, f"lab up in {state['dir']} as {state['user']}: "
               f"prometheus http://127.0.0.1:{ports['prometheus']}, postgres 127.0.0.1:"
               f"{ports['postgres']}, service http://127.0.0.1:{ports['service']}")

    @lab_app.command("down")
    def down(lab_dir: Annotated[Path | None, _DIR] = None,
             as_json: Annotated[bool, _JSON] = False) -> None:
        """Stop everything the lab started; nothing is left running."""
        from rcaeval import lab

        stopped = lab.down(lab_dir)
        _print({"stopped": stopped}, as_json,
               "lab down: stopped " + (", ".join(stopped) if stopped else "nothing (not running)"))

    @lab_app.command("status")
    def status(lab_dir: Annotated[Path | None, _DIR] = None,
               as_json: Annotated[bool, _JSON] = False) -> None:
        """What runs: components, Prometheus targets, firing alerts, the injected scenario."""
        from rcaeval import lab

        got = lab.status(lab_dir)
        lines = [f"lab {got['dir']}: " + ("running" if got["running"] else "not running")]
        for name, comp in got["components"].items():
            lines.append(f"  {name:<14} pid {comp['pid']:<8} "
                         + ("alive" if comp["alive"] else "gone"))
        if got.get("targets"):
            lines.append("  targets: " + ", ".join(f"{k}={v}" for k, v in
                                                  sorted(got["targets"].items())))
        if "alerts" in got:
            lines.append("  firing: " + (", ".join(a["name"] for a in got["alerts"]) or "none"))
        if got.get("scenario"):
            lines.append(f"  scenario: {got['scenario']['id']} since "
                         f"{got['scenario']['injected_at']}")
        _print(got, as_json, "\n".join(lines))

    @lab_app.command("scenarios")
    def scenarios(as_json: Annotated[bool, _JSON] = False) -> None:
        """List the shipped fault scenarios (each validated)."""
        from rcaeval.lab import load_scenarios

        rows = [{"id": s.id, "injector": s.injector.kind, "alert": s.expected_alert.name,
                 "family": s.ground_truth.family, "title": s.title} for s in load_scenarios()]
        _print(rows, as_json, "\n".join(f"{r['id']:<34} {r['alert']:<24} {r['title']}"
                                        for r in rows))

    @lab_app.command("inject")
    def inject(
        scenario: Annotated[str, typer.Argument(help="A scenario id or a scenario file.")],
        lab_dir: Annotated[Path | None, _DIR] = None,
        wait: Annotated[bool, typer.Option(
            "--wait/--no-wait", help="Wait for the scenario's expected alert to fire.")] = True,
        as_json: Annotated[bool, _JSON] = False,
    ) -> None:
        """Inject a scenario's fault into the running lab (and wait for its alert)."""
        from rcaeval.lab import inject as do_inject
        from rcaeval.lab import load_scenario, wait_alert

        sc = load_scenario(scenario)
        got: dict = {"scenario": do_inject(sc, lab_dir)}
        text = f"injected {sc.id}"
        if wait:
            got["alert"] = wait_alert(sc.expected_alert.name, lab_dir,
                                      timeout_s=sc.expected_alert.within_s)
            text += f"; {sc.expected_alert.name} firing after {got['alert']['after_s']} s"
        _print(got, as_json, text)

    @lab_app.command("revert")
    def revert(
        scenario: Annotated[str, typer.Argument(help="A scenario id or a scenario file.")],
        lab_dir: Annotated[Path | None, _DIR] = None,
        check: Annotated[bool, typer.Option(
            "--check/--no-check", help="Run the scenario's recovery check after.")] = True,
        as_json: Annotated[bool, _JSON] = False,
    ) -> None:
        """Undo a scenario's fault (and run its recovery check)."""
        from rcaeval.lab import check_recovery, load_scenario
        from rcaeval.lab import revert as do_revert

        sc = load_scenario(scenario)
        do_revert(sc, lab_dir)
        got: dict = {"reverted": sc.id}
        text = f"reverted {sc.id}"
        if check:
            got["recovery"] = check_recovery(sc, lab_dir)
            text += ("; recovered" if got["recovery"]["resolved"] else "; NOT recovered")
        _print(got, as_json, text)

    @lab_app.command("tools")
    def tools(
        bundle_dir: Annotated[Path, typer.Option(
            "--bundle-dir", help="Where calls are recorded as a run bundle.")],
        lab_dir: Annotated[Path | None, _DIR] = None,
        transport: Annotated[str, typer.Option(
            "--transport", help="stdio, http (streamable HTTP on 127.0.0.1) or unix (the "
            "runner's hosted server, on --socket)")] = "stdio",
        port: Annotated[int, typer.Option(
            "--port", help="HTTP port (0: a free one; the URL is printed on stderr)")] = 0,
        socket_path: Annotated[Path | None, typer.Option(
            "--socket", help="the Unix socket of --transport unix")] = None,
    ) -> None:
        """Serve the running lab's live incident tools over MCP (plus the database views).

        Over HTTP every request needs `Authorization: Bearer TOKEN`: the token in
        $RCAEVAL_MCP_TOKEN, else a fresh one printed on stderr."""
        import os
        import secrets
        import sys

        from rcaeval._seal import SEAL_KEY_ENV, parse_key
        from rcaeval.errors import InputError
        from rcaeval.lab import default_dir, serve_live
        from rcaeval.tools import TOKEN_ENV

        if transport not in ("stdio", "http", "unix"):
            raise InputError(f"--transport must be stdio, http or unix, got {transport!r}",
                             field="--transport")
        if transport == "unix" and socket_path is None:
            raise InputError("--transport unix needs --socket PATH", field="--socket")
        raw_key = os.environ.pop(SEAL_KEY_ENV, None)
        seal_key = parse_key(raw_key) if raw_key else None
        if raw_key and seal_key is None:
            raise InputError(f"${SEAL_KEY_ENV} is not a hex key of at least 16 bytes",
                             field=SEAL_KEY_ENV)
        token = None
        if transport == "http":
            token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
            if not os.environ.get(TOKEN_ENV):
                print(f"rcaeval incident tools token: {token}", file=sys.stderr, flush=True)

        def on_listen(url: str) -> None:
            print(f"rcaeval incident tools: {url}", file=sys.stderr, flush=True)
            if transport == "unix":  # the runner waits for this line before the agent starts
                print(f"listening {url}", flush=True)

        serve_live((lab_dir or default_dir()).resolve(), bundle_dir, transport=transport,
                   port=port, token=token, on_listen=on_listen, socket_path=socket_path,
                   seal_key=seal_key)

    from rcaeval.cli._lab_selftest import register_selftest

    register_selftest(lab_app)

    @lab_app.command("capture")
    def capture(
        out: Annotated[Path, typer.Option(
            "--out", help="The case dir to write: REGISTRY/cases/CASE_ID.",
            show_default=False)],
        scenario: Annotated[str | None, typer.Option(
            "--scenario", help="The scenario injected (its title and ground truth go into "
            "the drafted case).", show_default=False)] = None,
        lab_dir: Annotated[Path | None, _DIR] = None,
        force: Annotated[bool, typer.Option("--force", help="Replace an existing case dir.")
                         ] = False,
    ) -> None:
        """Capture the lab's incident window into an offline case (docs/lab.md)."""
        from rcaeval.lab import capture as do_capture
        from rcaeval.lab import default_dir, load_scenario

        sc = load_scenario(scenario) if scenario else None
        got = do_capture(out, (lab_dir or default_dir()).resolve(), scenario=sc, force=force)
        typer.echo(f"captured {got.series.points} points of {len(got.series.series)} series "
                   f"into {out}")
