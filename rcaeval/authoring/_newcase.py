"""``rcaeval case new ID --incident DIR``: draft case.yaml, judge.yaml and expected.md from an
incident's data, every drafted part marked ``draft: true`` with a ``# REVIEW:`` comment.

The case dir is written atomically: staged in a hidden dir of ``cases/`` (the loader skips
dot-dirs), validated there with the registry's own loader and detector examples, then renamed
into place. An existing case id is refused unless ``force``.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from rcaeval.authoring._signals import Signal, draft_signals, slug
from rcaeval.errors import InputError, NotFoundError
from rcaeval.registry import ID_PATTERN

REVIEW = "# REVIEW: "
UNKNOWN_FAMILY = "unknown"
"""The ground-truth family a draft gets when ``--family`` is not given."""


@dataclass
class DraftedCase:
    """What :func:`draft_case` wrote: the case dir, the drafted checks, the channels found
    and the registry's warnings for the new case (its drafts)."""

    case_id: str
    case_dir: Path
    channels: list[str]
    signals: list[Signal]
    warnings: list[Any] = field(default_factory=list)


def check_case_id(case_id: str) -> str:
    """``case_id`` if it is a valid, separator-free case id; else an ``InputError``."""
    bad = ("\x00" in case_id or "/" in case_id or "\\" in case_id or ".." in case_id
           or not re.match(ID_PATTERN, case_id))
    if bad:
        raise InputError(f"invalid case id {case_id!r}: use lower-case letters, digits, '_', "
                         "'-' and '.' (no path separators, no '..'), starting with a letter "
                         "or digit, at most 128 characters", field="case_id")
    return case_id


def _minute(ts: str, *, up: bool) -> datetime:
    dt = datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone(UTC)
    floor = dt.replace(second=0, microsecond=0)
    return floor + timedelta(minutes=1) if up and floor != dt else floor


def _iso(dt: datetime) -> str:
    return dt.isoformat().replace("+00:00", "Z")


def _channels(data: Any) -> list[str]:
    """The evidence channels the incident data holds records for, in vocabulary order (the
    ticket's context is not an investigation channel)."""
    return [c for c in data.data_channels() if c not in data.unavailable]


