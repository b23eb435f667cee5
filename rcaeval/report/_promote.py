"""Promoting a run to its suite's baseline (docs/baselines.md):
``<registry>/baselines/<suite_id>.yaml`` and the snapshot ``<registry>/baselines/runs/<run_id>/``.
"""

from __future__ import annotations

import secrets
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from rcaeval.errors import InputError
from rcaeval.registry import BaselineSpec, SuiteSpec, load_suite
from rcaeval.report._context import AUTO
from rcaeval.report._data import RunData, case_audit_dir, load_run
from rcaeval.report._fmt import fmt_score, fmt_ts, table
from rcaeval.report._snapshot import dump_yaml, write_case_files
from rcaeval.report._suite import (
    baseline_path,
    find_baseline,
    read_baseline_file,
    resolve_registry,
    snapshot_dir,
)
from rcaeval.report._text import DETAIL_FILE, REPORT_FILE, write_reports
from rcaeval.store import Store

SNAPSHOT_MARKER = "baseline.yaml"
"""A copy of the baseline file as promoted, kept in the snapshot dir: it says which suite and
run the snapshot belongs to."""


def promotion_problems(data: RunData, suite: SuiteSpec) -> list[str]:
    """Why ``data``'s run should not become a baseline (empty: it may)."""
    run, cases = data.run, data.case_rows()
    problems: list[str] = []
    if not data.recorded:
        problems.append("the run has no eval_runs record")
    elif run["status"] != "completed" or run["finished_at"] is None:
        problems.append(f"the run is not finished (status {run['status'] or 'unknown'})")
    bad = [f"{c['case_id']} ({c['run_status'] or 'no run record'})" for c in cases
           if c["run_status"] not in ("judged", None) or c["verdict"] is None]
    if bad:
        problems.append(f"{len(bad)} case(s) errored, timed out or have no verdict: "
                        + ", ".join(bad))
    missing = sorted(set(suite.case_ids) - {c["case_id"] for c in cases})
    if missing:
        problems.append(f"{len(missing)} suite case(s) were not run: " + ", ".join(missing))
    if run["suite_version"] and run["suite_version"] != suite.version:
        problems.append(f"the run used suite version {run['suite_version']} but the registry's "
                        f"suite is at {suite.version}")
    return problems


def _promoted_at(data: RunData) -> datetime:
    run = data.run
    finished = [t for t in data.cases["finished_at"].to_list() if t is not None] \
        if "finished_at" in data.cases.columns else []
    value = run["finished_at"] or (max(finished) if finished else None) or run["started_at"]
    if value is None:
        raise InputError(f"run {data.run_id!r} records no finished_at/started_at time to use "
                         "as promoted_at")
    return value


def _judge_version(data: RunData) -> str:
    if data.run["judge_version"]:
        return str(data.run["judge_version"])
    versions = sorted({v for v in data.cases["judge_version"].to_list() if v})
    return ",".join(versions) or "unknown"


def baseline_document(data: RunData, suite: SuiteSpec) -> dict[str, Any]:
    """The baseline YAML document for ``data``'s run: one row per suite case that ran (suite
    order); a case without a verdict is recorded as ``invalid`` with score 0."""
    by_id = {c["case_id"]: c for c in data.case_rows()}
    rows: list[dict[str, Any]] = []
    for sc in suite.cases:
        c = by_id.get(sc.id)
        if c is None:
            continue
        row: dict[str, Any] = {
            "case_id": sc.id,
            "verdict": c["verdict"] or "invalid",
            "score": round(float(c["score"] or 0.0), 4),
            "subtype": c["subtype"] if c["verdict"] else (c["run_status"] or "no_verdict"),
            "baseline_eligible": sc.baseline_eligible,
        }
        if c["rules_hash"]:
            row["rules_hash"] = c["rules_hash"]
        rows.append(row)
    verdicts = [r["verdict"] for r in rows]
    hashes = {r.get("rules_hash") for r in rows}
    doc: dict[str, Any] = {
        "suite_id": suite.suite_id,
        "suite_version": data.run["suite_version"] or suite.version,
        "run_id": data.run_id,
        "promoted_at": fmt_ts(_promoted_at(data)),
        "judge_version": _judge_version(data),
    }
    if len(hashes) == 1 and None not in hashes:
        doc["rules_hash"] = hashes.pop()
    doc["summary"] = {
        "cases": len(rows), "pass": verdicts.count("pass"), "fail": verdicts.count("fail"),
        "invalid": verdicts.count("invalid"),
        "total_score": round(sum(r["score"] for r in rows), 4),
    }
    doc["cases"] = rows
    BaselineSpec.model_validate(doc)  # never write a file the loader would reject
    return doc


def _owner(snapshot: Path) -> tuple[str | None, str | None]:
    marker = snapshot / SNAPSHOT_MARKER
    if not marker.is_file():
        return None, None
    try:
        spec = read_baseline_file(marker)
    except InputError:
        return None, None
    return spec.suite_id, spec.run_id


