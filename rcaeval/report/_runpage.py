"""The run page (docs/notebooks.md): ``notebooks/run_report.ipynb`` executed with papermill
and exported to one self-contained HTML file. Each case in its table links (``#case-...``)
to the case's judgment drill-down further down the same page: bucket -> check -> evidence
excerpt with file and line, the tree ``rcaeval explain`` prints -- and, for a case judged
with the semantic shadow, what ``rcaeval explain`` prints after it.

Typical use::

    from rcaeval.report import render_run_page
    page = render_run_page("nightly-42", db="data/rcaeval.duckdb", out="nightly-42.html")
    page.html, page.ipynb, page.cases
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rcaeval.store import Store

RUN_NOTEBOOK_NAME = "run_report.ipynb"
CASE_COLUMNS: tuple[str, ...] = ("case_id", "case_type", "verdict", "blended_verdict", "score",
                                 "subtype", "failing_bucket", "failing_check", "run_status")
"""The columns of the run page's case table, in order. ``blended_verdict`` (the semantic
shadow's second-pass verdict, :func:`rcaeval.semantic.blended_verdicts`; blank where the
deterministic verdict stands) is there only when some case of the run was judged again."""


def _drilldown_css() -> str:
    from rcaeval.charts import palette_css

    return f"""<style>
.rcaeval-case {{ border-top: 1px solid #ccc; margin-top: 1em; }}
.rcaeval-case pre {{ background: #f6f6f6; padding: 2px 6px; margin: 2px 0; white-space: pre-wrap; }}
.rcaeval-case .evidence {{ margin-left: 1.5em; font-size: 90%; }}
.rcaeval-case details.passed-checks {{ margin-left: 1.5em; }}
.rcaeval-case details.passed-checks > summary {{ cursor: pointer; color: #555; }}
{palette_css()}
.rcaeval-table td.num {{ text-align: right; }}
</style>"""


DRILLDOWN_CSS = _drilldown_css()
"""Styles of the drill-down: the verdict / state colours are the palette's
(:func:`rcaeval.charts.palette_css`), the same as every chart's."""
def _semantic_css() -> str:
    from rcaeval.charts import palette_css

    return f"""<style>
.rcaeval-semantic {{ margin: 0.5em 0 0 1.5em; }}
.rcaeval-semantic caption {{ text-align: left; font-weight: bold; }}
{palette_css(("tie",))}
</style>"""


SEMANTIC_CSS = _semantic_css()
"""Styles of the semantic part of a drill-down, added only when the run has a shadow (a page
of a run without one is unchanged)."""


def default_run_notebook_path() -> Path:
    """``run_report.ipynb`` of the checkout's ``notebooks/`` (or the wheel's copy)."""
    from rcaeval._paths import notebooks_dir

    return notebooks_dir() / RUN_NOTEBOOK_NAME


def case_table(store: Store, run_id: str) -> pl.DataFrame:
    """One row per case of the run (:data:`CASE_COLUMNS`), as the run reports see it."""
    from rcaeval.report._data import load_run
    from rcaeval.semantic import blended_verdicts

    cases = load_run(store, run_id).cases
    blended = blended_verdicts(store, run_id)
    if not blended.is_empty():
        cases = cases.join(blended, on="case_id", how="left", maintain_order="left")
    return cases.select([c for c in CASE_COLUMNS if c in cases.columns])


def case_links_html(cases: pl.DataFrame) -> str:
    """The case table as HTML, each judged case id linking to its drill-down anchor
    (:func:`rcaeval.judge.case_anchor`); a case without a judgment has no link."""
    from rcaeval.charts import table_html
    from rcaeval.judge import case_anchor

    judged = set(cases.filter(pl.col("verdict").is_not_null())["case_id"].to_list())
    return table_html(cases, links={
        "case_id": lambda c: f"#{case_anchor(c)}" if c in judged else None})


def drilldown_html(store: Store, run_id: str) -> str:
    """Every judged case's bucket -> check -> evidence tree (:func:`rcaeval.judge.explain_html`)
    as consecutive ``<section>`` elements, with the page's drill-down styles; a case judged
    with the semantic shadow also shows it (status, deterministic vs blended, detectors vs
    model per diagnosis check), with :data:`SEMANTIC_CSS` added. Each case says what its
    evidence seal and incident-data checks found (docs/judge.md, "Sealed evidence")."""
    from rcaeval.judge import explain_html, load_judgment
    from rcaeval.report._integrity import describe, integrity_of
    from rcaeval.semantic import load_shadows

    ids = store.judgments(run_id=run_id)["case_id"].to_list()
    shadows = load_shadows(store, run_id)
    integrity = integrity_of(store, run_id)
    css = DRILLDOWN_CSS + (SEMANTIC_CSS if shadows else "")
    return css + "".join(explain_html(load_judgment(store, run_id, c), shadows.get(c),
                                      describe(integrity.get(c))) for c in ids)


def show_html(markup: str) -> None:
    """Display raw HTML in a notebook (kept verbatim by nbconvert's HTML export)."""
    from IPython.display import display

    display({"text/html": markup, "text/plain": "(HTML)"}, raw=True)


@dataclass(frozen=True)
class RunPage:
    """What :func:`render_run_page` produced."""

    run_id: str
    html: Path
    ipynb: Path
    cases: int


def render_run_page(run_id: str, *, db: str | Path | None = None,
                    out: str | Path | None = None, show_code: bool = False,
                    notebook: str | Path | None = None, timeout_s: int = 600) -> RunPage:
    """Execute the run page notebook for ``run_id`` and write ``out`` (default
    ``run_<run_id>.html``) with the executed ``.ipynb`` next to it. Outputs only unless
    ``show_code``. :class:`NotFoundError` for an unknown run, store or notebook;
    :class:`RcaevalError` when a cell fails (both files are still written)."""
    from rcaeval.report._notebook import execute_to_html, resolve_store
    from rcaeval.store import connect

    src = Path(notebook) if notebook is not None else default_run_notebook_path()
    db_path = resolve_store(db, run_id)
    params: dict[str, Any] = {"db": str(db_path), "run_id": run_id}
    html = Path(out) if out is not None else Path(f"run_{run_id}.html")
    _, html, ipynb = execute_to_html(src, html, params, show_code=show_code,
                                     timeout_s=timeout_s, out_field="--html")
    with connect(db_path, read_only=True) as s:
        n = s.judgments(run_id=run_id).height
    return RunPage(run_id=run_id, html=html, ipynb=ipynb, cases=n)
