"""Extraction of one case dir into payload tables for every raw table."""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from rcaeval._seal import RUNNER_SEAL, SEAL_FILE, parse_key
from rcaeval.extract._evidence import (
    flatten_events,
    flatten_metrics,
    flatten_queries,
    report_events,
)
from rcaeval.extract._group import CaseParts, GroupBuilder
from rcaeval.extract._integrity import incident_index, integrity_table
from rcaeval.extract._jsonflat import bulk_paths, json_rows
from rcaeval.extract._logs import flatten_log_text, flatten_logs_json, flatten_telemetry
from rcaeval.extract._output import flatten_output, transcript_answers
from rcaeval.extract._patch import flatten_patch
from rcaeval.extract._resolve import EXTRACT_ERROR, resolve_bundle, workspace_id_of
from rcaeval.extract._safe import (
    DEFAULT_MAX_FILE_BYTES,
    NONFINITE_NOTE,
    CaseFS,
    FileRecord,
    decode_text,
    parse_json,
)
from rcaeval.extract._schema import PAYLOAD_SCHEMAS
from rcaeval.extract._values import text

CaseTables = dict[str, pa.Table]
"""Raw table name → rows of one case (``run_id``/``case_id`` included)."""

EVIDENCE_KINDS = {
    "workspace_evidence_report.json": "report",
    "metrics.json": "metrics",
    "queries.json": "queries",
    "logs.json": "logs",
    "events.json": "events",
    "collection_errors.json": "collection_errors",
    "gate_checks.json": "gate_checks",
    "traces.json": "traces",
    "component_health.json": "component_health",
    "ticket_context.json": "ticket_context",
    "evidence_summary_for_agent.json": "summary",
    "evidence_summary_for_agent.txt": "summary",
    "seals.json": "seals",
}


@dataclass(frozen=True, order=True)
class CaseRef:
    """One case run to extract: its keys and its audit directory."""

    run_id: str
    case_id: str
    case_dir: Path
    id_problem: str | None = field(default=None, compare=False)
    """Why the manifest's ``run_id``/``case_id`` could not be used (file and field): the
    ids are then the directory names and the case is judged ``invalid`` (``bundle_id_invalid``)."""
    registry_case: Path | None = field(default=None, compare=False)
    """The registry's case dir (case.yaml + incident/): evidence is cross-checked against its
    incident data (``raw_evidence_check``); ``None``: not cross-checked."""
    registry_incident: Path | None = field(default=None, compare=False)
    """Its incident data dir when not ``registry_case/incident``."""


def _json_type(value: Any) -> str:
    """The JSON type name of a parsed value (``array``, ``string``, ``number``, ...)."""
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "object" if isinstance(value, dict) else "null"


def _join(base: str | None, rel: str) -> str:
    return rel if base in (None, "", ".") else f"{base}/{rel}"


