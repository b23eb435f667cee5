"""The judge manifest ``queries/judge/stages.txt``: every statement a judging pass runs, in
named phases (load, extract, scope, detect, decide, decide.verdict, write, write.unloadable,
write.runs, release, defined, shadow). Python follows it: :func:`run_phase` runs a phase's SQL
lines (a file that only defines TEMP views and macros once per connection, recorded in
``j_defined``) and calls the phase's ``!step`` functions, and a step reaches its own SQL
files only through :func:`step_files` / :func:`statement`, which refuse a file its manifest
line does not name.
So the manifest is the one list of what the judge runs, and adding a stage is one SQL file
plus one manifest line (CONTRIBUTING.md, "Recipe: add a judging stage").

List lines expand from :data:`LISTS`, the one catalog of the names a line may range over.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import duckdb

from rcaeval._paths import queries_dir, read_query, read_statement
from rcaeval._vocab import BUCKETS, EVIDENCE_METHODS
from rcaeval.extract import RAW_CATALOG
from rcaeval.grammar import defaults_digest_bytes

MANIFEST_FILE = "judge/stages.txt"
"""The manifest (its header says how to read it)."""

SHADOW_TABLES = ("eval_semantic", "eval_semantic_check", "eval_judgment_blended")
"""Semantic-shadow rows (migration 0003) of a (run, case): a new deterministic judgment voids
them, so they are deleted with it (the semantic cache keeps the provider's answers)."""

LISTS: dict[str, tuple[str, ...]] = {
    "bucket": BUCKETS,
    "method": EVIDENCE_METHODS,
    "chunk_table": tuple(t.name for t in RAW_CATALOG.values() if t.chunk_input),
    "judged_table": ("eval_fact", "eval_check", "eval_bucket", "eval_judgment",
                     "eval_detector_hit", "eval_trajectory", "eval_trajectory_tool",
                     *SHADOW_TABLES),
}
"""The catalog the manifest's list lines expand from: ``{bucket}`` and ``{method}`` (the
registered buckets and evidence methods, rcaeval._vocab), ``{chunk_table}`` (the raw tables of
the extraction catalog rcaeval.extract.RAW_CATALOG marked ``chunk_input``: all but
``raw_bundle``, whose rows ``j_scope`` carries; one chunk input ``j_<table>`` each) and
``{judged_table}`` (the eval_* tables one judgment of a case run replaces)."""

DIGEST_PHASES = ("scope", "detect", "decide", "decide.verdict")
"""The phases whose statements decide a verdict: ``judge_sql_digest`` hashes exactly these."""

_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
_HEADER = re.compile(r"^\[([a-z]+(?:\.[a-z]+)?)\]$")


@dataclass(frozen=True)
class Line:
    """One expanded manifest line: a SQL file (``fill``: the ``{list}`` placeholder values,
    ``names``: the list bound as ``$names``) or a ``!step`` with the files it runs."""

    path: str | None = None
    step: str | None = None
    files: tuple[str, ...] = ()
    fill: Mapping[str, str] = field(default_factory=dict)
    names: tuple[str, ...] | None = None

    def text(self) -> str:
        """The line as hashed into the digest (its expanded form)."""
        if self.step is not None:
            return " ".join(["!" + self.step, *self.files])
        extra = "".join(f" {k}={v}" for k, v in sorted(self.fill.items()))
        if self.names is not None:
            extra += " $names=" + ",".join(self.names)
        return f"{self.path}{extra}"


class ManifestError(ValueError):
    """The manifest names something that does not exist (a list, a step's file)."""


def _list(name: str, where: str) -> tuple[str, ...]:
    if name not in LISTS:
        raise ManifestError(f"{MANIFEST_FILE}: {where}: unknown list {{{name}}}; "
                            f"known: {sorted(LISTS)}")
    names = LISTS[name]
    bad = [n for n in names if not _IDENT.match(n)]
    if bad:
        raise ManifestError(f"list {name}: not plain identifiers: {bad}")
    return names


def _expand(raw: str, where: str) -> list[Line]:
    parts = raw.split()
    if parts[0].startswith("!"):
        return [Line(step=parts[0][1:], files=tuple(parts[1:]))]
    path, *rest = parts
    if len(rest) > 1:
        raise ManifestError(f"{MANIFEST_FILE}: {where}: one argument at most: {raw!r}")
    m = re.search(r"\{([a-z_]+)\}", path)
    if m:
        return [Line(path=path.replace(m.group(0), n)) for n in _list(m.group(1), where)]
    if not rest:
        return [Line(path=path)]
    arg = rest[0]
    if arg.startswith("{") and arg.endswith("}"):
        name = arg[1:-1]
        return [Line(path=path, fill={name: n}) for n in _list(name, where)]
    if arg.startswith("$"):
        name = arg[1:]
        return [Line(path=path, fill={"list": name}, names=_list(name, where))]
    raise ManifestError(f"{MANIFEST_FILE}: {where}: not a list argument: {arg!r}")


@cache
def _parsed(text: str) -> dict[str, tuple[Line, ...]]:
    out: dict[str, list[Line]] = {}
    phase: str | None = None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head = _HEADER.match(line)
        if head:
            phase = head.group(1)
            if phase in out:
                raise ManifestError(f"{MANIFEST_FILE}:{no}: phase [{phase}] twice")
            out[phase] = []
            continue
        if phase is None:
            raise ManifestError(f"{MANIFEST_FILE}:{no}: a line before the first [phase]")
        out[phase].extend(_expand(line, f"line {no}"))
    return {k: tuple(v) for k, v in out.items()}


def phases() -> dict[str, tuple[Line, ...]]:
    """Every phase of the manifest, its lines expanded, in file order."""
    return _parsed(read_query(MANIFEST_FILE))


def phase(name: str) -> tuple[Line, ...]:
    try:
        return phases()[name]
    except KeyError:
        raise ManifestError(f"{MANIFEST_FILE} has no phase [{name}]") from None


def _step_line(phase_name: str, step: str) -> Line:
    for line in phase(phase_name):
        if line.step == step:
            return line
    raise ManifestError(f"{MANIFEST_FILE} [{phase_name}] has no step !{step}")


def step_files(phase_name: str, step: str) -> tuple[str, ...]:
    """The SQL files the manifest's ``!step`` line of ``phase_name`` names."""
    return _step_line(phase_name, step).files


def statement(phase_name: str, step: str, rel: str, *, single: bool = False,
              **fill: str) -> str:
    """The text of ``rel``, a file the ``!step`` line of ``phase_name`` names (else
    :class:`ManifestError`): the one statement (:func:`rcaeval._paths.read_statement`, with
    ``fill``; also when ``single``) or, without either, the whole file."""
    if rel not in step_files(phase_name, step):
        raise ManifestError(f"{MANIFEST_FILE} [{phase_name}] !{step} does not name {rel}")
    return read_statement(rel, **fill) if fill or single else read_query(rel)


def sql_files(names: tuple[str, ...] | None = None) -> list[str]:
    """Every SQL file the manifest (or its phases ``names``) names, first use order."""
    seen: dict[str, None] = {}
    for name, lines in phases().items():
        if names is not None and name not in names:
            continue
        for line in lines:
            for rel in (line.files if line.step is not None else (line.path,)):
                seen.setdefault(rel, None)
    return list(seen)


def sql_digest() -> str:
    """sha256 (16 hex) over the phases that decide a verdict (:data:`DIGEST_PHASES`): each
    expanded line, the bytes of every file they name, and the grammar defaults. It changes
    whenever judging logic does, and only then."""
    h = hashlib.sha256()
    root = queries_dir()
    for name in DIGEST_PHASES:
        h.update(f"[{name}]\n".encode())
        for line in phase(name):
            h.update(line.text().encode() + b"\n")
    for rel in sql_files(DIGEST_PHASES):
        h.update(f"{rel}\n".encode())
        h.update((root / rel).read_bytes())
    h.update(b"grammar/defaults.yaml\n")
    h.update(defaults_digest_bytes())
    return h.hexdigest()[:16]


_DEFINITION = re.compile(r"\s*CREATE\s+OR\s+REPLACE\s+TEMP(?:ORARY)?\s+(?:VIEW|MACRO)\s",
                         re.IGNORECASE)
_COMMENT = re.compile(r"--[^\n]*")


@cache
def _defines_only(text: str) -> bool:
    """Whether the SQL ``text`` only defines TEMP views and macros (every statement a
    ``CREATE OR REPLACE TEMP VIEW`` / ``MACRO``): running it again on the same connection
    changes nothing, since DuckDB binds a view's query each time it is read."""
    statements = duckdb.extract_statements(text)
    return bool(statements) and all(
        _DEFINITION.match(_COMMENT.sub("", st.query)) for st in statements)


def _line_sql(line: Line) -> str:
    return read_statement(line.path, **line.fill) if line.fill else read_query(line.path)


def _definition_key(line: Line) -> str | None:
    """How j_defined names ``line`` if its file only defines views and macros: its text and its
    SQL's hash (an edited file is a new definition); None for any other line."""
    if line.names is not None or line.path is None:
        return None
    sql = _line_sql(line)
    if not _defines_only(sql):
        return None
    return f"{line.text()} {hashlib.sha256(sql.encode()).hexdigest()[:16]}"


def _definitions(line: Line) -> bool:
    """Whether ``line`` only defines views and macros (run once per connection)."""
    return _definition_key(line) is not None


def _defined(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The definition lines this connection already ran (queries/judge/defined_lines.sql)."""
    text = statement("defined", "defined", "judge/defined_lines.sql")
    return {row[0] for row in con.execute(text).fetchall()}


def _execute(con: duckdb.DuckDBPyConnection, line: Line) -> None:
    rel = line.path
    try:
        if line.names is not None:
            con.execute(read_statement(rel, **line.fill), {"names": list(line.names)})
        elif line.fill:
            con.execute(read_statement(rel, **line.fill))
        else:
            con.execute(read_query(rel))
    except duckdb.Error as exc:
        raise RuntimeError(f"judge SQL {rel} failed: {exc}") from exc


Steps = Mapping[str, Callable[[], Any]]

LineTimer = Callable[[str, str, str | None, float, float], None]
"""A timing callback: ``(phase, line, file, wall_s, cpu_s)`` once per manifest line run
(``file`` ``None``; a ``!step`` line's time includes everything its step does) and once per
file a step runs through :func:`run_file` (``file`` that file, ``line`` its step's line).
CPU is the process's (:func:`time.process_time`: DuckDB's threads included)."""

_timer: LineTimer | None = None


@contextmanager
def timed_lines(callback: LineTimer) -> Iterator[None]:
    """Within the block, call ``callback`` with the wall and CPU time of every manifest line
    :func:`run_phase` runs and every step file :func:`run_file` runs (bench.bench_judge_phases
    accumulates them). Off (the default) it costs one test per line."""
    global _timer
    before, _timer = _timer, callback
    try:
        yield
    finally:
        _timer = before


def _timed(name: str, line: Line, file: str | None, call: Callable[[], Any]) -> Any:
    timer = _timer
    if timer is None:
        return call()
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        return call()
    finally:
        timer(name, line.text(), file, time.perf_counter() - w0, time.process_time() - c0)


def run_phase(con: duckdb.DuckDBPyConnection, name: str, steps: Steps | None = None, *,
              until: str | None = None) -> None:
    """Run phase ``name`` top to bottom: each SQL line on ``con``, each ``!step`` by calling
    ``steps[step]`` (a step the caller does not give is an error: the manifest and the code
    agree). ``until``: stop before that step."""
    steps = steps or {}
    lines = phase(name)
    keys = [_definition_key(ln) for ln in lines]
    defined = _defined(con) if any(k is not None for k in keys) else set()
    for line, key in zip(lines, keys, strict=True):
        if line.step is None:
            if key is not None and key in defined:
                continue  # its views and macros are already on this connection
            if _timer is None:
                _execute(con, line)
            else:
                _timed(name, line, None, lambda ln=line: _execute(con, ln))
            if key is not None:
                con.execute(statement("defined", "defined", "judge/defined_add.sql"),
                            {"line": key})
            continue
        if line.step == until:
            return
        if line.step not in steps:
            raise ManifestError(f"{MANIFEST_FILE} [{name}] !{line.step}: the caller has no "
                                f"such step (has {sorted(steps)})")
        if _timer is None:
            steps[line.step]()
        else:
            _timed(name, line, None, steps[line.step])


def run_file(con: duckdb.DuckDBPyConnection, phase_name: str, step: str, rel: str,
             params: Mapping[str, Any] | None = None) -> None:
    """Run ``rel`` (a file the step's line names) with ``params``."""
    text = statement(phase_name, step, rel)

    def run() -> None:
        try:
            if params is None:
                con.execute(text)
            else:
                con.execute(text, dict(params))
        except duckdb.Error as exc:
            raise RuntimeError(f"judge SQL {rel} failed: {exc}") from exc

    if _timer is None:
        run()
    else:
        _timed(phase_name, _step_line(phase_name, step), rel, run)
