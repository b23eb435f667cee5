"""The regression report notebook (docs/notebooks.md): helpers the notebook calls, and
:func:`render_regression_notebook`, which executes ``notebooks/regression_report.ipynb`` with
papermill and exports static HTML (charts are inline SVG, so the HTML needs no network).

Typical use::

    from rcaeval.report import render_regression_notebook
    r = render_regression_notebook("nightly-42", db="data/rcaeval.duckdb", out="report.html")
    r.regressed, r.gate_failed, r.html, r.ipynb
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rcaeval.errors import InputError, NotFoundError, RcaevalError
from rcaeval.store import Store

KERNEL_NAME = "python3"
"""The kernel papermill starts. jupyter_client starts the ``python3`` kernelspec with the
interpreter that runs papermill (its ``python`` argv[0] is replaced by ``sys.executable``),
so the notebook runs in the same environment as ``rcaeval``."""
RESULT_MIME = "application/vnd.rcaeval.regression+json"
"""Mimetype of the last cell's machine-readable result (``regressed``, ``gate_failed``)."""
NOTEBOOK_NAME = "regression_report.ipynb"
VERDICTS: tuple[str, ...] = ("pass", "fail", "invalid")
VERDICT_COLORS: tuple[str, ...] = ("#4c9a2a", "#d9822b", "#b0413e")


def default_notebook_path() -> Path:
    """``regression_report.ipynb`` of the checkout's ``notebooks/`` (or the wheel's copy)."""
    from rcaeval._paths import notebooks_dir

    return notebooks_dir() / NOTEBOOK_NAME


# --------------------------------------------------------------------------- notebook helpers


def run_exists(store: Store, run_id: str) -> bool:
    """Whether the store has an ``eval_runs`` row or any judgment for ``run_id``."""
    q = ("SELECT (SELECT count(*) FROM eval_runs WHERE run_id = ?) "
         "+ (SELECT count(*) FROM eval_judgment WHERE run_id = ?)")
    rows = store.con.execute(q, [run_id, run_id]).fetchall()
    return bool(rows and rows[0][0])


def verdict_counts(judgments: pl.DataFrame) -> pl.DataFrame:
    """Cases per verdict (every verdict present, in pass/fail/invalid order)."""
    found = dict(judgments.group_by("verdict").len().iter_rows()) if judgments.height else {}
    return pl.DataFrame({"verdict": list(VERDICTS),
                         "cases": [int(found.get(v, 0)) for v in VERDICTS]})


def case_type_verdicts(judgments: pl.DataFrame) -> pl.DataFrame:
    """One row per case type, one column per verdict, plus ``total``."""
    rows: list[dict[str, Any]] = []
    types = sorted({t or "-" for t in judgments["case_type"].to_list()}) if judgments.height \
        else []
    for t in types:
        sub = judgments.filter(pl.col("case_type").fill_null("-") == t)
        row: dict[str, Any] = {"case_type": t}
        for v in VERDICTS:
            row[v] = sub.filter(pl.col("verdict") == v).height
        row["total"] = sub.height
        rows.append(row)
    schema: dict[str, Any] = {"case_type": pl.String, **{v: pl.Int64 for v in VERDICTS},
                              "total": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def bucket_pass_rates(buckets: pl.DataFrame) -> pl.DataFrame:
    """Per bucket: cases, passing cases and the pass rate (0..1)."""
    if buckets.height == 0:
        return pl.DataFrame(schema={"bucket": pl.String, "cases": pl.Int64,
                                    "passed": pl.Int64, "pass_rate": pl.Float64})
    return (
        buckets.group_by("bucket")
        .agg(pl.len().cast(pl.Int64).alias("cases"),
             (pl.col("status") == "pass").sum().cast(pl.Int64).alias("passed"))
        .with_columns((pl.col("passed") / pl.col("cases")).alias("pass_rate"))
        .sort("bucket")
    )


def baseline_from_run(store: Store, baseline_run: str, registry_root: str | Path | None,
                      suite_id: str) -> Any:
    """A :class:`~rcaeval.registry.BaselineSpec` built from a run in the store (what
    promoting it would write), to compare against a run other than the registry baseline."""
    from rcaeval.registry import BaselineSpec, load_suite
    from rcaeval.report._data import load_run
    from rcaeval.report._promote import baseline_document
    from rcaeval.report._suite import resolve_registry

    data = load_run(store, baseline_run)
    suite = load_suite(resolve_registry(registry_root), suite_id)
    return BaselineSpec.model_validate(baseline_document(data, suite))


def load_diff(store: Store, run_id: str, registry_root: str | Path | None,
              baseline_run: str | None = None) -> tuple[Any, str]:
    """``(BaselineDiff | None, message)``: the run against the registry baseline of its suite
    (or against ``baseline_run`` from the store); ``None`` and why when there is none."""
    from rcaeval.report._diff import diff_against_baseline
    from rcaeval.report._suite import find_baseline

    rows = store.con.execute("SELECT suite_id FROM eval_runs WHERE run_id = ?",
                             [run_id]).fetchall()
    suite_id = rows[0][0] if rows else None
    if not suite_id:
        return None, (f"run {run_id} records no suite (judged from an audit dir?): "
                      "no baseline comparison")
    try:
        if baseline_run:
            spec = baseline_from_run(store, baseline_run, registry_root, suite_id)
            where = f"run {baseline_run} from the store"
        else:
            spec = find_baseline(registry_root, suite_id)
            if spec is None:
                return None, (f"suite {suite_id} has no baseline in the registry: no "
                              "baseline comparison (promote one with `rcaeval baseline "
                              "promote RUN_ID`)")
            where = f"registry baseline {spec.run_id}"
        diff = diff_against_baseline(store, run_id, registry_root, baseline=spec)
    except RcaevalError as exc:
        return None, f"no baseline comparison: {exc}"
    return diff, f"compared with {where} (suite {suite_id} {spec.suite_version})"


def verdict_chart(judgments: pl.DataFrame) -> Any:
    """Stacked bars: cases per case type, coloured by verdict."""
    import altair as alt

    data = (judgments.with_columns(pl.col("case_type").fill_null("-"))
            .group_by("case_type", "verdict").len().rename({"len": "cases"})
            .sort("case_type", "verdict"))
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("case_type:N", title="case type"),
            y=alt.Y("cases:Q", title="cases", stack="zero"),
            color=alt.Color("verdict:N", scale=alt.Scale(domain=list(VERDICTS),
                                                          range=list(VERDICT_COLORS))),
            tooltip=["case_type", "verdict", "cases"],
        )
        .properties(title="Verdicts by case type", width=320, height=220)
    )


