"""JUnit XML of a run's results document (``rcaeval run --junit-xml``), for CI systems that
show test reports (GitHub Actions, GitLab, Jenkins). docs/results.md describes the mapping.

One ``<testsuite>`` per run (per repeat), one ``<testcase>`` per case in it:
``classname`` = ``<suite_id>.<case_type>``, ``name`` = the case id (``<case id> [repeat i/K]``
with repeats), ``time`` = the case's wall clock. A ``fail``/``invalid`` verdict is a
``<failure>`` whose message lists the failing checks; an ``errored``/``timed_out`` case is an
``<error>`` (infrastructure); a quarantined case that did not pass is ``<skipped>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

MESSAGE_CHECKS = 5
"""Failing checks named in a failure's message (all of them are in its body)."""


def _check_line(ch: dict[str, Any]) -> str:
    where = ""
    if ch.get("evidence_file"):
        where = f" [{ch['evidence_file']}"
        where += f":{ch['evidence_line']}]" if ch.get("evidence_line") is not None else "]"
    req = "required" if ch.get("required") else "optional"
    return f"{ch['bucket']}/{ch['check_id']} ({req}): {ch.get('reason') or ''}{where}"


def _failure_message(a: dict[str, Any]) -> str:
    checks = a["failing_checks"]
    named = ", ".join(f"{c['bucket']}/{c['check_id']}" for c in checks[:MESSAGE_CHECKS])
    more = f" and {len(checks) - MESSAGE_CHECKS} more" if len(checks) > MESSAGE_CHECKS else ""
    head = f"verdict {a['verdict']} ({a['subtype'] or 'no subtype'})"
    return f"{head}: failing checks {named}{more}" if checks else f"{head}: {a['reason'] or ''}"


def _body(a: dict[str, Any]) -> str:
    lines = [f"reason: {a['reason']}"] if a.get("reason") else []
    lines += [f"- {_check_line(c)}" for c in a["failing_checks"]]
    lines += [f"file {p['file']}: {p['status']} {p.get('detail') or ''}".rstrip()
              for p in a.get("parse_errors") or []]
    if a.get("error"):
        lines.append(f"error: {a['error']}")
    return "\n".join(lines)


def _sandbox_of(run: dict[str, Any], i: int) -> str:
    """The effective sandbox of the ``i``-th run (one value for all, or one per repeat)."""
    sb = run.get("sandbox")
    if isinstance(sb, list):
        sb = sb[i - 1] if i <= len(sb) else None
    return sb or "unknown"


def junit_xml(doc: dict[str, Any]) -> ET.ElementTree:
    """The JUnit tree of a results document (:func:`rcaeval.report.run_results`)."""
    run = doc["run"]
    k = run["repeat"]
    root = ET.Element("testsuites", name=f"rcaeval {run['suite_id']}")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for i, run_id in enumerate(run["run_ids"], 1):
        suite = ET.SubElement(root, "testsuite", name=f"{run['suite_id']} ({run_id})")
        props = ET.SubElement(suite, "properties")
        for key, value in (("run_id", run_id), ("suite_version", run["suite_version"]),
                           ("agent_spec", run["agent_spec"]), ("repeat", f"{i}/{k}"),
                           ("sandbox", _sandbox_of(run, i))):
            ET.SubElement(props, "property", name=key, value=str(value))
        counts = dict.fromkeys(totals, 0)
        counts["time"] = 0.0
        for case in doc["cases"]:
            a = next((x for x in case["attempts"] if x["repeat"] == i), None)
            if a is None:
                continue
            name = case["case_id"] if k == 1 else f"{case['case_id']} [repeat {i}/{k}]"
            seconds = float(a["duration_s"] or 0.0)
            tc = ET.SubElement(suite, "testcase", name=name,
                               classname=f"{run['suite_id']}.{case['case_type'] or 'case'}",
                               time=f"{seconds:.3f}")
            if a.get("lab"):
                lab_props = ET.SubElement(tc, "properties")
                for key, value in a["lab"].items():
                    if value is not None:
                        ET.SubElement(lab_props, "property", name=f"lab.{key}",
                                      value=str(value))
            counts["tests"] += 1
            counts["time"] += seconds
            outcome = a["outcome"]
            if outcome == "pass":
                pass
            elif case["quarantined"]:
                ET.SubElement(tc, "skipped", message=f"quarantined case: {outcome}")
                counts["skipped"] += 1
            elif outcome in ("errored", "timed_out"):
                el = ET.SubElement(tc, "error", type=outcome,
                                   message=f"{outcome}: {a['error'] or 'no detail'}")
                el.text = _body(a)
                counts["errors"] += 1
            else:
                el = ET.SubElement(tc, "failure", type=outcome, message=_failure_message(a))
                el.text = _body(a)
                counts["failures"] += 1
            if a.get("audit_path"):
                ET.SubElement(tc, "system-out").text = f"audit: {a['audit_path']}"
        for key, value in counts.items():
            suite.set(key, f"{value:.3f}" if key == "time" else str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, f"{value:.3f}" if key == "time" else str(value))
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit_xml(doc: dict[str, Any], path: str | Path) -> Path:
    """Write :func:`junit_xml` of ``doc`` to ``path`` (UTF-8, with an XML declaration)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    junit_xml(doc).write(out, encoding="utf-8", xml_declaration=True)
    return out
