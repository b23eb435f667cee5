"""``report.txt`` (run summary) and ``report_detail.txt`` (per-case detail) (docs/reports.md).

The text depends only on the store, the registry and the baseline: fixed number formats,
stable ordering (cases by id, buckets in report order) and no wall-clock time other than the
run's own recorded timestamps. Line meanings: docs/reports.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rcaeval._inputs import make_output_dir
from rcaeval._vocab import UNFINISHED_OUTCOMES, VERDICTS
from rcaeval.registry import BaselineSpec
from rcaeval.report._context import AUTO, ReportContext, build_context
from rcaeval.report._data import CASE_STATUSES, case_state, run_audit_dir
from rcaeval.report._diff import CLASSES, display_after
from rcaeval.report._diff_render import note as diff_note
from rcaeval.report._fmt import (
    NA,
    fmt_cost,
    fmt_delta,
    fmt_duration,
    fmt_int,
    fmt_score,
    fmt_ts,
    one_line,
    table,
)
from rcaeval.report._integrity import describe as describe_integrity
from rcaeval.report._integrity import run_summary as run_integrity
from rcaeval.report._trajectory import case_block as trajectory_block
from rcaeval.report._trajectory import summary_lines as trajectory_summary
from rcaeval.store import Store

REPORT_FILE = "report.txt"
DETAIL_FILE = "report_detail.txt"
TOKEN_COLUMNS = (("input", "input_tokens"), ("output", "output_tokens"),
                 ("cache read", "cache_read_tokens"), ("cache write", "cache_write_tokens"))
_W = 19  # label column width


def _kv(label: str, value: str) -> str:
    return f"{label + ':':<{_W}}{value}".rstrip()


def _suite_line(ctx: ReportContext) -> str:
    s = ctx.suite
    if s.suite_id is None:
        return f"{NA} ({s.note})"
    return f"{s.suite_id} {s.suite_version or NA} ({s.note})"


def _status_counts(cases: list[dict[str, Any]], run_status: str | None) -> str:
    """``N judged, N errored, N timed_out`` and, when there are any, the cases the run did
    not finish (``N interrupted, N pending``; ``N running`` while it runs), then ``other``."""
    states = [case_state(c["run_status"], run_status) for c in cases]
    parts = [f"{states.count(s)} {s}" for s in CASE_STATUSES]
    parts += [f"{states.count(s)} {s}" for s in ("running", *UNFINISHED_OUTCOMES)
              if states.count(s)]
    other = sum(1 for s in states if s not in (*CASE_STATUSES, "running", *UNFINISHED_OUTCOMES))
    if other:
        parts.append(f"{other} other")
    return ", ".join(parts)


def comparison_status(ctx: ReportContext) -> str:
    """``compared with baseline X: OK / REGRESSION ...`` or why there was no comparison."""
    d = ctx.diff
    if d is None:
        return ctx.baseline_note
    same = " (this run is the baseline)" if d.baseline.run_id == d.run_id else ""
    if d.gate_failed:
        verdict = f"REGRESSION ({d.gating.height} gating case(s), eligible pass " \
                  f"{d.pass_before} -> {d.pass_after})"
    else:
        verdict = "OK (no regression)"
    unfinished = d.counts["unfinished"]
    if unfinished:
        verdict += f"; {unfinished} case(s) not finished, not compared"
    return f"compared with baseline {d.baseline.run_id}{same}: {verdict}"


def _failure(case: dict[str, Any], run_status: str | None) -> str:
    if case["verdict"] == "pass":
        return NA
    if case["verdict"] is None:
        status = case_state(case["run_status"], run_status) or "no verdict"
        return f"{status}: {one_line(case['error'], 60)}" if case["error"] else status
    if case["subtype"]:
        return str(case["subtype"])
    if case["failing_bucket"]:
        check = f"/{case['failing_check']}" if case["failing_check"] else ""
        return f"{case['failing_bucket']}{check}"
    return one_line(case["reason"], 60) or NA


def _sum(cases: list[dict[str, Any]], key: str) -> tuple[Any, int]:
    values = [c[key] for c in cases if c[key] is not None]
    return (sum(values) if values else None), len(values)


def _usage_lines(cases: list[dict[str, Any]]) -> list[str]:
    n = len(cases)
    parts, reported = [], 0
    for label, key in TOKEN_COLUMNS:
        total, k = _sum(cases, key)
        reported = max(reported, k)
        parts.append(f"{label} {fmt_int(total)}")
    cost, k_cost = _sum(cases, "cost_usd")
    return [
        _kv("tokens", ", ".join(parts) + f" ({reported} of {n} cases reported)"),
        _kv("cost", f"{fmt_cost(cost)} ({k_cost} of {n} cases reported)"),
    ]


def _integrity_lines(ctx: ReportContext, n_cases: int) -> list[str]:
    rows = ctx.data.integrity
    return [_kv("evidence", run_integrity(rows, n_cases))] if rows else []


def _semantic_lines(ctx: ReportContext) -> list[str]:
    """The semantic shadow's judge, statuses, tokens, cost and deterministic vs blended
    verdicts (docs/semantic.md); nothing for a run judged without it."""
    return list(ctx.data.semantic_lines)


def _baseline_block(ctx: ReportContext) -> list[str]:
    d = ctx.diff
    if d is None:
        return ["baseline comparison:", f"  {ctx.baseline_note}"]
    b = d.baseline
    counts = d.counts
    changes = ", ".join(
        f"{c} {counts[c]}" + (f" ({d.gating.height} gating)" if c == "regressed" and counts[c]
                             else "")
        for c in CLASSES if counts[c] or c != "unfinished"  # only an interrupted run has any
    )
    lines = [
        "baseline comparison:",
        "  " + _kv("baseline run", f"{b.run_id} (suite version {b.suite_version}, promoted "
                   f"{fmt_ts(b.promoted_at)}, judge {b.judge_version})"),
        "  " + _kv("pass count", f"{b.summary.pass_} -> "
                   f"{sum(1 for c in ctx.data.case_rows() if c['verdict'] == 'pass')} "
                   f"(all cases); eligible baseline cases {d.pass_before} -> {d.pass_after}"),
        "  " + _kv("changes", changes),
    ]
    lines += ["  " + _kv("gate", r) for r in d.gate_reasons]
    lines += ["  " + _kv("warning", w) for w in d.warnings]
    return lines


def _known_top1(m: dict[str, Any] | None) -> str:
    """``c/t = rate [95% CI]``: known cases whose answer names the ground-truth family."""
    if not m or not m["denominator"]:
        return "n/a (no judged known case with a ground-truth family)"
    return (f"{int(m['numerator'])}/{m['denominator']} = {m['value']:.3f} "
            f"[95% CI {m['ci_low']:.3f}, {m['ci_high']:.3f}] (answer names the ground-truth "
            "family)")


def render_report(ctx: ReportContext) -> str:
    """The text of ``report.txt``."""
    run, cases = ctx.data.run, ctx.data.case_rows()
    verdicts = [c["verdict"] for c in cases]
    no_verdict = sum(1 for v in verdicts if v is None)
    statuses = [c["run_status"] for c in cases]
    rstat = run["status"]
    states = [case_state(s, rstat) for s in statuses]
    scores = [c["score"] for c in cases if c["score"] is not None]
    total = sum(scores) if scores else None
    avg = total / len(scores) if scores and total is not None else None
    durations = [c["duration_s"] for c in cases if c["duration_s"] is not None]
    case_total = sum(durations) if durations else None
    case_avg = case_total / len(durations) if case_total is not None else None
    run_dur = None
    if run["started_at"] is not None and run["finished_at"] is not None:
        run_dur = (run["finished_at"] - run["started_at"]).total_seconds()
    case_counts = ", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS)
    lines = [
        f"rcaeval run report: {ctx.data.run_id}",
        "",
        _kv("suite", _suite_line(ctx)),
        _kv("run", ctx.data.run_id + ("" if ctx.data.recorded else " (no eval_runs record)")),
        _kv("agent", _agent_line(run)),
        _kv("sandbox", run.get("sandbox") or NA),
        _kv("source", run["source"] or NA),
        _kv("judge version", run["judge_version"] or NA),
        _kv("execution status", f"{run['status'] or NA} ({_status_counts(cases, rstat)})"),
        _kv("comparison status", comparison_status(ctx)),
        "",
        _kv("cases", f"{len(cases)} total: {case_counts}, {no_verdict} without verdict; "
                     f"{statuses.count('errored')} errored, {statuses.count('timed_out')} "
                     "timed_out" + "".join(f", {states.count(s)} {s}" for s in UNFINISHED_OUTCOMES
                                           if states.count(s))),
        _kv("known Top-1", _known_top1(ctx.data.known_top1)),
        _kv("score", f"total {fmt_score(total)}, average {fmt_score(avg)} over {len(scores)} "
                     "scored cases"),
        _kv("timing", f"started {fmt_ts(run['started_at'])}, finished "
                      f"{fmt_ts(run['finished_at'])}, duration {fmt_duration(run_dur)}"),
        _kv("case time", f"total {fmt_duration(case_total)}, average "
                         f"{fmt_duration(case_avg)} over {len(durations)} timed cases"),
        *_usage_lines(cases),
        *trajectory_summary(_trajectory_rows(ctx), _kv),
        *_semantic_lines(ctx),
        *_integrity_lines(ctx, len(cases)),
        "",
        *_baseline_block(ctx),
        "",
        "cases:",
    ]
    rows = [[c["case_id"], c["case_type"] or NA, c["verdict"] or NA, fmt_score(c["score"]),
             _failure(c, rstat), fmt_duration(c["duration_s"])] for c in cases]
    if rows:
        lines += table(["case", "type", "verdict", "score", "failure", "duration"], rows,
                       right={3, 5}, indent="  ")
    else:
        lines.append("  (no cases)")
    lines += trajectory_block(_trajectory_rows(ctx))
    return "\n".join(lines) + "\n"


def _trajectory_rows(ctx: ReportContext) -> list[dict[str, Any]]:
    frame = ctx.data.trajectory
    return frame.to_dicts() if frame is not None and frame.height else []


def _evidence(check: dict[str, Any]) -> str:
    parts = [str(check["evidence_file"])] if check["evidence_file"] else []
    if check["evidence_path"]:
        parts.append(str(check["evidence_path"]))
    if check["evidence_line"] is not None:
        parts.append(f"line {check['evidence_line']}")
    text = " ".join(parts)
    if check["evidence_excerpt"]:
        text += f' "{one_line(check["evidence_excerpt"], 100)}"'
    return text.strip()


def _case_baseline(ctx: ReportContext, case_id: str) -> str:
    row = ctx.diff_row(case_id)
    if row is None:
        return ctx.baseline_note or "not compared"
    if not row["in_baseline"]:
        return "not in the baseline (new)"
    detail = f"{row['verdict_before']} {fmt_score(row['score_before'])} -> " \
             f"{display_after(row)} {fmt_score(row['score_after'])} " \
             f"({fmt_delta(row['score_delta'])}): {row['class']}"
    extra = diff_note(row, allow_missing=ctx.diff.allow_missing if ctx.diff else False)
    return f"{detail}, {extra}" if extra else detail


def _case_detail(ctx: ReportContext, c: dict[str, Any]) -> list[str]:
    cid = c["case_id"]
    hard = NA if c["hard_gate"] is None else ("yes" if c["hard_gate"] else "no")
    subtype = f" (subtype {c['subtype']})" if c["subtype"] else ""
    lines = [
        f"== {cid} ==",
        _kv("verdict", f"{c['verdict'] or 'none'}{subtype}"),
        _kv("score", f"{fmt_score(c['score'])} (raw {fmt_score(c['raw_score'])}, hard gate "
                     f"{hard}, profile {c['scoring_profile'] or NA})"),
        _kv("case type", c["case_type"] or NA),
        _kv("execution", f"{case_state(c['run_status'], ctx.data.run['status']) or NA}, "
                         f"attempts {fmt_int(c['attempts'])}, "
                         f"duration {fmt_duration(c['duration_s'])}"),
        _kv("workspace", c["workspace_id"] or NA),
    ]
    if c["error"]:
        lines.append(_kv("error", one_line(c["error"], 300)))
    if c["reason"]:
        lines.append(_kv("reason", one_line(c["reason"], 300)))
    rules = (c["rules_hash"] or NA)[:12]
    lines.append(_kv("judge", f"version {c['judge_version'] or NA}, rules {rules}"))
    buckets = ctx.data.buckets_of(cid)
    lines.append("buckets:")
    if buckets:
        lines += table(["bucket", "status", "score", "max", "reason"],
                       [[b["bucket"], b["status"], fmt_score(b["score"]),
                         fmt_score(b["max_score"]), one_line(b["reason"], 100)]
                        for b in buckets], right={2, 3}, indent="  ")
    else:
        lines.append("  (none)")
    lines.append("failing checks:")
    checks = ctx.data.failing_checks_of(cid)
    for ch in checks:
        req = "required" if ch["required"] else "optional"
        weight = fmt_score(ch["weight"]) if ch["weight"] is not None else NA
        lines.append(f"  - {ch['bucket']}/{ch['check_id']} ({ch['kind'] or 'check'}, {req}, "
                     f"weight {weight}): {one_line(ch['reason'], 200) or NA}")
        evidence = _evidence(ch)
        if evidence:
            lines.append(f"      evidence: {evidence}")
    if not checks:
        lines.append("  (none)")
    integrity = describe_integrity((ctx.data.integrity or {}).get(cid))
    lines.append(_kv("evidence", integrity[0]))
    lines += [f"  - {one_line(p, 300)}" for p in integrity[1:]]
    problems = ctx.data.file_problems_of(cid)
    if problems:
        from rcaeval.report._parse_errors import describe

        lines.append("files not used:")
        lines += [f"  - {one_line(describe(p), 300)}" for p in problems]
    lines.append("diagnosis penalties:")
    penalties = ctx.data.penalties_of(cid)
    for p in penalties:
        share = NA if p["share"] is None else f"{p['share'] * 100:.0f}%"
        line = (f"  - {p['kind']} {p['check_id']}: weight {fmt_score(p['weight'])} of "
                f"{fmt_score(p['kind_weight'])} ({share} of the {p['kind']} checks)")
        top = component_max(c["scoring_profile"], f"diagnosis_{p['kind']}")
        if top is not None and p["share"] is not None:
            line += f" = -{fmt_score(top * p['share'])} of {fmt_score(top)} points"
        lines.append(line)
    if not penalties:
        lines.append("  (none)")
    lines.append(_kv("baseline", _case_baseline(ctx, cid)))
    return lines


def component_max(profile: str | None, component: str) -> float | None:
    """The maximum of a scoring component in the packaged scoring profile ``profile`` (None
    when unknown: a custom profiles file, or no judge package)."""
    try:
        from rcaeval.judge import load_profiles

        maxima = load_profiles().get(profile or "default", {}).get("maxima", {})
    except Exception:  # noqa: BLE001 - points are an annotation; never fail a report on them
        return None
    value = maxima.get(component)
    return float(value) if value is not None else None


def _missing_cases(ctx: ReportContext) -> list[list[str]]:
    ran = set(ctx.data.cases["case_id"].to_list())
    sources: dict[str, list[str]] = {}
    if ctx.suite.spec is not None:
        for sc in ctx.suite.spec.cases:
            sources.setdefault(sc.id, []).append("suite" + (
                " (quarantined)" if sc.status == "quarantined" else ""))
    base: dict[str, Any] = {}
    if ctx.baseline is not None:
        for bc in ctx.baseline.cases:
            sources.setdefault(bc.case_id, []).append("baseline")
            base[bc.case_id] = bc
    rows = []
    for cid in sorted(set(sources) - ran):
        bc = base.get(cid)
        rows.append([cid, ", ".join(sources[cid]), bc.verdict if bc else NA,
                     fmt_score(bc.score) if bc else NA])
    return rows


def render_detail(ctx: ReportContext) -> str:
    """The text of ``report_detail.txt``."""
    suite = ctx.suite
    head = f"{suite.suite_id} {suite.suite_version or NA}" if suite.suite_id else NA
    lines = [f"rcaeval run report detail: {ctx.data.run_id} (suite {head})",
             _kv("comparison status", comparison_status(ctx)), ""]
    for c in ctx.data.case_rows():
        lines += _case_detail(ctx, c) + [""]
    lines.append("== cases missing from this run ==")
    if suite.spec is None and ctx.baseline is None:
        lines.append("  unknown: neither the suite file nor a baseline is available")
    else:
        missing = _missing_cases(ctx)
        if missing:
            lines += table(["case", "listed in", "baseline verdict", "baseline score"],
                           missing, right={3}, indent="  ")
        else:
            lines.append("  (none)")
    return "\n".join(lines) + "\n"


def write_reports(
    store: Store,
    run_id: str,
    out_dir: str | Path | None = None,
    *,
    registry_root: str | Path | None = None,
    baseline: BaselineSpec | None | Any = AUTO,
) -> tuple[Path, Path]:
    """Write ``report.txt`` and ``report_detail.txt`` for ``run_id`` into ``out_dir``
    (default: ``<audit_root>/<run_id>/``, the audit root being the run's recorded one or
    ``<data>/eval_audits``; see :func:`run_audit_dir`); return their paths. The baseline is
    the registry's for the run's suite unless given (``None``: no comparison)."""
    ctx = build_context(store, run_id, registry_root, baseline=baseline)
    out = make_output_dir(out_dir if out_dir is not None else run_audit_dir(ctx.data.run),
                          field="--out")
    report, detail = out / REPORT_FILE, out / DETAIL_FILE
    report.write_text(render_report(ctx) + lab_section(store, run_id), encoding="utf-8",
                      newline="\n")
    detail.write_text(render_detail(ctx), encoding="utf-8", newline="\n")
    return report, detail


def lab_section(store: Store, run_id: str) -> str:
    """The incident lab's mitigation table of a ``run --suite lab`` run (docs/lab.md), empty
    for any other run."""
    from rcaeval.lab import mitigation_rows, render_mitigation

    rows = mitigation_rows(store.con, run_id)
    return "\n" + render_mitigation(rows) if rows else ""


def _agent_line(run: dict[str, Any]) -> str:
    """``name (spec)``, or whichever of the two the run records."""
    name, spec = run.get("agent_name"), run.get("agent_spec")
    if name and spec and name != spec:
        return f"{name} ({spec})"
    return name or spec or NA
