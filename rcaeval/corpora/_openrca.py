"""``rcaeval import openrca``: OpenRCA's dataset layout as registry cases (docs/import.md,
"OpenRCA").

    DATASET_DIR/<system>/query.csv      task_index, instruction, scoring_points [, row_id]
    DATASET_DIR/<system>/record.csv     timestamp, component, reason [, datetime, level]
    DATASET_DIR/<system>/telemetry/<YYYY_MM_DD>/{metric,log,trace}/*.csv

``<system>`` is ``Bank``, ``Telecom``, ``Market/cloudbed-1`` or ``Market/cloudbed-2`` (or
any other dir in that layout). Query row *i* is the task OpenRCA generated from record row
*i* (main/generate.py), so the record's timestamp gives the task's half-hour window (the one
its instruction names, UTC+8). One case per query row: the instruction is the prompt, the
window's telemetry is the incident data, the scoring points and the failures go to
judge.yaml only.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from rcaeval._inputs import csv_rows, read_input
from rcaeval.corpora._csv import Window, epoch_seconds, scan_file
from rcaeval.corpora._judging import detector, evidence_checks, literal_pattern
from rcaeval.corpora._systems import candidates
from rcaeval.corpora._write import (
    CaseWriter,
    ImportReport,
    Skipped,
    StagedCase,
    check_suite_id,
    id_part,
    iso,
    slug,
    write_suite,
)
from rcaeval.errors import InputError, NotFoundError
from rcaeval.offline import parse_scoring_points

CST = timezone(timedelta(hours=8))
"""OpenRCA's telemetry and instructions are in UTC+8 (its prompts say so)."""
HALF_HOUR = 1800
MAX_ROW_ID = 10**9
"""row_id bounds: a case id ``openrca-<system>-<row_id>`` stays a short registry id."""
_UNDECODABLE = re.compile("[\udc80-\udcff]")
QUERY_COLUMNS = ("task_index", "instruction", "scoring_points")
RECORD_COLUMNS = ("timestamp", "component", "reason")
HEADER = ("Imported by `rcaeval import openrca` from {source} (docs/import.md).\n"
          "Re-running the import replaces this file.")


@dataclass(frozen=True)
class Failure:
    """One failure of record.csv."""

    ts: float
    component: str
    reason: str

    @property
    def cst(self) -> str:
        return datetime.fromtimestamp(self.ts, CST).strftime("%Y-%m-%d %H:%M:%S")