def _family_words(family: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", family.lower()) if w]


def _detector(family: str, signals: list[Signal]) -> tuple[str, dict[str, Any]]:
    """``asserts_<family>``: its pattern from the family's words, or, for an unknown family,
    from the first log signal's message (a panic first), else the family's words."""
    words = _family_words(family)
    logs = [s for s in signals if s.channel == "logs"]
    if family == UNKNOWN_FAMILY and logs:
        words = _family_words(logs[0].condition["keywords"][0])[:4] or words
    phrase = " ".join(words)
    pattern = r"\b" + r"[\s_-]*".join(re.escape(w) for w in words) + r"\b"
    return f"asserts_{slug(family, 100)}", {
        "draft": True,
        "description": f"The answer states {phrase} as the root cause.",
        "any": [pattern], "scope": "root_cause", "negation": True,
        "examples": {"fires": [f"Root cause: {phrase}."],
                     "silent": [f"Ruled out: {phrase}.", f"Root cause: it is not {phrase}."]},
    }


def _prompt(data: Any, cluster: str) -> str:
    ticket = data.ticket or {}
    alerts = [a.get("name") for a in ticket.get("alerts") or [] if isinstance(a, dict)
              and a.get("name")]
    said = []
    if alerts:
        said.append(f"Alert {', '.join(alerts)} fired on cluster {cluster}"
                    + (f" at {ticket['opened_at']}" if ticket.get("opened_at") else "") + ".")
    if ticket.get("summary"):
        said.append(f"The ticket says: {ticket['summary']}.")
    said.append("Using the incident data in your workspace, find the root cause, cite the "
                "evidence ids you relied on, and recommend actions.")
    return " ".join(said)


def _case_doc(case_id: str, data: Any, title: str | None) -> dict[str, Any]:
    start, end = data.data_range()
    if not start or not end:
        raise InputError("the incident data has no timestamps (log lines, metric points or "
                         "events) to draft a time window from", file=str(data.case_dir))
    s, e = _minute(start, up=False), _minute(end, up=True)
    if e <= s:
        e = s + timedelta(minutes=1)
    ticket = data.ticket or {}
    cluster = data.cluster_id or ticket.get("cluster_id") or "unknown-cluster"
    env: dict[str, Any] = {"cluster_id": str(cluster)}
    if data.topology.get("product"):
        env["product"] = str(data.topology["product"])
    return {
        "case_id": case_id, "draft": True,
        "title": title or str(ticket.get("summary") or f"Incident on {cluster}"),
        "case_type": "known", "tags": [],
        "prompt": {"text": _prompt(data, str(cluster))},
        "environment": env,
        "time_window": {"start": _iso(s), "end": _iso(e), "tolerance_s": 600},
        "incident_data": "incident",
    }


def _judge_doc(case_id: str, channels: list[str], signals: list[Signal], family: str,
               summary: str | None) -> dict[str, Any]:
    det_id, det = _detector(family, signals)
    root: dict[str, Any] = {"draft": True, "family": family,
                            "summary": summary or "To be written: what happened, in one "
                            "sentence a right answer would also say."}
    if summary and family != UNKNOWN_FAMILY:
        root.pop("draft")
    checks = [{"draft": True, "id": sig.check_id, "description": sig.description,
               "weight": sig.weight, "any_of": [sig.condition]} for sig in signals]
    if not checks:
        checks = [{"draft": True, "id": f"{channels[0]}_collected",
                   "description": f"Drafted: no signal stood out; the {channels[0]} channel "
                   "was at least collected.",
                   "any_of": [{"fact": f"channel.{channels[0]}_observed"}]}]
    return {
        "case_id": case_id,
        "ground_truth": {"root_cause": root},
        "detectors": {det_id: det},
        "judge": {
            "evidence_collection": {"preferred_channels": channels,
                                    "min_preferred_channels": 1},
            "critical_evidence": {"checks": checks},
            "diagnosis": {"mode": "deterministic_only", "hard_checks": [{
                "draft": True, "id": f"identifies_{slug(family, 100)}",
                "description": "The root-cause statement names the ground-truth family.",
                "all_of": [{"detector": det_id}]}]},
        },
    }


def _dump(doc: dict[str, Any], header: list[str], comments: list[str]) -> str:
    """YAML of ``doc`` with ``header`` comment lines on top and, before the n-th line holding
    ``draft: true``, the n-th of ``comments`` as a ``# REVIEW:`` comment."""
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    out = [f"# {h}" if h else "#" for h in header]
    pending = iter(comments)
    for line in text.splitlines():
        m = re.match(r"^(\s*)(?:- )?draft: true$", line)
        if m:
            note = next(pending, "drafted from the incident data")
            out.append(f"{m.group(1)}{REVIEW}{note}")
        out.append(line)
    return "\n".join(out) + "\n"


def _expected_md(case_id: str, case: dict[str, Any], channels: list[str],
                 signals: list[Signal]) -> str:
    lines = [f"# {case_id}: {case['title']}", "",
             "<!-- REVIEW: drafted by `rcaeval case new`; write the story and the ground "
             "truth, then remove this note. -->", "",
             f"Case type: **{case['case_type']}** · cluster `{case['environment']['cluster_id']}`"
             f" · window {case['time_window']['start']} – {case['time_window']['end']}", "",
             "## Story", "", "To be written.", "", "## Signals in the incident data", ""]
    lines += [f"- {sig.description.removeprefix('Drafted: ')}" for sig in signals] or [
        "- none stood out"]
    lines += ["", f"Channels with data: {', '.join(channels)}.", "",
              "## A good answer", "", "To be written.", "", "## Classic misdiagnoses", "",
              "To be written.", ""]
    return "\n".join(lines)


def draft_case(registry: str | Path | None, case_id: str, incident: str | Path, *,
               family: str | None = None, summary: str | None = None,
               title: str | None = None, force: bool = False) -> DraftedCase:
    """Draft ``cases/<case_id>/`` of ``registry`` from the incident data in ``incident``
    (copied to the case's ``incident/``): case.yaml (window, cluster and prompt from the data),
    judge.yaml (preferred channels = the channels the data holds; critical-evidence checks
    drafted from its signals; a ground-truth detector with examples) and expected.md. The
    result passes ``rcaeval validate``, with a ``draft`` warning per drafted part."""
    from rcaeval._paths import registry_dir
    from rcaeval.authoring._examples import example_problems
    from rcaeval.registry import load_case_dir
    from rcaeval.tools import load_case_data

    check_case_id(case_id)
    root = Path(registry) if registry is not None else registry_dir()
    if not (root / "cases").is_dir():
        raise NotFoundError(f"registry {root} has no cases/ directory")
    src = Path(incident)
    if not src.exists():
        raise NotFoundError(f"incident dir {src} does not exist")
    if not src.is_dir():
        raise InputError("is not a directory: name the incident data dir", file=str(src),
                         field="--incident")
    refuse_special_files(src, field="--incident")
    target = root / "cases" / case_id
    if target.exists() and not force:
        raise InputError(f"case {case_id!r} already exists ({target}); pass --force to "
                         "replace it", field="case_id")
    data = load_case_data(src, src)
    channels = _channels(data)
    if not channels:
        raise InputError("the incident data holds no logs/, metrics.json, slow_queries.json, "
                         "events.json or alerts.json with records", file=str(src))
    signals = draft_signals(data)
    fam = family or UNKNOWN_FAMILY
    case = _case_doc(case_id, data, title)
    judge = _judge_doc(case_id, channels, signals, fam, summary)
    stage_parent = root / "cases" / f".new-{case_id}-{secrets.token_hex(4)}"
    stage = stage_parent / case_id
    try:
        shutil.copytree(src, stage / "incident", symlinks=False)
        _write_files(stage, case_id, case, judge, channels, signals, fam)
        merged, problems = load_case_dir(root, stage)
        if merged is not None:
            problems = example_problems(root, [merged])
        if problems:
            raise InputError("the drafted case does not validate: " + "; ".join(
                p.render() for p in problems[:5]), file=str(src))
        if target.exists():
            old = stage_parent / "old"
            target.rename(old)
        stage.rename(target)
    finally:
        shutil.rmtree(stage_parent, ignore_errors=True)
    from rcaeval.registry import draft_warnings, load_case

    warnings = draft_warnings(root, load_case(root, case_id))
    return DraftedCase(case_id, target, channels, signals, warnings)


def refuse_special_files(src: Path, *, field: str, follow: bool = True) -> None:
    """An input error naming the first entry under ``src`` that is neither a directory nor a
    regular file (a FIFO, a device, a socket; with ``follow``, symlinks are followed and a
    dangling one is refused too, else symlinks are kept as they are): reading or copying it
    would block or fail half-way."""
    from rcaeval._inputs import describe_mode

    for dirpath, dirnames, filenames in os.walk(src):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            try:
                mode = path.stat().st_mode if follow else path.lstat().st_mode
            except OSError as exc:
                raise InputError(f"cannot be read: {exc.strerror or exc}", file=str(path),
                                 field=field) from None
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
                raise InputError(f"is {describe_mode(mode)}: only directories and regular "
                                 "files are read", file=str(path), field=field)


def _write_files(stage: Path, case_id: str, case: dict[str, Any], judge: dict[str, Any],
                 channels: list[str], signals: list[Signal], family: str) -> None:
    header = [f"Drafted by `rcaeval case new {case_id}` from the incident data.",
              "Review every part marked `draft: true` (and its REVIEW comment), then delete the",
              "mark; `rcaeval validate` warns until then. Docs: docs/registry.md, "
              "\"Writing a case\"."]
    (stage / "case.yaml").write_text(_dump(case, header, [
        "title, case_type, tags and prompt are drafts; the window spans the data's "
        "timestamps, the cluster comes from topology.json / ticket.json"]), encoding="utf-8")
    notes = ["the root-cause family and summary are yours to write"
             + ("" if family == UNKNOWN_FAMILY else f" (family {family!r} as given)")
             ] if judge["ground_truth"]["root_cause"].get("draft") else []
    notes += ["extend `any` with the ways a right answer says it; keep the examples true"]
    notes += [f"{sig.channel} signal; check it is evidence of the root cause, not a symptom"
              for sig in signals] or ["no signal stood out; replace this check"]
    notes += ["add the misdiagnoses this incident invites as avoids_<family>_misdiagnosis "
              "checks (expect: false)"]
    (stage / "judge.yaml").write_text(_dump(judge, header, notes), encoding="utf-8")
    (stage / "expected.md").write_text(_expected_md(case_id, case, channels, signals),
                                       encoding="utf-8")
