"""Run reports and baselines (docs/reports.md, docs/baselines.md).

Typical use::

    import rcaeval.store as st
    from rcaeval.report import write_reports, promote_baseline, diff_against_baseline

    s = st.connect()
    write_reports(s, "nightly-42", "data/eval_audits/nightly-42")
    d = diff_against_baseline(s, "nightly-42", "data/registry")
    d.frame            # one row per case: verdict before/after, score delta, class, gating
    d.regressed        # eligible cases whose verdict got worse
    d.gate_failed      # what `rcaeval baseline diff` exits 4 on
    promote_baseline(s, "nightly-42", "data/registry", "data/eval_audits")
"""

from __future__ import annotations

from rcaeval.report._context import build_context
from rcaeval.report._diff import BaselineDiff, diff_against_baseline
from rcaeval.report._diff_render import (
    FORMATS,
    render_diff,
    render_json,
    render_markdown,
    render_text,
)
from rcaeval.report._promote import promote_baseline, render_baseline
from rcaeval.report._suite import load_baseline, snapshot_dir
from rcaeval.report._text import render_detail, render_report, write_reports

__all__ = [
    "FORMATS",
    "BaselineDiff",
    "build_context",
    "diff_against_baseline",
    "load_baseline",
    "promote_baseline",
    "render_baseline",
    "render_detail",
    "render_diff",
    "render_json",
    "render_markdown",
    "render_report",
    "render_text",
    "snapshot_dir",
    "write_reports",
]

from rcaeval.report._notebook import (  # noqa: E402 - the regression report notebook
    KERNEL_NAME,
    ReleaseGateRender,
    render_explore_notebook,
    render_regression_notebook,
    render_release_gate_notebook,
)

__all__ += ["KERNEL_NAME", "ReleaseGateRender", "render_explore_notebook",
            "render_regression_notebook", "render_release_gate_notebook"]

# Machine-readable results (--results-json, --junit-xml) and file problems (docs/results.md).
from rcaeval.report._integrity import describe as describe_integrity  # noqa: E402
from rcaeval.report._integrity import integrity_of  # noqa: E402
from rcaeval.report._junit import junit_xml, write_junit_xml  # noqa: E402
from rcaeval.report._parse_errors import describe as describe_file_problem  # noqa: E402
from rcaeval.report._parse_errors import parse_errors_of  # noqa: E402
from rcaeval.report._results import run_results, write_results_json  # noqa: E402

__all__ += ["describe_file_problem", "describe_integrity", "integrity_of",
            "junit_xml", "parse_errors_of", "run_results", "write_junit_xml",
            "write_results_json"]

# A repeat group against the baseline: rates and a significance test (docs/baselines.md).
from rcaeval.report._repeat_diff import (  # noqa: E402
    RepeatDiff,
    diff_repeats_against_baseline,
)

__all__ += ["RepeatDiff", "diff_repeats_against_baseline"]

# The run page, and the building blocks its notebook and the regression notebook use (public
# so that an analyst's copy of a notebook cell works: docs/notebooks.md).
from rcaeval.report._banners import gate_banner, regression_banner, run_banner  # noqa: E402
from rcaeval.report._notebook import load_diff, publish_result  # noqa: E402
from rcaeval.report._runpage import (  # noqa: E402
    case_links_html,
    case_table,
    drilldown_html,
    render_run_page,
    show_html,
)

__all__ += ["case_links_html", "case_table", "drilldown_html", "gate_banner",
            "load_diff", "publish_result", "regression_banner", "render_run_page", "run_banner",
            "show_html"]
