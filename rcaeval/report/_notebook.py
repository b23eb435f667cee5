"""The regression report notebook (docs/notebooks.md): helpers the notebook calls, and
:func:`render_regression_notebook`, which executes ``notebooks/regression_report.ipynb`` with
papermill and exports static HTML (charts are inline SVG, so the HTML needs no network).

Typical use::

    from rcaeval.report import render_regression_notebook
    r = render_regression_notebook("nightly-42", db="data/rcaeval.duckdb", out="report.html")
    r.regressed, r.gate_failed, r.html, r.ipynb
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcaeval._inputs import check_output_file
from rcaeval._paths import read_query
from rcaeval.errors import InputError, NotFoundError, RcaevalError
from rcaeval.store import Store

KERNEL_NAME = "python3"
"""The kernel papermill starts. jupyter_client starts the ``python3`` kernelspec with the
interpreter that runs papermill (its ``python`` argv[0] is replaced by ``sys.executable``),
so the notebook runs in the same environment as ``rcaeval``."""
RESULT_MIME = "application/vnd.rcaeval.regression+json"
"""Mimetype of the last cell's machine-readable result (``regressed``, ``gate_failed``)."""
NOTEBOOK_NAME = "regression_report.ipynb"


def default_notebook_path() -> Path:
    """``regression_report.ipynb`` of the checkout's ``notebooks/`` (or the wheel's copy)."""
    from rcaeval._paths import notebooks_dir

    return notebooks_dir() / NOTEBOOK_NAME


# --------------------------------------------------------------------------- notebook helpers


def run_exists(store: Store, run_id: str) -> bool:
    """Whether the store has an ``eval_runs`` row or any judgment for ``run_id``."""
    rows = store.con.execute(read_query("report/run_exists.sql"), {"run_id": run_id}).fetchall()
    return bool(rows and rows[0][0])


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

    rows = store.con.execute(read_query("report/run_suite.sql"), {"run_id": run_id}).fetchall()
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


def publish_result(run_id: str, diff: Any | None, regressed: int) -> None:
    """Emit the notebook's machine-readable result (read back by the CLI); the page shows
    nothing for it."""
    from IPython.display import display

    payload = {"run_id": run_id, "regressed": int(regressed),
               "gate_failed": bool(diff.gate_failed) if diff is not None else False,
               "gate_reasons": list(diff.gate_reasons) if diff is not None else [],
               "baseline_run": diff.baseline.run_id if diff is not None else None,
               "kernel_python": sys.executable}
    # An empty text/html beside the result: nbconvert would otherwise print the plain-text
    # fallback ("regressed = 11") at the end of the page; the banner at the top says it.
    display({RESULT_MIME: payload, "text/html": ""}, raw=True)


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


