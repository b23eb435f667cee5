"""Error types and the CLI exit-code table (documented in docs/cli.md)."""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    OK = 0
    """Everything succeeded (a judged run may still contain fail/invalid verdicts)."""
    USAGE = 2
    """Bad command line: unknown option, missing argument (typer/click's own code)."""
    INVALID_INPUT = 3
    """Input files are malformed or inconsistent (registry lint errors, unreadable files)."""
    GATE_FAILED = 4
    """A regression against the baseline, or a failed release/harness gate."""
    INTERNAL = 5
    """A bug in rcaeval: an unexpected exception."""
    NOT_FOUND = 6
    """A named run, case, suite or file does not exist."""
    INFRA_ERROR = 7
    """A run finished but some cases errored or timed out for infrastructure reasons (the
    agent could not start, the ACP handshake failed, a malformed case, a judge error, the
    case deadline): their results are missing or partial, so the run proves nothing."""


class RcaevalError(Exception):
    """Base class of errors rcaeval reports to users."""

    exit_code: ExitCode = ExitCode.INTERNAL


class InputError(RcaevalError):
    """A user-supplied file is malformed. Carries the file, field and (when known) line."""

    exit_code = ExitCode.INVALID_INPUT

    def __init__(
        self, message: str, *, file: str | None = None, field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.field = field
        self.line = line
        self.message = message
        super().__init__(self.render())

    def render(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f" [{self.field}]"
        return f"{where}: {self.message}"


def validation_error(exc: Any, *, file: str | None = None, line: int | None = None
                     ) -> InputError:
    """An :class:`InputError` listing EVERY error of a pydantic ``ValidationError``: the first
    one's location is the ``field``; each error reads ``<dotted.loc>: <message>``."""
    errs = exc.errors(include_url=False)
    parts = []
    for err in errs:
        loc = ".".join(str(p) for p in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else str(err["msg"]))
    field = ".".join(str(p) for p in errs[0]["loc"]) or None if errs else None
    prefix = f"{len(errs)} errors: " if len(errs) > 1 else ""
    return InputError(prefix + "; ".join(parts), file=file, field=field, line=line)


class NotFoundError(RcaevalError):
    exit_code = ExitCode.NOT_FOUND


class GateFailed(RcaevalError):
    exit_code = ExitCode.GATE_FAILED


class InfraError(RcaevalError):
    exit_code = ExitCode.INFRA_ERROR