def _build_snapshot(store: Store, data: RunData, tmp: Path, registry: Path,
                    audit_root: Path | None, previous: BaselineSpec | None,
                    target: Path, doc_text: str) -> None:
    tmp.mkdir(parents=True)
    reused = False
    if previous is not None and previous.run_id == data.run_id:
        # re-promoting the baseline run: keep the reports rendered at its first promotion
        if (target / REPORT_FILE).is_file() and (target / DETAIL_FILE).is_file():
            for name in (REPORT_FILE, DETAIL_FILE):
                shutil.copyfile(target / name, tmp / name)
            reused = True
    if not reused:
        # compared with the baseline being replaced (none yet: the registry says so)
        against: Any = AUTO if previous is None else previous \
            if previous.run_id != data.run_id else None
        write_reports(store, data.run_id, tmp, registry_root=registry, baseline=against)
    (tmp / SNAPSHOT_MARKER).write_text(doc_text, encoding="utf-8", newline="\n")
    judgments = store.judgments(run_id=data.run_id)
    packets = dict(zip(judgments["case_id"].to_list(), judgments["judgment_json"].to_list(),
                       strict=True))
    for case in data.case_rows():
        cid = case["case_id"]
        write_case_files(tmp / cid, case, data.buckets_of(cid), packets.get(cid),
                         case_audit_dir(data.run, case, audit_root))


def promote_baseline(
    store: Store,
    run_id: str,
    registry_root: str | Path | None = None,
    audit_root: str | Path | None = None,
    *,
    force: bool = False,
    keep_old: bool = False,
) -> Path:
    """Make run ``run_id`` the baseline of its suite; return the baseline YAML's path.

    Refuses (:class:`InputError`) a run that is not finished, has errored/timed-out/unjudged
    cases, skipped suite cases or used another suite version — unless ``force``. Replaces the
    snapshot dir of this run only if it is this run's (its ``baseline.yaml`` names this suite
    and run) or ``force``; removes the previous baseline's snapshot dir unless ``keep_old``.
    """
    registry = resolve_registry(registry_root)
    data = load_run(store, run_id)
    suite_id = data.run["suite_id"]
    if not suite_id:
        raise InputError(f"run {run_id!r} records no suite_id (judged from an audit dir?); "
                         "only a suite run can become a baseline")
    suite = load_suite(registry, suite_id)
    problems = promotion_problems(data, suite)
    if problems and not force:
        raise InputError(f"refusing to promote run {run_id!r}: " + "; ".join(problems)
                         + " (use --force to promote anyway)")
    doc = baseline_document(data, suite)
    doc_text = dump_yaml(doc)
    previous = find_baseline(registry, suite_id)
    target = snapshot_dir(registry, run_id)
    owner = _owner(target)
    if target.exists() and owner != (suite_id, run_id) and not force:
        raise InputError(f"{target} exists but is not the snapshot of run {run_id!r} of suite "
                         f"{suite_id!r} (its {SNAPSHOT_MARKER} names {owner[1] or 'nothing'}); "
                         "use --force to replace it")
    tmp = target.parent / f".{run_id}.tmp-{secrets.token_hex(4)}"
    root = Path(audit_root) if audit_root is not None else None
    try:
        _build_snapshot(store, data, tmp, registry, root, previous, target, doc_text)
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    path = baseline_path(registry, suite_id)
    for stale in (path.with_suffix(".yml"),):
        if stale.is_file():
            stale.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc_text, encoding="utf-8", newline="\n")
    if previous is not None and previous.run_id != run_id and not keep_old:
        old = snapshot_dir(registry, previous.run_id)
        if old.is_dir() and _owner(old)[0] in (suite_id, None):
            shutil.rmtree(old)
    return path


def baseline_cases(spec: BaselineSpec) -> pl.DataFrame:
    """The baseline's case rows as a frame (case_id, verdict, score, subtype,
    baseline_eligible)."""
    return pl.DataFrame(
        [{"case_id": c.case_id, "verdict": c.verdict, "score": c.score, "subtype": c.subtype,
          "baseline_eligible": c.baseline_eligible} for c in spec.cases],
        schema={"case_id": pl.String, "verdict": pl.String, "score": pl.Float64,
                "subtype": pl.String, "baseline_eligible": pl.Boolean},
    )


def render_baseline(spec: BaselineSpec) -> str:
    """The baseline as text (what ``rcaeval baseline show`` prints): run, versions, summary
    and a table of its case rows."""
    s = spec.summary
    lines = [f"suite {spec.suite_id} {spec.suite_version}: run {spec.run_id}, promoted "
             f"{fmt_ts(spec.promoted_at)}, judge {spec.judge_version}",
             f"{s.cases} cases: {s.pass_} pass, {s.fail} fail, {s.invalid} invalid, "
             f"total score {fmt_score(s.total_score)}"]
    rows = [[c.case_id, c.verdict, fmt_score(c.score), c.subtype or "-",
             "yes" if c.baseline_eligible else "no"] for c in spec.cases]
    lines += table(["case", "verdict", "score", "subtype", "eligible"], rows, right={2})
    return "\n".join(lines) + "\n"