def export_html(nb: Any, *, show_code: bool = False) -> str:
    """Static HTML of an executed notebook, with no remote scripts (no MathJax/require.js
    CDN, no widget manager); charts are already inline SVG. Code cells (and the In/Out
    prompts) are left out unless ``show_code``."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = not show_code
    exporter.exclude_input_prompt = not show_code
    exporter.exclude_output_prompt = not show_code
    body, _ = exporter.from_notebook_node(nb)
    return _strip_remote_scripts(body)


def _strip_remote_scripts(html: str) -> str:
    import re

    return re.sub(r"<script[^>]*\bsrc=[\"']https?://[^\"']*[\"'][^>]*>\s*</script>", "", html,
                  flags=re.IGNORECASE)


def resolve_store(db: str | Path | None, run_id: str) -> Path:
    """The absolute store path for a report on ``run_id``; :class:`NotFoundError` when the
    store file or the run is missing."""
    from rcaeval.store import connect, resolve_db_path

    db_path = resolve_db_path(db)
    if db_path is None or not Path(db_path).exists():
        raise NotFoundError(f"store {db_path or db} does not exist")
    db_path = Path(db_path).resolve()
    with connect(db_path, read_only=True) as s:
        if not run_exists(s, run_id):
            raise NotFoundError(f"run {run_id!r} is not in the store {db_path}")
    return db_path


def check_html_out(html: str | Path, field: str = "--html") -> Path:
    """``html`` resolved, once it and the ``.ipynb`` beside it are files that can be written
    (a directory, a device or a path under a file is exit 3 naming ``field``, before anything
    runs)."""
    out = Path(html).resolve()
    check_output_file(out, field=field)
    check_output_file(out.with_suffix(".ipynb"), field=field)
    return out


def execute_to_html(src: str | Path, html: str | Path, params: dict[str, Any], *,
                    show_code: bool = False, timeout_s: int = 600,
                    out_field: str = "--out") -> tuple[Any, Path, Path]:
    """Execute the notebook ``src`` with papermill (kernel :data:`KERNEL_NAME`, working
    directory the notebook's folder), write the executed ``.ipynb`` next to ``html`` and the
    static HTML export to ``html``. Returns ``(notebook node, html, ipynb)``. An ``html``
    (or ``.ipynb``) that is a directory or device is exit 3 naming ``out_field``, before
    anything is executed.

    :class:`NotFoundError` for a missing notebook; :class:`RcaevalError` when a cell fails
    (the executed notebook and HTML are still written, showing the error)."""
    import nbformat

    src = Path(src)
    if not src.is_file():
        raise NotFoundError(f"notebook {src} does not exist")
    out = check_html_out(html, field=out_field)
    ipynb = out.with_suffix(".ipynb")
    out.parent.mkdir(parents=True, exist_ok=True)
    error = _papermill(src, ipynb, params, timeout_s)
    nb = nbformat.read(str(ipynb), as_version=4)
    out.write_text(export_html(nb, show_code=show_code), encoding="utf-8")
    if error is not None:
        raise RcaevalError(f"the notebook {src.name} failed ({ipynb}): {error}")
    return nb, out, ipynb


def _papermill(src: Path, ipynb: Path, params: dict[str, Any],
               timeout_s: int) -> BaseException | None:
    import papermill as pm

    from rcaeval.report._kernel import kernel_options

    with kernel_options() as opts:
        try:
            pm.execute_notebook(str(src), str(ipynb), parameters=params,
                                kernel_name=KERNEL_NAME, cwd=str(src.parent),
                                progress_bar=False, log_output=False,
                                execution_timeout=timeout_s, **opts)
        except pm.PapermillExecutionError as exc:
            return exc
    return None


def render_regression_notebook(
    run_id: str,
    *,
    db: str | Path | None = None,
    registry: str | Path | None = None,
    baseline_run: str | None = None,
    out: str | Path | None = None,
    show_code: bool = False,
    notebook: str | Path | None = None,
    timeout_s: int = 600,
) -> NotebookRender:
    """Execute the regression notebook for ``run_id`` with papermill (kernel
    :data:`KERNEL_NAME`), write the executed ``.ipynb`` and the HTML export next to each other
    (default ``regression_<run_id>.html`` in the current directory), and return the result.
    The HTML leaves code cells out unless ``show_code``.

    :class:`NotFoundError` for an unknown run or a missing notebook; :class:`RcaevalError`
    when a cell fails (the executed notebook and HTML are still written, showing the error).
    """
    src = Path(notebook) if notebook is not None else default_notebook_path()
    if not src.is_file():
        raise NotFoundError(f"notebook {src} does not exist")
    db_path = resolve_store(db, run_id)
    params: dict[str, Any] = {
        "db": str(db_path),
        "run_id": run_id,
        "registry": str(Path(registry).resolve()) if registry is not None else None,
        "baseline_run": baseline_run,
    }
    html = Path(out) if out is not None else Path(f"regression_{run_id}.html")
    nb, html, ipynb = execute_to_html(src, html, params, show_code=show_code,
                                      timeout_s=timeout_s)
    result = read_result(nb)
    if result is None:
        raise InputError(f"the executed notebook {ipynb} published no result ({RESULT_MIME})")
    return NotebookRender(
        run_id=run_id, html=html, ipynb=ipynb, regressed=int(result["regressed"]),
        gate_failed=bool(result.get("gate_failed")),
        gate_reasons=tuple(result.get("gate_reasons") or ()),
        baseline_run=result.get("baseline_run"), kernel_python=result.get("kernel_python"),
    )


EXPLORE_NOTEBOOK_NAME = "explore.ipynb"


def render_explore_notebook(
    *,
    db: str | Path | None = None,
    run_a: str,
    run_b: str,
    runs: list[str] | None = None,
    out: str | Path | None = None,
    show_code: bool = False,
    timeout_s: int = 600,
) -> tuple[Path, Path]:
    """Execute ``notebooks/explore.ipynb`` (slices of ``runs``, default every judged run;
    ``run_a`` vs ``run_b`` paired) and write its HTML (default ``explore.html``) and executed
    ``.ipynb``; returns both paths. :class:`NotFoundError` for a missing store or run."""
    from rcaeval._paths import notebooks_dir

    db_path = resolve_store(db, run_a)
    resolve_store(db_path, run_b)
    for r in runs or ():
        resolve_store(db_path, r)
    params: dict[str, Any] = {"db": str(db_path), "runs": list(runs) if runs else None,
                              "run_a": run_a, "run_b": run_b}
    html = Path(out) if out is not None else Path("explore.html")
    _, html, ipynb = execute_to_html(notebooks_dir() / EXPLORE_NOTEBOOK_NAME, html, params,
                                     show_code=show_code, timeout_s=timeout_s)
    return html, ipynb


RELEASE_NOTEBOOK_NAME = "release_gate.ipynb"


@dataclass(frozen=True)
class ReleaseGateRender:
    """What :func:`render_release_gate_notebook` produced: the files, the gate decision, and
    the store the trend read (``db``; None when there was none) with the number of windows
    the trend shows and a one-line note about it."""

    html: Path
    ipynb: Path
    passed: bool
    db: Path | None
    trend_windows: int
    trend_note: str
    metrics: Path | None = None
    """The artifact reported on: the given file, or the one measured from ``captures``."""
    problems: tuple[dict[str, Any], ...] = ()
    """Invalid capture/review lines left out when measuring ``captures`` (as
    :attr:`rcaeval.release.Measurement.problems`)."""


def _existing_store(db: str | Path) -> None:
    """:class:`NotFoundError` unless the explicitly given store file exists."""
    from rcaeval.store import resolve_db_path

    path = resolve_db_path(db)
    if path is None or not Path(path).exists():
        raise NotFoundError(f"store {path or db} does not exist")


def _trend_store(db: str | Path | None, doc: dict[str, Any], *, allow_synthetic: bool
                 ) -> tuple[Path | None, int, str]:
    """The store the release-gate trend reads, how many windows it will show, and a note.
    An explicit ``db`` must exist (:class:`NotFoundError`); the default store is used only
    when its file exists. An old store without the release windows is an :class:`InputError`
    (``rcaeval db migrate``) raised by the read-only connect."""
    from rcaeval.charts import left_out_note, release_trend, release_trend_left_out
    from rcaeval.store import connect, resolve_db_path

    path = resolve_db_path(db)
    if path is None or not Path(path).exists():
        if db is not None:
            raise NotFoundError(f"store {path or db} does not exist")
        return None, 1, (f"no store ({path} does not exist): this window only; record "
                         "windows with `rcaeval release metrics --record`")
    path = Path(path).resolve()
    with connect(path, read_only=True) as s:
        trend = release_trend(s, doc, allow_synthetic=allow_synthetic)
        left = left_out_note(release_trend_left_out(s, doc, allow_synthetic=allow_synthetic))
    n = trend["window"].n_unique() if trend.height else 0
    return path, n, f"{n} window(s) from {path}" + (f"; {left}" if left else "")


def render_release_gate_notebook(
    metrics: str | Path | None = None,
    *,
    captures: str | Path | None = None,
    window: str | None = None,
    reviews: str | Path | None = None,
    db: str | Path | None = None,
    stage: str | None = None,
    strict: bool = False,
    allow_synthetic: bool = False,
    out: str | Path | None = None,
    show_code: bool = False,
    timeout_s: int = 600,
    shadow: str | Path | None = None,
) -> ReleaseGateRender:
    """Execute ``notebooks/release_gate.ipynb`` on a ``release_metrics/1`` file and write its
    HTML (default ``release_gate.html``) and executed ``.ipynb``. The artifact is loaded and
    checked first, so a refused one raises the same :class:`InputError` as ``rcaeval release
    gate`` (exit 3) before anything runs. The trend reads the windows recorded in the store
    ``db`` (default ``$RCAEVAL_DB``, else ``<data>/rcaeval.duckdb``, when that file exists;
    see :func:`rcaeval.release.record_window`) of the artifact's stage, up to its window.

    Instead of ``metrics``, ``captures`` + ``window`` (+ ``reviews``) measure the window first
    (:func:`rcaeval.release.measure`, only ``stage``'s captures when given) and write the
    artifact next to the HTML (``<html stem>.metrics.json`` + ``.sha256``), which the report
    then reads; invalid capture/review lines are left out and returned in ``problems``.
    ``shadow``: a shadow artifact of the same window, compared with this one in the page's
    last section (:func:`rcaeval.release.compare`; refused before anything runs when it
    cannot be compared)."""
    from rcaeval._paths import notebooks_dir
    from rcaeval.release import check_gate, load_artifact

    html = check_html_out(out if out is not None else "release_gate.html")
    problems: tuple[dict[str, Any], ...] = ()
    if db is not None:
        _existing_store(db)
    if captures is not None:
        if metrics is not None:
            raise InputError("give a metrics file or captures + window, not both",
                             field="captures")
        if not window:
            raise InputError("measuring captures needs a window (START..END)", field="window")
        from rcaeval.release import load_key, measure, write_metrics_json

        m = measure(captures, window, reviews=reviews, stage=stage)
        metrics = html.resolve().with_suffix(".metrics.json")
        write_metrics_json(m, metrics, sign_key=load_key(None))  # $RCAEVAL_RELEASE_KEY
        problems = tuple(m.problems)
    elif metrics is None:
        raise InputError("give a metrics file (release_metrics/1) or captures + window",
                         field="metrics")
    path = Path(metrics).resolve()
    doc = load_artifact(path)
    result = check_gate(doc, allow_synthetic=allow_synthetic, strict=strict, stage=stage)
    if shadow is not None:
        from rcaeval.release import compare

        shadow = Path(shadow).resolve()
        compare(doc, load_artifact(shadow), paired=False)   # refused here, not mid-render
    db_path, windows, note = _trend_store(db, doc, allow_synthetic=allow_synthetic)
    params: dict[str, Any] = {"metrics": str(path), "stage": stage, "strict": strict,
                              "allow_synthetic": allow_synthetic,
                              "db": str(db_path) if db_path is not None else None,
                              "shadow": str(shadow) if shadow is not None else None}
    _, html, ipynb = execute_to_html(notebooks_dir() / RELEASE_NOTEBOOK_NAME, html, params,
                                     show_code=show_code, timeout_s=timeout_s)
    return ReleaseGateRender(html=html, ipynb=ipynb, passed=result.passed, db=db_path,
                             trend_windows=windows, trend_note=note, metrics=path,
                             problems=problems)
