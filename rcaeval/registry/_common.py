"""Shared pieces of the registry models: id and file-name types, problems, errors."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, StringConstraints

from rcaeval.errors import InputError

INT32_MAX = 2**31 - 1
"""The largest value of a registry field stored in a 32-bit column (``tolerance_s``,
``efficiency.max_steps``)."""

ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,127}$"
Id = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
"""A suite, case, check or detector id (docs/registry.md)."""

_JSONPATH_RE = re.compile(r"^\$(?:\.[^.\[\]\s]+|\[\d+\]|\[\*\])*$")


def _plain_file_name(value: str) -> str:
    if not value or value in {".", ".."} or "/" in value or "\\" in value or "\x00" in value:
        raise ValueError(
            f"{value!r} is not a plain file name (no '/', no '..'): name a file under evidences/"
        )
    return value


def _jsonpath_lite(value: str) -> str:
    if not _JSONPATH_RE.match(value):
        raise ValueError(
            f"{value!r} is not JSONPath-lite: use '$' followed by '.key', '[N]' or '[*]' steps, "
            "e.g. '$.components[*].last_termination_reason'"
        )
    return value


FileName = Annotated[str, AfterValidator(_plain_file_name)]
"""A plain file name under ``evidences/`` (no directory part)."""
JsonPathLite = Annotated[str, AfterValidator(_jsonpath_lite)]
"""``$``, ``.key``, ``[N]``, ``[*]``."""


Severity = Literal["error", "warning"]
"""``error``: the file is broken (``validate`` exits 3, the case cannot run). ``warning``: a
risk worth fixing that breaks nothing (``validate`` prints it and still exits 0)."""


@dataclass(frozen=True, order=True)
class Problem:
    """One registry lint finding. ``file`` is relative to the registry root (POSIX form)."""

    file: str
    line: int | None
    field: str
    code: str
    message: str
    severity: Severity = "error"

    def sort_key(self) -> tuple[str, int, str, str, str]:
        return (self.file, self.line or 0, self.field, self.code, self.message)

    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def render(self) -> str:
        field = f" [{self.field}]" if self.field else ""
        return f"{self.where()}{field}: {self.message} ({self.code})"


def sort_problems(problems: list[Problem]) -> list[Problem]:
    """Deterministic order: file, line, field, code, message; duplicates removed."""
    return sorted(set(problems), key=Problem.sort_key)


class RegistryError(InputError):
    """A registry file (or several) failed validation; ``problems`` holds every finding."""

    def __init__(self, problems: list[Problem], *, root: str | None = None) -> None:
        self.problems = sort_problems(problems)
        first = self.problems[0]
        file = f"{root.rstrip('/')}/{first.file}" if root else first.file
        more = len(self.problems) - 1
        if more:
            message = f"{first.message} (+{more} more problem{'s' if more > 1 else ''})"
        else:
            message = first.message
        super().__init__(message, file=file, field=first.field or None, line=first.line)
