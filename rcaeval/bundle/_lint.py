"""``rcaeval bundle lint DIR``: which contract rule each file of a bundle breaks, and what the
judge will make of it - before anything is run or judged.

Bundle resolution and every file read go through the judge's own code
(:func:`rcaeval.extract.resolve_bundle`, :class:`rcaeval.extract.CaseFS`), so the linter and
the judge agree on which files exist. Consequences are stated for the default judge rules
(``rcaeval/registry/judge_defaults.yaml``); a case's judge.yaml can weigh them differently.
The rules are listed in docs/bundle-sdk.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from rcaeval.bundle import _contract as C
from rcaeval.bundle._casemeta import read_case_meta
from rcaeval.bundle._writer import BundleError, parse_time
from rcaeval.extract import DEFAULT_MAX_FILE_BYTES, CaseFS, parse_json, resolve_bundle

Severity = Literal["error", "warning"]

# rule -> (bucket it lands in, what the judge makes of it with the default rules)
RULES: dict[str, tuple[str, str]] = {
    "bundle_resolved": ("verdict", "invalid (bundle_missing / bundle_ambiguous): nothing else "
                        "is judged"),
    "json": ("-", "the file is recorded as parse_error and read as absent"),
    "too_large": ("-", "over 32 MiB: not parsed, read as absent"),
    "manifest_present": ("execution_contract", "required_artifacts_present fails -> invalid "
                         "(execution_contract_fail); the runner writes it for you"),
    "cluster_id": ("contract", "cluster_scope_match fails -> invalid (contract_fail)"),
    "time_window": ("contract", "time_window_match fails -> invalid (contract_fail)"),
    "core_file": ("evidence_collection", "required_artifacts_present fails -> invalid "
                  "(evidence_collection_fail)"),
    "channel_observed": ("evidence_collection", "preferred_channels_all_observed fails -> "
                         "evidence_collection partial -> fail (evidence_collection_partial)"),
    "no_channel_observed": ("evidence_collection", "preferred_channels_minimum_observed fails "
                            "-> invalid (execution_contract_fail)"),
    "events_persisted": ("evidence_collection", "attempted_events_collection_persisted (soft) "
                         "fails -> a score deduction; the status and verdict do not change"),
    "evidence_id": ("evidence_routing", "refs cannot name this record"),
    "metric_series": ("evidence_collection", "the series' points are not extracted: the "
                      "metrics channel and metric checks do not see them"),
    "log_entry": ("evidence_collection", "the entry is not a log line the judge can match"),
    "query_kind": ("critical_evidence", "kind-based checks (kill queries) do not see it"),
    "gate_check": ("critical_evidence", "checks reading gate_checks.json ($.checks[*].detail) "
                   "do not see it, and the alerts channel is not observed"),
    "trace_span": ("critical_evidence", "checks reading traces.json ($.spans[*]) do not see "
                   "it, and the traces channel is not observed"),
    "milestone": ("workflow", "a required workflow check fails -> workflow partial, and "
                  "required_workflow_present fails -> invalid (execution_contract_fail)"),
    "milestone_optional": ("workflow", "an optional workflow check fails (no verdict change)"),
    "telemetry_event": ("workflow", "the judge ignores the line"),
    "patch_present": ("evidence_routing", "patch_present fails -> fail (evidence_routing_fail)"),
    "patch_valid": ("evidence_routing", "patch_valid_json fails -> fail (evidence_routing_fail)"),
    "patch_item": ("evidence_routing", "items_shape_valid fails -> fail (evidence_routing_fail)"),
    "key_evidence": ("evidence_routing", "key_evidence_present fails -> fail "
                     "(evidence_routing_fail)"),
    "ref_resolvable": ("evidence_routing", "<type>_refs_resolvable fails -> fail for metric/"
                       "query refs, partial for log/event refs"),
    "final_answer": ("diagnosis", "no answer text: no detector fires -> fail (diagnosis_fail)"),
}


@dataclass(frozen=True)
class LintFinding:
    severity: Severity
    file: str
    rule: str
    message: str

    @property
    def bucket(self) -> str:
        return RULES[self.rule][0]

    @property
    def consequence(self) -> str:
        return RULES[self.rule][1]

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "bucket": self.bucket, "consequence": self.consequence}


class _Linter:
    def __init__(self, case_dir: Path, max_file_bytes: int) -> None:
        self.fs = CaseFS(case_dir, max_file_bytes=max_file_bytes)
        self.out: list[LintFinding] = []
        self.bundle = "."

    def add(self, severity: Severity, file: str, rule: str, message: str) -> None:
        self.out.append(LintFinding(severity, file, rule, message))

    def rel(self, name: str) -> str:
        return name if self.bundle == "." else f"{self.bundle}/{name}"

    def find(self, name: str) -> str | None:
        """Bundle dir first, then the case dir (the judge's lookup for shared files)."""
        for rel in dict.fromkeys((self.rel(name), name)):
            if self.fs.lexists(rel):
                return rel
        return None

    def read(self, rel: str) -> bytes | None:
        rec, data = self.fs.read(rel, rel, "lint", keep=False)
        if data is None:
            rule = "too_large" if rec.status == "too_large" else "json"
            self.add("error", rel, rule, f"not read: {rec.status} {rec.detail or ''}".strip())
        return data

    def json(self, name: str, *, required_rule: str | None = None,
             required_msg: str = "") -> Any:
        rel = self.find(name)
        if rel is None:
            if required_rule:
                self.add("error", self.rel(name), required_rule, required_msg or "missing")
            return None
        data = self.read(rel)
        if data is None:
            return None
        ok, doc = parse_json(data)
        if not ok:
            self.add("error", rel, "json", f"not valid JSON: {doc}")
            return None
        return doc


def lint_bundle(case_dir: str | Path, *, case: str | Path | None = None,
                max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[LintFinding]:
    """Lint the bundle in ``case_dir`` (a workspace, an audit dir or a recorded run dir).

    The report's cluster and window are checked against the case's scope: ``case`` (a
    registry case dir or a workspace), else the ``case.json`` a workspace or audit dir holds.
    """
    lt = _Linter(Path(case_dir), max_file_bytes)
    scope = read_case_meta(case, required=True) if case is not None else \
        read_case_meta(case_dir)
    res = resolve_bundle(lt.fs)
    if res.bundle_dir is None:
        lt.add("error", C.REPORT, "bundle_resolved", res.reason)
        return lt.out
    lt.bundle = res.bundle_dir
    manifest = lt.json(C.MANIFEST, required_rule="manifest_present",
                       required_msg="no manifest.json (the runner writes one; a recorded or "
                       "hand-made run dir needs its own)")
    report = lt.json("evidences/workspace_evidence_report.json")
    _lint_report(lt, report if isinstance(report, dict) else {},
                 manifest if isinstance(manifest, dict) else {}, scope)
    ids = _lint_evidence(lt, report if isinstance(report, dict) else {})
    _lint_gate_checks(lt)
    _lint_spans(lt)
    _lint_telemetry(lt)
    _lint_patch(lt, ids)
    out = lt.find(C.OUTPUT)
    text = lt.read(out) if out else None
    if not text or not text.strip():
        lt.add("error", lt.rel(C.OUTPUT), "final_answer",
               "no output.txt answer (the runner writes the agent's final message there when "
               "the agent leaves none)")
    return lt.out


def _lint_report(lt: _Linter, report: dict[str, Any], manifest: dict[str, Any],
                 scope: dict[str, Any]) -> None:
    rep = lt.rel(C.REPORT)
    if not report:
        lt.add("error", rep, "json", "the report is not a JSON object")
    meta = report.get("metadata") if isinstance(report.get("metadata"), dict) else {}
    cluster = meta.get("cluster_id") or manifest.get("cluster_id")
    if not isinstance(cluster, str) or not cluster.strip():
        lt.add("error", rep, "cluster_id", "metadata.cluster_id missing (and no manifest "
               "cluster_id to fall back on)")
    elif scope.get("cluster_id") and cluster != scope["cluster_id"]:
        lt.add("error", rep, "cluster_id", f"cluster {cluster!r} is not the case's "
               f"{scope['cluster_id']!r}")
    win = meta.get("time_window") if isinstance(meta.get("time_window"), dict) else None
    win = win if win and win.get("start") and win.get("end") else manifest.get("time_window")
    if not isinstance(win, dict) or not win.get("start") or not win.get("end"):
        lt.add("error", rep, "time_window", "metadata.time_window.start/end missing (and none "
               "in the manifest)")
    else:
        try:
            start, end = parse_time(win["start"], "start"), parse_time(win["end"], "end")
            if start > end:
                lt.add("error", rep, "time_window", f"start {win['start']} is after end "
                       f"{win['end']}")
            elif scope.get("start") and scope.get("end"):
                tol = scope.get("tolerance_s")
                tol = _default_tolerance_s() if tol is None else tol
                if isinstance(tol, bool) or not isinstance(tol, int | float) \
                        or not 0 <= tol <= 10**9:
                    raise BundleError("time_window", f"the case's tolerance_s {tol!r:.40} is "
                                      "not a number of seconds (0 .. 1e9)")
                # compared as Unix seconds: a window at year 1 or 9999 minus the tolerance
                # is no date, but still a number
                if (start.timestamp() < parse_time(scope["start"], "case start").timestamp()
                        - tol or end.timestamp()
                        > parse_time(scope["end"], "case end").timestamp() + tol):
                    lt.add("error", rep, "time_window", f"window {win['start']} .. {win['end']} "
                           f"is outside the case's {scope['start']} .. {scope['end']} "
                           f"(tolerance {float(tol):g} s)")
        except BundleError as exc:
            lt.add("error", rep, "time_window", str(exc).split("] ", 1)[-1])


def _default_tolerance_s() -> float:
    from rcaeval.registry import TimeWindow

    return float(TimeWindow.model_fields["tolerance_s"].default)


def _records(lt: _Linter, path: str, key: str) -> list[Any] | None:
    doc = lt.json(path)
    if doc is None:
        return None
    items = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(items, list):
        lt.add("error", lt.rel(path), "json", f"expected an object with a {key!r} list")
        return []
    return items


def _lint_evidence(lt: _Linter, report: dict[str, Any]) -> dict[str, set[str]]:
    ids: dict[str, set[str]] = {ch: set() for ch in C.CHANNELS}
    observed: dict[str, bool] = {}
    for ch in C.CHANNELS:
        path = C.CHANNEL_FILES[ch]
        items = _records(lt, path, C.LIST_KEYS[path])
        if items is None and path in C.CORE_FILES:
            lt.add("error", lt.rel(path), "core_file", "missing: the core bundle is the report, "
                   "metrics.json, queries.json and logs.json (write an empty list for a channel "
                   "that yielded nothing)")
        seen = 0
        for i, rec in enumerate(items or []):
            where = f"{lt.rel(path)} [{C.LIST_KEYS[path]}[{i}]]"
            if not isinstance(rec, dict):
                lt.add("error", where, "json", "a record must be a JSON object")
                continue
            rid = rec.get("id")
            if not isinstance(rid, str) or not rid.strip():
                lt.add("warning", where, "evidence_id", "record has no id")
            elif rid in ids[ch]:
                lt.add("warning", where, "evidence_id", f"duplicate id {rid!r}")
            else:
                ids[ch].add(rid)
            seen += _record_ok(lt, ch, where, rec)
        observed[ch] = seen > 0
    if not observed["logs"]:  # logs/*.log lines count too
        log_dir = lt.rel("logs")
        names = lt.fs.listdir(log_dir, log_dir, "logs") if lt.fs.is_real_dir(log_dir) else None
        observed["logs"] = bool(names)
    missing = [ch for ch in C.CHANNELS if not observed[ch]]
    if len(missing) == len(C.CHANNELS):
        lt.add("error", lt.rel("evidences/"), "no_channel_observed",
               "no channel has a single record (a series with a point, a query, a log line, "
               "an event)")
    elif missing:
        lt.add("warning", lt.rel("evidences/"), "channel_observed",
               "channels with no record: " + ", ".join(missing))
    chans = report.get("channels") if isinstance(report.get("channels"), dict) else {}
    ev = chans.get("events") if isinstance(chans.get("events"), dict) else {}
    if ev.get("attempted") is True and lt.find(C.CHANNEL_FILES["events"]) is None and not (
            isinstance(report.get("evidence"), dict) and "events" in report["evidence"]):
        lt.add("warning", lt.rel(C.CHANNEL_FILES["events"]), "events_persisted",
               "the report says events were attempted but no events.json was written")
    return ids


def _record_ok(lt: _Linter, ch: str, where: str, rec: dict[str, Any]) -> int:
    """Check one record's shape; 1 when it counts as an observation of its channel."""
    if ch == "metrics":
        pts = rec.get("points")
        good = 0
        for j, p in enumerate(pts if isinstance(pts, list) else []):
            if (isinstance(p, list) and len(p) == 2 and isinstance(p[1], (int, float))
                    and not isinstance(p[1], bool)):
                good += 1
            else:
                lt.add("error", f"{where}.points[{j}]", "metric_series",
                       f"expected [timestamp, number], got {p!r}"[:200])
        if not isinstance(rec.get("name"), str):
            lt.add("error", where, "metric_series", "series has no name")
        return int(good > 0)
    if ch == "logs":
        if not isinstance(rec.get("message"), str):
            lt.add("error", where, "log_entry", "log entry has no message string")
            return 0
        return 1
    if ch == "queries" and rec.get("kind") is not None and rec["kind"] not in C.QUERY_KINDS:
        lt.add("warning", where, "query_kind", f"kind {rec['kind']!r} is not one of "
               + ", ".join(C.QUERY_KINDS))
    return 1


def _lint_gate_checks(lt: _Linter) -> None:
    """The alerts channel's file, when there is one: every check a name, a known status and
    a detail string."""
    items = _records(lt, C.GATE_CHECKS, C.LIST_KEYS[C.GATE_CHECKS])
    for i, rec in enumerate(items or []):
        where = f"{lt.rel(C.GATE_CHECKS)} [checks[{i}]]"
        if not isinstance(rec, dict):
            lt.add("error", where, "gate_check", "a check must be a JSON object")
            continue
        if not isinstance(rec.get("name"), str) or not rec["name"].strip():
            lt.add("error", where, "gate_check", "check has no name")
        if not isinstance(rec.get("detail"), str):
            lt.add("error", where, "gate_check", "check has no detail string")
        if rec.get("status") not in C.GATE_STATUSES:
            lt.add("warning", where, "gate_check", f"status {rec.get('status')!r} is not one "
                   "of " + ", ".join(C.GATE_STATUSES))


def _lint_spans(lt: _Linter) -> None:
    """The traces channel's file, when there is one: every span its ids, service, operation
    and a known status."""
    for i, rec in enumerate(_records(lt, C.TRACES, C.LIST_KEYS[C.TRACES]) or []):
        where = f"{lt.rel(C.TRACES)} [spans[{i}]]"
        if not isinstance(rec, dict):
            lt.add("error", where, "trace_span", "a span must be a JSON object")
            continue
        missing = [k for k in ("id", "trace_id", "span_id", "service", "operation")
                   if not isinstance(rec.get(k), str) or not rec[k].strip()]
        if missing:
            lt.add("error", where, "trace_span", "span has no " + ", ".join(missing))
        if rec.get("status") not in C.SPAN_STATUSES:
            lt.add("warning", where, "trace_span", f"status {rec.get('status')!r} is not one "
                   "of " + ", ".join(C.SPAN_STATUSES))


def _lint_telemetry(lt: _Linter) -> None:
    rel = lt.find(C.TELEMETRY)
    seen: set[str] = set()
    if rel is not None:
        data = lt.read(rel) or b""
        for no, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                ev = orjson.loads(line)
            except orjson.JSONDecodeError:
                lt.add("warning", f"{rel}:{no}", "telemetry_event", "not a JSON line")
                continue
            name = ev.get("event") if isinstance(ev, dict) else None
            if name not in C.MILESTONES:
                if not (isinstance(name, str) and "." in name):
                    lt.add("warning", f"{rel}:{no}", "telemetry_event",
                           f"event {name!r} is not a milestone the judge knows")
                continue
            if str(ev.get("status", "")).lower() in C.FAILED_STATUSES:
                continue
            seen.add(name)
    where = rel or lt.rel(C.TELEMETRY)
    for event, fact in C.REQUIRED_MILESTONES.items():
        if event not in seen:
            lt.add("error", where, "milestone", f"no {event} milestone ({fact})")
    summary = any(lt.find(p) for p in C.SUMMARY_FILES)
    if "summary.read" not in seen and not summary:
        lt.add("warning", where, "milestone_optional",
               "no summary.read milestone and no evidence summary file")


def _lint_patch(lt: _Linter, ids: dict[str, set[str]]) -> None:
    rel = lt.find(C.PATCH)
    if rel is None:
        lt.add("error", lt.rel(C.PATCH), "patch_present", "no analysis_patch.json")
        return
    doc = lt.json(C.PATCH)
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        lt.add("error", rel, "patch_valid", "expected a JSON object with an items list")
        return
    key = False
    for i, it in enumerate(items):
        where = f"{rel} [items[{i}]]"
        if not isinstance(it, dict) or not all(k in it for k in ("id", "claim", "role")) \
                or not isinstance(it.get("refs"), list):
            lt.add("error", where, "patch_item", "an item needs id, claim, role and a refs list")
            continue
        if it["role"] == "key" and it["refs"]:
            key = True
        for j, r in enumerate(it["refs"]):
            rtype = r.get("type") if isinstance(r, dict) else None
            rid = r.get("id") if isinstance(r, dict) else None
            if rtype not in C.REF_TYPES:
                lt.add("error", f"{where}.refs[{j}]", "ref_resolvable",
                       f"ref type {rtype!r} is not one of {', '.join(C.REF_TYPES)}")
            elif rid not in ids[C.REF_TYPES[rtype]]:
                sev: Severity = "error" if rtype in ("metric", "query") else "warning"
                lt.add(sev, f"{where}.refs[{j}]", "ref_resolvable",
                       f"{rtype} {rid!r} is not an id in {C.CHANNEL_FILES[C.REF_TYPES[rtype]]}")
    if not key:
        lt.add("error", rel, "key_evidence", "no item with role 'key' cites evidence")
