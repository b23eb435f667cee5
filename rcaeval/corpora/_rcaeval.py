"""``rcaeval import rcaeval``: RCAEval's RE1 / RE2 / RE3 layouts as registry cases
(docs/import.md, "RCAEval").

    RE_DIR/.../<service>_<fault>/<n>/inject_time.txt  the fault's start, epoch seconds
    RE_DIR/.../<service>_<fault>/<n>/metrics.csv      time,<service>_<metric>,... (RE2/RE3;
                                                      RE1: data.csv; or simple_metrics.csv)
    RE_DIR/.../<service>_<fault>/<n>/logs.csv         time,timestamp,container_name,message,...
    RE_DIR/.../<service>_<fault>/<n>/traces.csv       time,traceID,spanID,serviceName,...

The ground truth is in the folder names, so a case id is a hash of the case's path
(``<dataset>-<12 hex>``) and nothing written to case.yaml or incident/ carries the folder
names: the path goes to judge.yaml only. As in RCAEval's own evaluation the fault's start
(``inject_time.txt``) is given to the agent, with the 10 minutes of telemetry before and after
it; the agent names the root-cause service (and the fault).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval._inputs import read_input
from rcaeval.corpora._csv import Window, epoch_seconds, scan_file
from rcaeval.corpora._judging import detector, evidence_checks, literal_pattern
from rcaeval.corpora._write import (
    CaseWriter,
    ImportReport,
    Skipped,
    StagedCase,
    check_suite_id,
    id_part,
    iso,
    opaque_id,
    slug,
    write_suite,
)
from rcaeval.errors import InputError, NotFoundError

METRIC_FILES = ("metrics.csv", "data.csv", "simple_metrics.csv")
"""The metrics file of a case dir, the first one present (RE2/RE3, RE1, the reduced set)."""
HALF_WINDOW_S = 600
"""Seconds of telemetry kept on each side of the fault's start (RCAEval's default length)."""
FAULTS: dict[str, tuple[str, list[str]]] = {
    "cpu": ("cpu_exhaustion", [r"cpu[^.]{0,20}(?:hog|exhaust|stress|saturat|spike|contention|"
                               r"load|usage|starv)", r"high[^.]{0,10}cpu"]),
    "mem": ("memory_exhaustion", [r"memory[^.]{0,20}(?:leak|exhaust|stress|pressure|hog|"
                                  r"usage|load)", r"high[^.]{0,10}memory", r"\boom\b",
                                  r"out of memory"]),
    "disk": ("disk_io_stress", [r"disk[^.]{0,20}(?:stress|hog|pressure|saturat|load|usage)",
                                r"high[^.]{0,10}disk", r"\bi/?o (?:stress|load)"]),
    "delay": ("network_delay", [r"network[^.]{0,20}(?:delay|latency)",
                                r"(?:delay|latency) (?:injection|fault)"]),
    "loss": ("packet_loss", [r"packet[^.]{0,10}loss", r"network[^.]{0,10}loss"]),
    "socket": ("socket_exhaustion", [r"socket"]),
}
"""RCAEval's fault folder suffixes: the ground-truth family and how an answer names it.
Other suffixes (RE3's code-level faults ``f1`` .. ``f5``) are family ``code_fault`` and
judged on the service only."""
HEADER = ("Imported by `rcaeval import rcaeval` (docs/import.md).\n"
          "Re-running the import replaces this file.")


@dataclass(frozen=True)
class CaseDir:
    path: Path
    rel: str
    service: str
    fault: str
    dataset: str


def _dataset(rel_parts: tuple[str, ...], root: Path) -> str:
    for part in (root.name, *rel_parts):
        if re.fullmatch(r"RE\d-[A-Za-z]+", part):
            return part
    return root.name or "rcaeval"


def find_cases(root: Path) -> list[CaseDir]:
    """Every case dir under ``root`` (a dir holding inject_time.txt), in path order."""
    out = []
    for inject in sorted(root.rglob("inject_time.txt")):
        d = inject.parent
        rel = d.relative_to(root)
        parent = d.parent.name if d != root else ""
        service, _, fault = parent.rpartition("_")
        ds_parts = tuple(rel.parts[:-2]) if len(rel.parts) >= 2 else ()
        out.append(CaseDir(d, rel.as_posix(), service, fault,
                           _dataset(ds_parts, root)))
    return out


def _prompt(dataset: str, inject: float, services: list[str]) -> str:
    return (f"A fault was injected into one service of this microservice system (RCAEval "
            f"{dataset}) at {iso(inject)}; its metrics"
            " (and, where recorded, logs and traces) from 10 minutes before to 10 minutes "
            "after that moment are served by the incident tools. Find the root-cause service "
            "and the kind of fault (CPU, memory, disk, network delay, packet loss, socket, or "
            "a code-level fault).\n\n"
            "Start your conclusion with the root-cause service; you may add a ranked list of "
            "the next most likely services.\n\n"
            "Services: " + ", ".join(services) + ".\n")


def import_rcaeval(re_dir: str | Path, out: str | Path, *,
                   suite_id: str | None = None) -> ImportReport:
    """Import every RCAEval case dir under ``re_dir`` as a case of the registry ``out``
    (suite ``rcaeval-<re_dir name>``). Case dirs that cannot be imported are listed in the
    report's ``skipped`` (by a case id, never by the folder names); the others land."""
    from rcaeval._vocab import EVIDENCE_CHANNELS

    root = Path(re_dir)
    if not root.is_dir():
        raise NotFoundError(f"{root} is not a directory (an RCAEval RE1/RE2/RE3 dataset dir)")
    sid = check_suite_id(suite_id) or f"rcaeval-{id_part(root.name)}"
    report = ImportReport(Path(out), sid)
    kinds = frozenset({"metrics", "logs"} | ({"traces"} if "traces" in EVIDENCE_CHANNELS
                                              else set()))
    if "traces" not in kinds:
        report.notes.append("traces.csv not imported: this rcaeval has no traces channel")
    found = find_cases(root)
    if not found:
        raise NotFoundError(f"no RCAEval case dir (one holding inject_time.txt) under {root}")
    with CaseWriter(Path(out), report, HEADER) as writer:
        for cd in found:
            case_id = opaque_id(id_part(cd.dataset), cd.rel)
            err = _stage(cd, case_id, kinds, writer)
            if err is not None:
                report.skipped.append(Skipped(f"case {case_id}", err))
        writer.commit()
    write_suite(Path(out), {"suite_id": sid, "version": "1",
                            "description": f"RCAEval {root.name}: one case per fault "
                            "injection (imported by rcaeval import rcaeval)."},
                report.cases, HEADER)
    return report


def _stage(cd: CaseDir, case_id: str, kinds: frozenset[str], writer: CaseWriter) -> str | None:
    """Stage one case dir; returns why it was skipped (never naming the folders)."""
    inject_path = cd.path / "inject_time.txt"
    try:
        raw = read_input(inject_path, "config")
    except InputError as exc:  # a FIFO, a directory, an unreadable file
        return f"inject_time.txt: {exc.message}"  # the message only: no folder names
    except NotFoundError:
        return "inject_time.txt: no such file (removed while importing?)"
    text = raw.decode("utf-8", "replace").strip().splitlines()
    inject = epoch_seconds(text[0]) if text else None
    if inject is None:
        return (f"inject_time.txt line 1: unknown timestamp format "
                f"{(text[0] if text else '')[:40]!r}")
    if not cd.service or not cd.fault:
        return "its folder is not named <service>_<fault>"
    metrics = next((cd.path / m for m in METRIC_FILES if os.path.lexists(cd.path / m)), None)
    if metrics is None:
        return "no metrics file (" + ", ".join(METRIC_FILES) + ")"
    window = Window(0, inject - HALF_WINDOW_S, inject + HALF_WINDOW_S)
    for name in (metrics.name, "logs.csv", "traces.csv"):
        if os.path.lexists(cd.path / name):  # a FIFO or dir is marked by scan_file
            scan_file(cd.path / name, [window], kinds=kinds)
    if window.error is not None:
        return f"{window.error.where(window.error.path.name, ' line ')}: {window.error.message}"
    series = window.series()
    if not series:
        return (f"{metrics.name}: no metric point in the window "
                f"{iso(window.start)}..{iso(window.end)}")
    services = sorted({s["labels"].get("instance", "") for s in series} - {""})
    writer.add(_case(cd, case_id, inject, window, series, services))
    return None


def _case(cd: CaseDir, case_id: str, inject: float, window: Window,
          series: list[dict[str, Any]], services: list[str]) -> StagedCase:
    family, fault_patterns = FAULTS.get(cd.fault, ("code_fault", []))
    words = family.replace("_", " ")
    summary = f"{cd.service} is the root cause: a {words} fault was injected into it."
    right = f"## Root cause\n{summary}"
    svc_det = f"names_{slug(cd.service)}"
    dets: dict[str, Any] = {svc_det: detector(
        f"The answer names {cd.service} as the root-cause service.",
        [literal_pattern(cd.service)], [right], [])}
    hard: list[dict[str, Any]] = [{"id": "identifies_service", "all_of": [{"detector": svc_det}]}]
    supporting: list[dict[str, Any]] = []
    if fault_patterns:
        fdet = f"asserts_{family}"
        dets[fdet] = detector(f"The answer names the fault: {words}.", fault_patterns,
                              [right], [])
        supporting.append({"id": "identifies_fault", "all_of": [{"detector": fdet}]})
    other = next((s for s in services if s != cd.service and cd.service not in s
                  and s not in cd.service), None)
    if other is not None:
        gdet = f"asserts_{slug(other)}"
        dets[gdet] = detector(f"The answer names {other} (not the faulty service) as the "
                              "root cause.", [literal_pattern(other)],
                              [f"## Root cause\nThe root cause is a {other}."], [right])
        hard.append({"id": f"avoids_{slug(other)}_misdiagnosis",
                     "all_of": [{"detector": gdet, "expect": False}]})
    checks, seen = evidence_checks(window, [cd.service], series)
    channels = [c for c, has in (("metrics", True), ("logs", bool(window.logs)),
                                 ("traces", bool(window.spans))) if has]
    diagnosis: dict[str, Any] = {"mode": "deterministic_only", "hard_checks": hard}
    if supporting:
        diagnosis["supporting_checks"] = supporting
    judge = {"case_id": case_id,
             "ground_truth": {"root_cause": {"family": family, "component": cd.service,
                                             "summary": summary}},
             "detectors": dets,
             "judge": {"evidence_collection": {"preferred_channels": channels,
                                               "min_preferred_channels": 1},
                       "critical_evidence": {"checks": checks},
                       "diagnosis": diagnosis},
             "corpus": {"kind": "rcaeval", "system": cd.dataset, "source": cd.rel}}
    cluster = f"rcaeval-{id_part(cd.dataset)}"
    case = {"case_id": case_id, "title": f"RCAEval {cd.dataset} case {case_id[-12:]}",
            "case_type": "known", "tags": ["rcaeval", id_part(cd.dataset)],
            "prompt": {"text": _prompt(cd.dataset, inject, services)},
            "environment": {"cluster_id": cluster, "product": "rcaeval"},
            "time_window": {"start": iso(window.start), "end": iso(window.end),
                            "tolerance_s": HALF_WINDOW_S},
            "incident_data": "incident"}
    topo = {"cluster_id": cluster, "product": "rcaeval",
            "components": [{"name": s, "instance": s} for s in services]}
    ticket = {"ticket_id": case_id.upper(), "source": "rcaeval",
              "summary": f"Fault injected at {iso(inject)}; find the root-cause service.",
              "cluster_id": cluster, "opened_at": iso(inject), "alerts": []}
    expected = (f"# RCAEval {cd.dataset} {cd.rel}\n\nGround truth: {summary}\n\n"
                "Critical evidence drafted from the window's telemetry:\n\n"
                + "".join(f"- {d}\n" for d in seen))
    return StagedCase(case_id, f"case {case_id}", case, judge, expected, series=series,
                      logs=window.log_lines(), spans=window.spans, topology=topo,
                      ticket=ticket)