@dataclass(frozen=True)
class Task:
    row_id: int
    line: int
    task_index: str
    instruction: str
    scoring_points: str
    failures: tuple[Failure, ...]
    start: float

    @property
    def date_dir(self) -> str:
        return datetime.fromtimestamp(self.start, CST).strftime("%Y_%m_%d")


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line, row) of a CSV file with a header; errors name the file and line."""
    try:
        raw = read_input(path, "import")
    except NotFoundError:
        raise NotFoundError(f"{path} does not exist (is DATASET_DIR/--system an OpenRCA "
                            "dataset dir?)") from None
    # undecodable bytes stay as lone surrogates, so only the rows holding them are bad
    with io.StringIO(raw.decode("utf-8-sig", "surrogateescape"), newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise InputError("the file is empty (no header)", file=str(path),
                             line=1) from None
        except csv.Error as exc:
            raise InputError(f"not valid CSV: {exc}", file=str(path), line=1) from None
        missing = [c for c in required if c not in header]
        if missing:
            raise InputError(f"missing column(s) {', '.join(missing)} (the header has "
                             f"{', '.join(header)})", file=str(path), line=1)
        prev = reader.line_num
        for row in csv_rows(reader):
            if isinstance(row, csv.Error):
                raise InputError(f"not valid CSV: {row}", file=str(path), line=reader.line_num)
            start, prev = prev + 1, reader.line_num
            if not row:
                continue
            if len(row) != len(header):
                yield start, {"__error__": f"{len(row)} fields, the header has {len(header)}"}
                continue
            bad = next((c for c in row if _UNDECODABLE.search(c)), None)
            if bad is not None:
                byte = ord(_UNDECODABLE.search(bad).group()) - 0xDC00  # type: ignore[union-attr]
                col = header[row.index(bad)]
                yield start, {"__error__": f"column {col!r} is not UTF-8 text (byte "
                                           f"0x{byte:02x})"}
                continue
            yield start, dict(zip(header, row, strict=True))


def read_tasks(system_dir: Path, report: ImportReport) -> list[Task]:
    """The tasks of ``query.csv`` joined row by row to ``record.csv``; a bad row is skipped
    (in ``report``), the others are kept."""
    qpath, rpath = system_dir / "query.csv", system_dir / "record.csv"
    records: list[tuple[int, Failure | str]] = []
    for line, row in _rows(rpath, RECORD_COLUMNS):
        if "__error__" in row:
            records.append((line, f"{rpath}:{line}: {row['__error__']}"))
            continue
        ts = epoch_seconds(row["timestamp"])
        if ts is None:
            records.append((line, f"{rpath}:{line}: unknown timestamp format "
                                  f"{row['timestamp'][:40]!r} in column 'timestamp'"))
            continue
        if not row["component"].strip() or not row["reason"].strip():
            records.append((line, f"{rpath}:{line}: empty component or reason"))
            continue
        records.append((line, Failure(ts, row["component"].strip(), row["reason"].strip())))
    queries = list(_rows(qpath, QUERY_COLUMNS))
    if len(queries) != len(records):
        raise InputError(f"{len(queries)} task rows but {rpath} has {len(records)} failure "
                         "rows: OpenRCA makes one task per record row", file=str(qpath))
    good = [f for _, f in records if isinstance(f, Failure)]
    tasks: list[Task] = []
    lines_of: dict[int, int] = {}
    for i, ((line, q), (_, rec)) in enumerate(zip(queries, records, strict=True)):
        rid = q.get("row_id", "").strip() if "__error__" not in q else ""
        where = f"{qpath.name} line {line}"
        if "__error__" in q:
            report.skipped.append(Skipped(where, f"{qpath}:{line}: {q['__error__']}"))
            continue
        if isinstance(rec, str):
            report.skipped.append(Skipped(where, rec))
            continue
        try:
            row_id = int(rid) if rid else i
        except ValueError:
            report.skipped.append(Skipped(where, f"{qpath}:{line}: row_id {rid[:40]!r} is "
                                                 "not an integer"))
            continue
        if not 0 <= row_id < MAX_ROW_ID:
            report.skipped.append(Skipped(where, f"{qpath}:{line}: row_id {rid[:40]!r} is "
                                                 f"not between 0 and {MAX_ROW_ID - 1}"))
            continue
        if row_id in lines_of:
            report.skipped.append(Skipped(where, f"{qpath}:{line}: row_id {row_id} is also "
                                                 f"line {lines_of[row_id]}'s (one case per "
                                                 "row id)"))
            continue
        lines_of[row_id] = line
        points = q["scoring_points"]
        parsed = parse_scoring_points(points)
        if not (parsed.components or parsed.reasons or parsed.times):
            report.skipped.append(Skipped(where, f"{qpath}:{line}: no OpenRCA scoring point "
                                                 "in column 'scoring_points'"))
            continue
        start = rec.ts // HALF_HOUR * HALF_HOUR
        window = tuple(f for f in good if f.ts // HALF_HOUR * HALF_HOUR == start)
        if parsed.root_causes != len(window):
            report.skipped.append(Skipped(where, f"{qpath}:{line}: the scoring points list "
                                                 f"{parsed.root_causes} root cause(s) but "
                                                 f"record.csv has {len(window)} failure(s) "
                                                 "in the task's half hour"))
            continue
        tasks.append(Task(row_id, line, q["task_index"].strip(), q["instruction"].strip(),
                          points, window, float(start)))
    return tasks


def _prompt(task: Task, system: str, comps: list[str], reasons: list[str]) -> str:
    n = len(task.failures)
    lines = [task.instruction, "",
             f"System: {system} (OpenRCA). The incident tools serve this task's telemetry "
             "(metrics, logs and, where recorded, traces) in UTC; the times in the task "
             "above, and the times you answer with, are UTC+8.",
             "",
             "End your answer with the root cause(s) as OpenRCA expects them, one object per "
             f"failure ({n} here), keeping only the fields the task asks for:",
             '{"1": {"root cause occurrence datetime": "YYYY-MM-DD HH:MM:SS", '
             '"root cause component": "...", "root cause reason": "..."}}']
    if comps:
        lines += ["", "Possible root cause components: " + ", ".join(comps) + "."]
    if reasons:
        lines += ["Possible root cause reasons: " + ", ".join(reasons) + "."]
    return "\n".join(lines) + "\n"


def _asked(task: Task) -> tuple[bool, bool, bool]:
    p = parse_scoring_points(task.scoring_points)
    return bool(p.components), bool(p.reasons), bool(p.times)


def _minutes(ts: float) -> list[str]:
    base = datetime.fromtimestamp(ts // 60 * 60, CST)
    return [(base + timedelta(minutes=d)).strftime("%Y-%m-%d %H:%M") for d in (-1, 0, 1)]


def answer_object(failures: tuple[Failure, ...]) -> str:
    """The failures as an OpenRCA answer object (what OpenRCA's evaluator parses)."""
    body = ", ".join(
        f'"{i}": {{"root cause occurrence datetime": "{f.cst}", "root cause component": '
        f'"{f.component}", "root cause reason": "{f.reason}"}}'
        for i, f in enumerate(failures, start=1))
    return "{" + body + "}"


def _judge(task: Task, case_id: str, system: str, window: Window, series: list[dict[str, Any]],
           reasons: list[str]) -> tuple[dict[str, Any], list[str]]:
    want_c, want_r, want_t = _asked(task)
    fails = task.failures
    summary = "; ".join(f"at {f.cst} (UTC+8) {f.component} had {f.reason}" for f in fails)
    summary = f"{summary[0].upper()}{summary[1:]}."
    gt_reasons = {f.reason.lower() for f in fails}
    guard = next((r for r in reasons if r.lower() not in gt_reasons and not any(
        r.lower() in g or g in r.lower() for g in gt_reasons)), None)
    right = f"## Root cause\n{summary}"
    dets: dict[str, Any] = {}
    hard: list[dict[str, Any]] = []
    for i, f in enumerate(fails, start=1):
        if want_c:
            did = f"names_{slug(f.component)}"
            dets.setdefault(did, detector(f"The answer names {f.component} as a root-cause "
                                          "component.", [literal_pattern(f.component)],
                                          [right], []))
            hard.append({"id": f"identifies_component_{i}", "all_of": [{"detector": did}]})
        if want_r:
            did = f"asserts_{slug(f.reason)}"
            dets.setdefault(did, detector(f"The answer states {f.reason} as a root-cause "
                                          "reason.", [literal_pattern(f.reason)], [right], []))
            hard.append({"id": f"identifies_reason_{i}", "all_of": [{"detector": did}]})
        if want_t:
            did = f"states_time_{i}"
            dets[did] = detector(f"The answer gives {f.cst} (UTC+8), to the minute (+-1).",
                                 [literal_pattern(m) for m in _minutes(f.ts)], [right], [])
            hard.append({"id": f"identifies_time_{i}", "all_of": [{"detector": did}]})
    if guard is not None:
        did = f"asserts_{slug(guard)}"
        wrong = f"## Root cause\nThe root cause is a {guard}."
        dets[did] = detector(f"The answer states {guard} (not this task's reason) as the "
                             "root cause.", [literal_pattern(guard)], [wrong], [right])
        hard.append({"id": f"avoids_{slug(guard)}_misdiagnosis",
                     "all_of": [{"detector": did, "expect": False}]})
    checks, seen = evidence_checks(window, [f.component for f in fails], series)
    channels = [c for c, has in (("metrics", bool(series)), ("logs", bool(window.logs)),
                                 ("traces", bool(window.spans))) if has]
    judge = {
        "case_id": case_id,
        "ground_truth": {"root_cause": {
            "family": slug(fails[0].reason), "component": fails[0].component,
            "summary": summary, "mechanism": "OpenRCA answer: " + answer_object(fails)}},
        "detectors": dets,
        "judge": {"evidence_collection": {"preferred_channels": channels,
                                          "min_preferred_channels": 1},
                  "critical_evidence": {"checks": checks},
                  "diagnosis": {"mode": "deterministic_only", "hard_checks": hard}},
        "corpus": {"kind": "openrca", "system": system, "row_id": task.row_id,
                   "task_index": task.task_index, "scoring_points": task.scoring_points},
    }
    return judge, seen


def import_openrca(dataset_dir: str | Path, system: str, out: str | Path, *,
                   suite_id: str | None = None) -> ImportReport:
    """Import OpenRCA's ``<dataset_dir>/<system>`` as cases of the registry ``out`` (one per
    task row; suite ``openrca-<system>``). Rows that cannot be imported are listed in the
    report's ``skipped``; the others land."""
    from rcaeval._vocab import EVIDENCE_CHANNELS

    sysdir = Path(dataset_dir) / system
    if not sysdir.is_dir():
        raise NotFoundError(f"{sysdir} is not a directory (DATASET_DIR/{system})")
    root = Path(out)
    sid = check_suite_id(suite_id) or f"openrca-{id_part(system)}"
    report = ImportReport(root, sid)
    tasks = read_tasks(sysdir, report)
    comps, reasons = candidates(system, [f for t in tasks for f in t.failures])
    kinds = frozenset({"metrics", "logs"} | ({"traces"} if "traces" in EVIDENCE_CHANNELS
                                              else set()))
    if "traces" not in kinds:
        report.notes.append("trace CSVs not imported: this rcaeval has no traces channel")
    header = HEADER.format(source=f"{system}/query.csv")
    by_date: dict[str, list[Task]] = {}
    for t in tasks:
        by_date.setdefault(t.date_dir, []).append(t)
    with CaseWriter(root, report, header) as writer:
        for date, group in sorted(by_date.items()):
            _import_date(sysdir / "telemetry" / date, group, writer, kinds, system, sid,
                         comps, reasons)
        writer.commit()
    write_suite(root, {"suite_id": sid, "version": "1",
                       "description": f"OpenRCA {system}: one case per task of query.csv "
                       "(imported by rcaeval import openrca)."}, report.cases, header)
    return report


def _import_date(tdir: Path, group: list[Task], writer: CaseWriter, kinds: frozenset[str],
                 system: str, sid: str, comps: list[str], reasons: list[str]) -> None:
    """Scan one date's telemetry once for all its tasks' windows and stage their cases."""
    report = writer.report
    windows = [Window(i, t.start, t.start + HALF_HOUR) for i, t in enumerate(group)]
    files = sorted(p for sub in ("metric", "log", "trace") if (tdir / sub).is_dir()
                   for p in (tdir / sub).glob("*.csv"))
    for path in files:
        kind = scan_file(path, windows, kinds=kinds)
        unread = any(w.error is not None and w.error.path == path for w in windows)
        if kind is None and path.parent.name != "trace" and not unread:
            report.notes.append(f"{path}: not imported (columns of no known layout)")
    for t, w in zip(group, windows, strict=True):
        where = f"query.csv line {t.line} (row {t.row_id})"
        if w.error is not None:
            report.skipped.append(Skipped(where, f"{w.error.where(str(w.error.path))}: "
                                                 f"{w.error.message}"))
        elif w.empty():
            report.skipped.append(Skipped(where, f"no telemetry in the window "
                                                 f"{iso(w.start)}..{iso(w.end)} under {tdir}"))
        else:
            writer.add(_stage(t, w, system, sid, comps, reasons))


def _stage(t: Task, w: Window, system: str, sid: str, comps: list[str],
           reasons: list[str]) -> StagedCase:
    case_id = f"{sid}-{t.row_id:04d}"
    series = w.series()
    judge, seen = _judge(t, case_id, system, w, series, reasons)
    instances = sorted({s["labels"].get("instance", "") for s in series} | set(w.logs))
    cluster = f"openrca-{id_part(system)}"
    case = {"case_id": case_id, "title": f"OpenRCA {system} task {t.row_id} ({t.task_index})",
            "case_type": "known", "tags": ["openrca", id_part(system), t.task_index],
            "prompt": {"text": _prompt(t, system, comps, reasons)},
            "environment": {"cluster_id": cluster, "product": "openrca"},
            "time_window": {"start": iso(t.start), "end": iso(t.start + HALF_HOUR),
                            "tolerance_s": HALF_HOUR},
            "incident_data": "incident"}
    expected = (f"# {case['title']}\n\nImported from OpenRCA {system}/query.csv line {t.line}."
                f"\n\nGround truth: {judge['ground_truth']['root_cause']['summary']}\n\n"
                "Critical evidence drafted from the window's telemetry:\n\n"
                + "".join(f"- {d}\n" for d in seen))
    topo = {"cluster_id": cluster, "product": "openrca",
            "components": [{"name": i, "instance": i} for i in instances if i]}
    ticket = {"ticket_id": case_id.upper(), "source": "openrca", "summary": t.instruction,
              "cluster_id": cluster, "opened_at": iso(t.start), "alerts": []}
    return StagedCase(case_id, f"query.csv line {t.line} (row {t.row_id})", case, judge,
                      expected, series=series, logs=w.log_lines(), spans=w.spans,
                      topology=topo, ticket=ticket)

