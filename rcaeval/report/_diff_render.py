"""Rendering a :class:`BaselineDiff` as text, Markdown (for PR comments) or JSON.

Every format leads with the verdict of the gate, then lists only the changed cases (most
severe class first, then case id), then the counts per class.
"""

from __future__ import annotations

from typing import Any

import orjson

from rcaeval.report._diff import CLASSES, BaselineDiff, display_after
from rcaeval.report._fmt import NA, fmt_delta, fmt_score, fmt_ts, table
from rcaeval.report._trajectory import compare_line

FORMATS = ("text", "json", "markdown")


def _verdict_before(row: dict[str, Any]) -> str:
    return str(row["verdict_before"]) if row.get("in_baseline") else NA


def note(row: dict[str, Any], *, allow_missing: bool = False) -> str:
    """Why a changed row matters (or does not): gating, never gates, the new subtype."""
    parts: list[str] = []
    if row.get("gating"):
        parts.append("gating")
    elif not row.get("eligible"):
        parts.append("quarantined, never gates" if row.get("suite_status") == "quarantined"
                     else "not baseline-eligible, never gates")
    elif (row.get("class") == "missing" and row.get("verdict_before") == "pass"
          and not allow_missing):
        parts.append("counts as not passing")
    elif row.get("class") == "unfinished":
        parts.append("not finished: not compared (resume the run)")
    if row.get("verdict_after") not in (None, "pass") and row.get("subtype_after") \
            and row.get("class") in ("regressed", "new", "score_drop"):
        parts.append(f"now: {row['subtype_after']}")
    if row.get("rules_changed"):
        parts.append("judge rules changed")
    return "; ".join(parts)


def _result(diff: BaselineDiff) -> str:
    if not diff.gate_failed:
        return "OK: no regression"
    n = diff.gating.height
    return f"REGRESSION: {n} gating case(s)" if n else "REGRESSION: eligible pass count dropped"


def _counts_line(diff: BaselineDiff, sep: str) -> str:
    counts = diff.counts
    parts = []
    for c in CLASSES:
        if c == "unfinished" and not counts[c]:  # only an interrupted run has any
            continue
        extra = f" ({diff.gating.height} gating)" if c == "regressed" and counts[c] else ""
        parts.append(f"{c} {counts[c]}{extra}")
    return sep.join(parts) + f" ({diff.frame.height} cases; score tolerance " \
        f"{fmt_score(diff.score_tolerance)})"


def render_text(diff: BaselineDiff) -> str:
    b = diff.baseline
    pass_scope = "missing cases excluded" if diff.allow_missing else \
        "missing cases count as not passing"
    lines = [
        f"baseline diff: suite {diff.suite_id}, run {diff.run_id} vs baseline run {b.run_id}",
        f"result:        {_result(diff)}",
        f"suite version: {diff.suite_version or NA} (baseline {b.suite_version}, promoted "
        f"{fmt_ts(b.promoted_at)})",
        f"eligible pass: {diff.pass_before} -> {diff.pass_after} (baseline cases; {pass_scope})",
    ]
    lines += [f"gate:          {r}" for r in diff.gate_reasons]
    lines += [f"warning:       {w}" for w in diff.warnings]
    if diff.trajectory is not None:
        lines.append(f"trajectory:    {compare_line(diff.trajectory)}")
    changed = diff.changed
    lines.append("")
    if changed.height:
        lines.append(f"changed cases ({changed.height}):")
        rows = [
            [r["case_id"], r["class"], _verdict_before(r), display_after(r),
             fmt_score(r["score_before"]), fmt_score(r["score_after"]),
             fmt_delta(r["score_delta"]), note(r, allow_missing=diff.allow_missing)]
            for r in changed.iter_rows(named=True)
        ]
        lines += table(["case", "class", "before", "after", "score_before", "score_after",
                        "delta", "note"], rows, right={4, 5, 6}, indent="  ")
    else:
        lines.append("changed cases: none")
    lines += ["", "counts: " + _counts_line(diff, ", ")]
    return "\n".join(lines) + "\n"


def _md_cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def render_markdown(diff: BaselineDiff) -> str:
    b = diff.baseline
    icon = "❌" if diff.gate_failed else "✅"
    summary = (f"**{icon} {_result(diff)}** — suite `{diff.suite_id}` · run `{diff.run_id}` "
               f"vs baseline `{b.run_id}` · eligible pass {diff.pass_before} → "
               f"{diff.pass_after}")
    lines = [summary, ""]
    if diff.gate_reasons:
        lines += [f"- {_md_cell(r)}" for r in diff.gate_reasons] + [""]
    if diff.warnings:
        lines += [f"> ⚠️ {_md_cell(w)}" for w in diff.warnings] + [""]
    if diff.trajectory is not None:
        lines += [f"**Trajectory:** {_md_cell(compare_line(diff.trajectory))}", ""]
    changed = diff.changed
    if changed.height:
        lines += ["| case | change | verdict | score | Δ score | note |",
                  "|---|---|---|---:|---:|---|"]
        for r in changed.iter_rows(named=True):
            klass = f"**{r['class']}**" if r["class"] in ("regressed", "score_drop") \
                else r["class"]
            verdict = f"{_verdict_before(r)} → {display_after(r)}"
            score = f"{fmt_score(r['score_before'])} → {fmt_score(r['score_after'])}"
            lines.append(f"| `{r['case_id']}` | {klass} | {verdict} | {score} | "
                         f"{fmt_delta(r['score_delta'])} | "
                         f"{_md_cell(note(r, allow_missing=diff.allow_missing))} |")
    else:
        lines.append("No changed cases.")
    lines += ["", "**Counts:** " + _counts_line(diff, " · ")]
    return "\n".join(lines) + "\n"


def diff_to_dict(diff: BaselineDiff) -> dict[str, Any]:
    b = diff.baseline
    return {
        "run_id": diff.run_id,
        "suite_id": diff.suite_id,
        "suite_version": diff.suite_version,
        "baseline": {"run_id": b.run_id, "suite_version": b.suite_version,
                     "promoted_at": fmt_ts(b.promoted_at), "judge_version": b.judge_version},
        "result": "regression" if diff.gate_failed else "ok",
        "gate_failed": diff.gate_failed,
        "gate_reasons": diff.gate_reasons,
        "pass_before": diff.pass_before,
        "pass_after": diff.pass_after,
        "score_tolerance": diff.score_tolerance,
        "allow_missing": diff.allow_missing,
        "counts": diff.counts,
        "gating": diff.gating["case_id"].to_list(),
        "warnings": list(diff.warnings),
        "trajectory": diff.trajectory,
        "cases": diff.frame.to_dicts(),
    }


def render_json(diff: BaselineDiff) -> str:
    return orjson.dumps(diff_to_dict(diff), option=orjson.OPT_INDENT_2).decode() + "\n"


def render_diff(diff: BaselineDiff, fmt: str = "text") -> str:
    """``diff`` in ``fmt`` (``text``, ``json`` or ``markdown``)."""
    if fmt == "json":
        return render_json(diff)
    if fmt in ("markdown", "md"):
        return render_markdown(diff)
    if fmt == "text":
        return render_text(diff)
    from rcaeval.errors import InputError

    raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