def score_chart(judgments: pl.DataFrame, diff: Any | None) -> Any:
    """Score per case: this run, and the baseline when there is one."""
    import altair as alt

    frames = [judgments.select("case_id", pl.col("score").cast(pl.Float64))
              .with_columns(pl.lit("this run").alias("series"))]
    if diff is not None:
        frames.append(diff.frame.filter(pl.col("in_baseline"))
                      .select("case_id", pl.col("score_before").cast(pl.Float64).alias("score"))
                      .with_columns(pl.lit("baseline").alias("series")))
    data = pl.concat(frames).drop_nulls("score").sort("case_id", "series")
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("case_id:N", title=None),
            x=alt.X("score:Q", title="score", scale=alt.Scale(domain=[0, 100])),
            yOffset=alt.YOffset("series:N"),
            color=alt.Color("series:N", scale=alt.Scale(domain=["baseline", "this run"],
                                                         range=["#9aa5b1", "#2f6db5"])),
            tooltip=["case_id", "series", "score"],
        )
        .properties(title="Score per case", width=360)
    )


def bucket_chart(rates: pl.DataFrame) -> Any:
    """Horizontal bars: the pass rate of each bucket over the run's cases."""
    import altair as alt

    return (
        alt.Chart(rates)
        .mark_bar(color="#2f6db5")
        .encode(
            y=alt.Y("bucket:N", title=None, sort="-x"),
            x=alt.X("pass_rate:Q", title="pass rate", axis=alt.Axis(format="%"),
                    scale=alt.Scale(domain=[0, 1])),
            tooltip=["bucket", "passed", "cases", alt.Tooltip("pass_rate:Q", format=".0%")],
        )
        .properties(title="Bucket pass rates", width=320)
    )


def chart_svg(chart: Any) -> str:
    """The chart rendered to an SVG string by vl-convert (no browser, no network)."""
    buf = io.StringIO()
    chart.save(buf, format="svg")
    return buf.getvalue()


def show_chart(chart: Any) -> None:
    """Display ``chart`` as static inline SVG, never as vega-embed: the output carries the
    ``<svg>`` element as ``text/html`` (which nbconvert's HTML export inlines verbatim; it
    would base64 an ``image/svg+xml`` output into an ``<img>``) and as ``image/svg+xml``."""
    from IPython.display import display

    svg = chart_svg(chart)
    start = svg.find("<svg")
    inline = svg[start:] if start >= 0 else svg
    display({"text/html": f'<div class="rcaeval-chart">{inline}</div>',
             "image/svg+xml": inline}, raw=True)


