"""The `rcaeval` command. Each subcommand lives in its own ``_cmd_<name>.py`` module that
defines ``register(app: typer.Typer) -> None``; modules are discovered here so that adding a
command never edits a shared file. Exit codes: see :class:`rcaeval.errors.ExitCode`."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import traceback
from typing import Any

import click
import typer
from rich.console import Console
from rich.markup import escape

from rcaeval.errors import ExitCode, RcaevalError

app = typer.Typer(
    name="rcaeval",
    help="Evaluate AI root-cause-analysis agents. Exit codes: 0 ok, 2 usage, 3 invalid input, "
    "4 gate/threshold/regression failure, 5 internal error, 6 not found, 7 cases errored or "
    "timed out (docs/cli.md).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's plain help: it wraps to the terminal and never truncates option names (the rich
    # panels cut `--workspace-root` to `--workspace-ro…` at 80 columns)
    rich_markup_mode=None,
)
err_console = Console(stderr=True)


def _load_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name.startswith("_cmd_"):
            module = importlib.import_module(f"{__name__}.{mod.name}")
            module.register(app)


_load_commands()


@app.callback()
def _root() -> None:
    """Evaluate AI root-cause-analysis agents."""


def _is_choice(param: Any) -> bool:
    """An option whose values are a fixed set (an Enum annotation, or a click Choice)."""
    import enum

    ann = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return (isinstance(ann, type) and issubclass(ann, enum.Enum)) or \
        isinstance(getattr(param, "type", None), click.Choice)


def _tidy_metavars(command: Any) -> None:
    """Options without an explicit metavar show their name (``--db DB``, ``--jobs JOBS``)
    instead of the type (``<path>``, ``<int range>``, ``<list[str]>``); flags show none;
    arguments show their name only."""
    for param in command.params:
        if getattr(param, "param_type_name", None) == "option" and param.metavar is None \
                and param.name and not param.is_flag and not param.count \
                and not _is_choice(param):  # choices show themselves: [text|json]
            param.metavar = param.name.upper()
        elif getattr(param, "param_type_name", None) == "argument":
            param.display_type_rich = lambda ctx: None  # "RUN_ID  The run…", not "<str>"
            param.metavar = param.metavar or param.name.upper()
    for sub in getattr(command, "commands", {}).values():
        _tidy_metavars(sub)


def _short_helps(command: Any, path: str = "") -> None:
    """Every subcommand's line in its group's list (``rcaeval._short_help``): never cut
    mid-phrase with ``...``."""
    from rcaeval.cli._short_help import SHORT_HELP, derived_short_help

    for name, sub in getattr(command, "commands", {}).items():
        key = f"{path} {name}".strip()
        if not sub.short_help:
            sub.short_help = SHORT_HELP.get(key) or derived_short_help(sub.help or "")
        _short_helps(sub, key)


def command() -> Any:
    """The click command behind ``rcaeval`` (with tidy metavars and one-line short helps)."""
    cmd = typer.main.get_command(app)
    _tidy_metavars(cmd)
    _short_helps(cmd)
    return cmd


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI and map errors onto the documented exit codes."""
    try:
        # standalone mode: typer/click report usage errors themselves and exit with 2.
        command().main(args=argv, prog_name="rcaeval")
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        return code if isinstance(code, int) else 1
    except RcaevalError as exc:
        if exc.exit_code == ExitCode.INTERNAL:  # a run that failed on a damaged store
            from rcaeval.store import damaged_store

            exc = damaged_store(exc) or exc
        # escape: "file [field]" in the message is text, not rich markup
        err_console.print(f"[red]error:[/red] {escape(str(exc))}", markup=True,
                          highlight=False, soft_wrap=True)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - last-resort mapping to the internal-error code
        from rcaeval.store import damaged_store

        damaged = damaged_store(exc)
        if damaged is not None:
            err_console.print(f"[red]error:[/red] {escape(str(damaged))}", markup=True,
                              highlight=False, soft_wrap=True)
            return int(damaged.exit_code)
        traceback.print_exc()
        err_console.print(f"[red]internal error:[/red] {escape(repr(exc))}", highlight=False)
        return int(ExitCode.INTERNAL)
    return 0


def run() -> None:
    sys.exit(main())
