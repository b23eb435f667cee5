"""Writing imported corpus cases into a registry, never half-written (docs/import.md,
"Public corpora").

Every case is built in a hidden staging dir under ``cases/`` (case.yaml, judge.yaml,
expected.md, incident/), loaded with the registry's own loader, its detector examples judged
with the judge itself, and only then renamed into place. A case that does not validate is
reported as skipped; the other cases of the import still land.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from rcaeval.errors import InputError
from rcaeval.ingest import log_name, merge_records

_SLUG = re.compile(r"[^a-z0-9]+")
_SAFE_ID = re.compile(r"[^A-Za-z0-9_.:-]+")


@dataclass(frozen=True)
class Skipped:
    """One source row (task, case folder) that was not imported, and why."""

    row: str
    reason: str

    def render(self) -> str:
        return f"{self.row}: {self.reason}"


@dataclass
class ImportReport:
    """What a corpus import wrote: the suite, the case ids (source order) and the rows it
    skipped with their reasons. ``ok`` is false when any row was skipped (exit 3)."""

    registry: Path
    suite_id: str
    cases: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.skipped

    def as_dict(self) -> dict[str, Any]:
        return {"registry": str(self.registry), "suite_id": self.suite_id,
                "cases": list(self.cases), "ok": self.ok,
                "skipped": [{"row": s.row, "reason": s.reason} for s in self.skipped],
                "notes": list(self.notes)}


@dataclass
class StagedCase:
    """A case built in memory: the YAML documents and the incident records."""

    case_id: str
    source: str
    case: dict[str, Any]
    judge: dict[str, Any]
    expected_md: str
    series: list[dict[str, Any]] = field(default_factory=list)
    logs: dict[str, list[str]] = field(default_factory=dict)
    spans: list[dict[str, Any]] = field(default_factory=list)
    topology: dict[str, Any] = field(default_factory=dict)
    ticket: dict[str, Any] | None = None


def check_suite_id(suite_id: str | None) -> str | None:
    """``--suite`` as given, when it is a registry id (it names ``suites/<id>.yaml`` and
    prefixes case ids); an input error (exit 3) otherwise. None stays None (the default)."""
    from rcaeval.registry import ID_PATTERN

    if suite_id is not None and not re.fullmatch(ID_PATTERN, suite_id):
        shown = repr(suite_id) if len(suite_id) <= 80 else repr(suite_id[:77]) + "..."
        raise InputError(f"{shown} is not a suite id: use lower-case letters, digits, '_', "
                         "'-' and '.', starting with a letter or digit, at most 128 "
                         "characters", field="--suite")
    return suite_id


def _inside(root: Path, sub: str) -> Path:
    """``root/sub``, checked to stay under ``root`` once symlinks are resolved (a
    ``cases -> /elsewhere`` symlink would make the import write outside the registry)."""
    path = root / sub
    real_root, real = root.resolve(), path.resolve()
    if not real.is_relative_to(real_root):
        raise InputError(f"resolves to {real}, outside the registry {real_root} (a symlink?)",
                         file=str(path), field="--out")
    return path


def slug(text: str) -> str:
    """Lower-case words joined by ``_`` (an id fragment)."""
    return _SLUG.sub("_", text.lower()).strip("_") or "x"


def id_part(text: str) -> str:
    """A registry id fragment: lower-case letters, digits and ``-``."""
    return _SLUG.sub("-", text.lower()).strip("-") or "x"


def opaque_id(prefix: str, *parts: str) -> str:
    """``<prefix>-<12 hex>``: a case id that says nothing about the source path it hashes."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:12]
    return f"{prefix}-{digest}"


def iso(ts: float) -> str:
    """Epoch seconds as ISO-8601 UTC (milliseconds kept when present)."""
    dt = datetime.fromtimestamp(ts, UTC)
    if dt.microsecond:
        return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def series_id(name: str, labels: dict[str, str], taken: set[str]) -> str:
    base = _SAFE_ID.sub("_", f"M-{name}-{labels.get('instance', 'all')}")
    sid, n = base, 2
    while sid in taken:
        sid, n = f"{base}-{n}", n + 1
    taken.add(sid)
    return sid


def log_line(ts: float, level: str, component: str, message: str) -> str:
    """One incident log line: ``TS LEVEL [component] message``."""
    return f"{iso(ts)} {level} [{component}] {message}"


def dump_yaml(doc: dict[str, Any], header: str) -> str:
    body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    return "".join(f"# {line}\n" for line in header.splitlines()) + body