def publish_result(run_id: str, diff: Any | None, regressed: int) -> None:
    """Emit the notebook's machine-readable result (read back by the CLI)."""
    from IPython.display import display

    payload = {"run_id": run_id, "regressed": int(regressed),
               "gate_failed": bool(diff.gate_failed) if diff is not None else False,
               "gate_reasons": list(diff.gate_reasons) if diff is not None else [],
               "baseline_run": diff.baseline.run_id if diff is not None else None,
               "kernel_python": sys.executable}
    display({RESULT_MIME: payload, "text/plain": f"regressed = {int(regressed)}"}, raw=True)


# --------------------------------------------------------------------------- execute + export


@dataclass(frozen=True)
class NotebookRender:
    """What :func:`render_regression_notebook` produced."""

    run_id: str
    html: Path
    ipynb: Path
    regressed: int
    gate_failed: bool
    gate_reasons: tuple[str, ...]
    baseline_run: str | None
    kernel_python: str | None

    @property
    def failed(self) -> bool:
        """Regressions (or a failed baseline gate): what ``--fail-on-regression`` exits 4 on."""
        return self.regressed > 0 or self.gate_failed


def read_result(nb: Any) -> dict[str, Any] | None:
    """The :data:`RESULT_MIME` payload of an executed notebook (the last one wins)."""
    found: dict[str, Any] | None = None
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if RESULT_MIME in data:
                value = data[RESULT_MIME]
                found = json.loads(value) if isinstance(value, str) else dict(value)
    return found


def export_html(nb: Any, *, no_input: bool = False) -> str:
    """Static HTML of an executed notebook, with no remote scripts (no MathJax/require.js
    CDN, no widget manager); charts are already inline SVG."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = no_input
    exporter.exclude_input_prompt = no_input
    exporter.exclude_output_prompt = no_input
    body, _ = exporter.from_notebook_node(nb)
    return _strip_remote_scripts(body)


def _strip_remote_scripts(html: str) -> str:
    import re

    return re.sub(r"<script[^>]*\bsrc=[\"']https?://[^\"']*[\"'][^>]*>\s*</script>", "", html,
                  flags=re.IGNORECASE)


def render_regression_notebook(
    run_id: str,
    *,
    db: str | Path | None = None,
    registry: str | Path | None = None,
    baseline_run: str | None = None,
    out: str | Path | None = None,
    no_input: bool = False,
    notebook: str | Path | None = None,
    timeout_s: int = 600,
) -> NotebookRender:
    """Execute the regression notebook for ``run_id`` with papermill (kernel
    :data:`KERNEL_NAME`), write the executed ``.ipynb`` and the HTML export next to each other
    (default ``regression_<run_id>.html`` in the current directory), and return the result.

    :class:`NotFoundError` for an unknown run or a missing notebook; :class:`RcaevalError`
    when a cell fails (the executed notebook and HTML are still written, showing the error).
    """
    import nbformat
    import papermill as pm

    from rcaeval.store import connect, resolve_db_path

    src = Path(notebook) if notebook is not None else default_notebook_path()
    if not src.is_file():
        raise NotFoundError(f"notebook {src} does not exist")
    db_path = resolve_db_path(db)
    if db_path is None or not Path(db_path).exists():
        raise NotFoundError(f"store {db_path or db} does not exist")
    db_path = Path(db_path).resolve()
    with connect(db_path, read_only=True) as s:
        if not run_exists(s, run_id):
            raise NotFoundError(f"run {run_id!r} is not in the store {db_path}")
    html = Path(out) if out is not None else Path(f"regression_{run_id}.html")
    html = html.resolve()
    ipynb = html.with_suffix(".ipynb")
    html.parent.mkdir(parents=True, exist_ok=True)
    params: dict[str, Any] = {
        "db": str(db_path),
        "run_id": run_id,
        "registry": str(Path(registry).resolve()) if registry is not None else None,
        "baseline_run": baseline_run,
    }
    error: BaseException | None = None
    try:
        pm.execute_notebook(str(src), str(ipynb), parameters=params, kernel_name=KERNEL_NAME,
                            cwd=str(src.parent), progress_bar=False, log_output=False,
                            execution_timeout=timeout_s)
    except pm.PapermillExecutionError as exc:
        error = exc
    nb = nbformat.read(str(ipynb), as_version=4)
    html.write_text(export_html(nb, no_input=no_input), encoding="utf-8")
    if error is not None:
        raise RcaevalError(f"the regression notebook failed ({ipynb}): {error}")
    result = read_result(nb)
    if result is None:
        raise InputError(f"the executed notebook {ipynb} published no result ({RESULT_MIME})")
    return NotebookRender(
        run_id=run_id, html=html, ipynb=ipynb, regressed=int(result["regressed"]),
        gate_failed=bool(result.get("gate_failed")),
        gate_reasons=tuple(result.get("gate_reasons") or ()),
        baseline_run=result.get("baseline_run"), kernel_python=result.get("kernel_python"),
    )