class _CaseExtraction:
    def __init__(self, ref: CaseRef, max_file_bytes: int) -> None:
        self.ref = ref
        self.fs = CaseFS(ref.case_dir, max_file_bytes=max_file_bytes)
        self.parts: dict[str, list[pa.Table]] = defaultdict(list)
        self.json: list[tuple[str, list[Any]]] = []
        self.bundle: str | None = None
        self.docs: dict[str, Any] = {}

    def locate(self, name: str) -> str | None:
        """``name`` in the bundle dir, else in the case dir (case-relative path or None)."""
        bases = [self.bundle] if self.bundle not in (None, ".") else []
        for base in [*bases, "."]:
            rel = _join(base, name)
            if self.fs.lexists(rel):
                return rel
        return None

    def load_json(self, rel: str, label: str, kind: str) -> tuple[FileRecord, bool, Any]:
        rec, data = self.fs.read(rel, label, kind)
        if data is None:
            return rec, False, None
        ok, obj = parse_json(data, rec)
        if ok:
            # a document read leniently (bare NaN / Infinity) keeps every value a row: the
            # non-finite numbers are facts of their own (docs/extract.md)
            elide = frozenset() if NONFINITE_NOTE in rec.notes else bulk_paths(kind, obj)
            self.json.append((label, json_rows(obj, elide=elide)))
        return rec, ok, obj

    def load_text(self, rel: str, label: str, kind: str) -> str | None:
        rec, data = self.fs.read(rel, label, kind)
        return None if data is None else decode_text(data, rec)

    def evidences(self) -> None:
        ev = _join(self.bundle, "evidences")
        for name in self.fs.listdir(ev, "evidences", "evidences") or []:
            rel, label = f"{ev}/{name}", f"evidences/{name}"
            if self.fs.inside(rel) and os.path.isdir(self.fs.root / rel):
                continue
            kind = EVIDENCE_KINDS.get(name, "evidence")
            if not name.endswith(".json"):
                self.fs.read(rel, label, kind)
                continue
            rec, ok, obj = self.load_json(rel, label, kind)
            if not ok:
                continue
            self.docs[label] = obj
            if kind == "metrics":
                self.parts["raw_metric_point"].append(flatten_metrics(obj, rec.notes))
            elif kind == "queries":
                self.parts["raw_query"].append(flatten_queries(obj, rec.notes))
            elif kind == "logs":
                self.parts["raw_log_line"].append(flatten_logs_json(obj, label, rec.notes))
            elif kind == "events":
                self.parts["raw_event"].append(flatten_events(obj, "events.json", rec.notes))
            elif kind == "report":
                if not isinstance(obj, dict):
                    rec.note(f"report is not a JSON object (got {_json_type(obj)}); "
                             "its fields are ignored")
                inline = report_events(obj)
                if inline is not None:
                    self.parts["raw_event"].append(flatten_events(inline, "report", rec.notes))

    def logs_dir(self) -> None:
        rel_dir = self.locate("logs")
        if rel_dir is None:
            return
        for name in self.fs.listdir(rel_dir, "logs", "log") or []:
            if not name.endswith(".log"):
                continue
            label = f"logs/{name}"
            content = self.load_text(f"{rel_dir}/{name}", label, "log")
            if content is not None:
                self.parts["raw_log_line"].append(flatten_log_text(content, label))

    def run(self) -> CaseParts:
        res = resolve_bundle(self.fs)
        self.bundle = res.bundle_dir
        manifest = None
        rel = self.locate("manifest.json")
        if rel is not None:
            rec, ok, manifest = self.load_json(rel, "manifest.json", "manifest")
            if ok and not isinstance(manifest, dict):
                rec.note(f"manifest is not a JSON object (got {_json_type(manifest)}); "
                         "its fields are ignored")
        if self.bundle is not None:
            self.evidences()
        rel = self.locate("analysis_patch.json")
        if rel is not None:
            rec, ok, obj = self.load_json(rel, "analysis_patch.json", "patch")
            if ok:
                items, refs = flatten_patch(obj, rec.notes)
                self.parts["raw_patch_item"].append(items)
                self.parts["raw_patch_ref"].append(refs)
        rel = self.locate(".opencode/telemetry.log")
        if rel is not None:
            content = self.load_text(rel, ".opencode/telemetry.log", "telemetry")
            if content is not None:
                self.parts["raw_telemetry"].append(flatten_telemetry(content))
        self.logs_dir()
        self.output()
        if self.docs:
            self.parts["raw_evidence_check"].append(self.integrity())

        bundle = {"case_dir": str(self.fs.root), "bundle_dir": res.bundle_dir,
                  "status": res.status, "reason": res.reason,
                  "workspace_id": workspace_id_of(res.bundle_dir, manifest),
                  "manifest_status": text(manifest.get("status"))
                  if isinstance(manifest, dict) else None}
        return CaseParts(bundle=bundle, files=[rec.as_row() for rec in self.fs.records],
                         json=self.json, tables=dict(self.parts))

    def integrity(self) -> pa.Table:
        """Seal and incident-data checks of the evidence records (``raw_evidence_check``).
        The key is the runner's ``seal.json`` at the audit root, never a bundle file."""
        key = None
        if self.fs.lexists(RUNNER_SEAL):  # read, never flattened: the key stays out of raw_json
            rec, data = self.fs.read(RUNNER_SEAL, RUNNER_SEAL, "seal_key")
            ok, doc = parse_json(data, rec) if data is not None else (False, None)
            key = parse_key(doc) if ok else None
            if ok and key is None:
                rec.note("not a seal key document: records are not checked against seals")
        seals = self.docs.get(SEAL_FILE)
        seals = seals.get("seals") if isinstance(seals, dict) else None
        index = incident_index(self.ref.registry_case, self.ref.registry_incident)
        return integrity_table(self.docs, key, seals, index)

    def output(self) -> None:
        output = None
        output_rel = self.locate("output.txt")
        if output_rel is not None:
            output = self.load_text(output_rel, "output.txt", "output")
        answers: list[str] = []
        rel = self.locate("transcript.json")
        if rel is not None:
            rec, data = self.fs.read(rel, "transcript.json", "transcript")
            if data is not None:
                ok, obj = parse_json(data, rec)
                answers = transcript_answers(obj) if ok else []
        if output_rel is None and answers:  # no output.txt: the first answer stands in
            output = answers[0]
        if output is not None or len(answers) > 1:
            self.parts["raw_output_sentence"].append(flatten_output(output, answers[1:]))


def case_parts(ref: CaseRef, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> CaseParts:
    """Extract one case dir into its rows, before they are assembled into Arrow tables.

    Raises ``FileNotFoundError`` when the case dir is not a directory; every problem with
    the files inside it is recorded as data (``raw_bundle.status``, ``raw_file.status``).
    """
    if not Path(ref.case_dir).is_dir():
        raise FileNotFoundError(f"case dir {ref.case_dir} is not a directory")
    return _CaseExtraction(ref, max_file_bytes).run()


def error_parts(ref: CaseRef, reason: str) -> CaseParts:
    """The rows recording that extracting a case failed: one ``extract_error`` raw_bundle."""
    return CaseParts(bundle={"case_dir": str(ref.case_dir), "status": EXTRACT_ERROR,
                             "reason": reason})


def _single(ref: CaseRef, parts: CaseParts) -> CaseTables:
    group = GroupBuilder()
    group.add(ref.run_id, ref.case_id, parts)
    return {name: table.drop_columns(["case_pos"]).cast(
        pa.schema([("run_id", pa.string()), ("case_id", pa.string()),
                   *list(PAYLOAD_SCHEMAS[name])]))
            for name, table in group.finish().items()}


def extract_case(ref: CaseRef, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> CaseTables:
    """Extract one case dir into rows for every raw table.

    Raises ``FileNotFoundError`` when the case dir is not a directory; every problem with
    the files inside it is recorded as data (``raw_bundle.status``, ``raw_file.status``).
    """
    return _single(ref, case_parts(ref, max_file_bytes=max_file_bytes))


def error_tables(ref: CaseRef, reason: str) -> CaseTables:
    """The rows recording that extracting a case failed: one ``extract_error`` raw_bundle."""
    return _single(ref, error_parts(ref, reason))