def _write_incident(inc: Path, case: StagedCase) -> None:
    from rcaeval.ingest import write_doc

    inc.mkdir(parents=True)

    write_doc(inc, "topology.json", case.topology)
    if case.ticket is not None:
        write_doc(inc, "ticket.json", case.ticket)
    if case.series:
        merge_records(inc, "metrics.json", "series", case.series)
    if case.spans:
        merge_records(inc, "traces.json", "spans", case.spans)
    if case.logs:
        logs = inc / "logs"
        logs.mkdir()
        for instance, lines in sorted(case.logs.items()):
            path = logs / f"{log_name(instance)}.log"
            with path.open("a", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(line.replace("\n", " ").replace("\r", " ") + "\n")


class CaseWriter:
    """Stages cases one by one (:meth:`add`: written to a hidden dir under ``cases/`` and
    loaded with the registry's loader, so memory holds no telemetry), then :meth:`commit`
    judges every staged case's detector examples in one judge pass and renames the cases
    that agree into place (their ids are appended to ``report.cases``). Cases that do not
    validate are added to ``report.skipped``. Use it as a context manager: the staging dir
    is removed on exit, whatever happened."""

    def __init__(self, root: Path, report: ImportReport, header: str) -> None:
        self.root, self.report, self.header = root, report, header
        from rcaeval._inputs import make_output_dir

        make_output_dir(root, field="--out")
        self.cases_dir = _inside(root, "cases")
        make_output_dir(_inside(root, "suites"), field="--out")
        make_output_dir(self.cases_dir, field="--out")
        self.stage_parent = self.cases_dir / f".import-{secrets.token_hex(4)}"
        self.loaded: list[tuple[str, str, Any]] = []

    def __enter__(self) -> CaseWriter:
        try:
            self.stage_parent.mkdir()
        except OSError as exc:
            raise InputError(f"cannot write a staging dir there: {exc.strerror or exc}",
                             file=str(self.cases_dir), field="--out") from None
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.stage_parent, ignore_errors=True)

    def add(self, case: StagedCase) -> None:
        from rcaeval.registry import ID_PATTERN, load_case_dir

        if not re.fullmatch(ID_PATTERN, case.case_id):
            self.report.skipped.append(Skipped(case.source, f"case id {case.case_id[:80]!r} "
                                               "is not a registry id"))
            return
        stage = self.stage_parent / case.case_id
        if stage.exists() or any(cid == case.case_id for cid, _, _ in self.loaded):
            self.report.skipped.append(Skipped(case.source, f"case id {case.case_id!r} is "
                                               "another row's too (one case per id)"))
            return
        stage.mkdir()
        (stage / "case.yaml").write_text(dump_yaml(case.case, self.header), encoding="utf-8")
        (stage / "judge.yaml").write_text(dump_yaml(case.judge, self.header), encoding="utf-8")
        (stage / "expected.md").write_text(case.expected_md, encoding="utf-8")
        _write_incident(stage / "incident", case)
        merged, problems = load_case_dir(self.root, stage)
        if merged is None:
            self.report.skipped.append(Skipped(case.source, "the imported case does not "
                                               "validate: " + "; ".join(
                                                   p.render() for p in problems[:3])))
            shutil.rmtree(stage, ignore_errors=True)
            return
        self.loaded.append((case.case_id, case.source, merged))

    def commit(self) -> None:
        from rcaeval.authoring import example_problems

        bad: dict[str, str] = {}
        for p in example_problems(self.root, [m for _, _, m in self.loaded]):
            bad.setdefault(p.file.split("/")[1], p.render())
        for case_id, source, _ in self.loaded:
            if case_id in bad:
                self.report.skipped.append(Skipped(source, "a detector example of the "
                                                   f"imported case fails: {bad[case_id]}"))
                continue
            target = self.cases_dir / case_id
            if target.is_symlink() or (target.exists() and not target.is_dir()):
                self.report.skipped.append(Skipped(source, f"{target} is not a plain "
                                                   "directory (a symlink or a file): not "
                                                   "replaced"))
                continue
            if target.exists():
                target.rename(self.stage_parent / f".old-{case_id}")
            (self.stage_parent / case_id).rename(target)
            self.report.cases.append(case_id)
        self.loaded = []


def write_suite(root: Path, suite: dict[str, Any], case_ids: list[str], header: str) -> Path:
    """Write ``suites/<suite_id>.yaml`` listing ``case_ids`` (replaced whole, by rename)."""
    doc = dict(suite)
    doc["cases"] = [{"id": cid, "status": "active", "baseline_eligible": True}
                    for cid in case_ids]
    path = _inside(root, "suites") / f"{check_suite_id(suite['suite_id'])}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    tmp.write_text(dump_yaml(doc, header), encoding="utf-8")
    tmp.replace(path)
    return path
