"""Release metrics over a window of captures: the measurement, its provenance and the metrics
JSON artifact (``release_metrics/1``, docs/release.md)."""

from __future__ import annotations

import hashlib
import subprocess
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl

import rcaeval
from rcaeval._inputs import check_output_file
from rcaeval._paths import queries_dir
from rcaeval.errors import InputError
from rcaeval.metrics import compute_metrics, get_metric
from rcaeval.release._captures import (
    RELEASE_QUERIES,
    build_window,
    load_captures,
    open_connection,
    population,
    problems,
)
from rcaeval.release._diagnostics import DIAGNOSTIC_QUERIES, diagnostics, knowledge_measured
from rcaeval.release._models import STAGES, Review
from rcaeval.release._reviews import ReviewFile, read_review_labels, review_labels
from rcaeval.release._thresholds import GATE
from rcaeval.release._window import Window, parse_window
from rcaeval.stats import DEFAULT_CONFIDENCE

METRICS_FORMAT = "release_metrics/1"
PACKAGE = "rcaeval-judge"
ALL_TIME = Window(datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC), "all")
FRAME_COLUMNS = ("metric", "kind", "value", "numerator", "denominator", "ci_low", "ci_high",
                 "query")


@dataclass
class Measurement:
    """One measurement: the metrics frame plus everything its provenance needs."""

    frame: pl.DataFrame
    window: Window
    stage: str | None
    population: dict[str, Any]
    inputs: list[dict[str, Any]]
    reviews: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    confidence: float
    computed_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    knowledge: dict[str, Any] = field(
        default_factory=lambda: {"packages": [], "unrecorded": 0})
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def document(self, out: Path | None = None, *, synthetic: bool = False) -> dict[str, Any]:
        """The metrics JSON artifact (sealed: ``provenance.output.sha256`` filled in)."""
        metrics: dict[str, Any] = {}
        for row in self.frame.iter_rows(named=True):
            m = get_metric(row["query"])
            metrics[row["metric"]] = _entry(row, m.describe(), self.confidence)
        doc: dict[str, Any] = {
            "format": METRICS_FORMAT,
            "synthetic": synthetic,
            "metrics": metrics,
            "diagnostics": self.diagnostics,
            "provenance": {
                "window": self.window.as_dict(),
                "stage": self.stage,
                "population": self.population,
                "knowledge": self.knowledge,
                "inputs": {"captures": self.inputs, "reviews": self.reviews},
                "problems": {"count": len(self.problems),
                             "first": [_jsonable(p) for p in self.problems[:50]]},
                "measurement_job": measurement_job(),
                "computed_at": self.computed_at.isoformat().replace("+00:00", "Z"),
                "output": {"path": str(out) if out is not None else None, "sha256": None},
            },
        }
        return seal(doc)


def _jsonable(p: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in p.items() if v is not None}


def _entry(row: dict[str, Any], definition: dict[str, Any], confidence: float) -> dict[str, Any]:
    kind = row["kind"]
    value: Any = row["value"]
    if value is not None and kind == "count":
        value = int(value)
    elif value is not None and kind == "bool":
        value = bool(value)
    entry: dict[str, Any] = {"kind": kind, "value": value, "sample_size": row["denominator"]}
    if kind in ("rate", "count"):
        entry["numerator"] = None if row["numerator"] is None else int(row["numerator"])
    if kind == "rate":
        entry["denominator"] = row["denominator"]
        entry["ci_low"], entry["ci_high"] = row["ci_low"], row["ci_high"]
        entry["confidence"] = confidence
        entry["interval"] = "wilson"
    if value is None:
        entry["empty"] = "no rows to measure (sample size 0): reported, not divided"
    entry["query"] = definition["file"]
    entry["definition"] = {k: definition[k] for k in ("numerator", "denominator", "rows")
                           if definition.get(k)}
    return entry


def canonical_bytes(doc: dict[str, Any]) -> bytes:
    """The bytes ``provenance.output.sha256`` digests and a signature covers: the document
    without its ``signature`` (and the loader's ``_`` annotations), with that field null,
    keys sorted, compact."""
    copy = orjson.loads(orjson.dumps({k: v for k, v in doc.items()
                                      if k != "signature" and not k.startswith("_")}))
    out = copy.setdefault("provenance", {}).setdefault("output", {})
    if isinstance(out, dict):
        out["sha256"] = None
    return orjson.dumps(copy, option=orjson.OPT_SORT_KEYS)


def seal(doc: dict[str, Any]) -> dict[str, Any]:
    """Fill in ``provenance.output.sha256`` (call after any edit, e.g. in tests)."""
    doc["provenance"]["output"]["sha256"] = hashlib.sha256(canonical_bytes(doc)).hexdigest()
    return doc


def _query_hashes() -> dict[str, str]:
    root = queries_dir()
    files = ([f"metrics/{t.query}.sql" for t in GATE] + list(RELEASE_QUERIES)
             + list(DIAGNOSTIC_QUERIES))
    return {f: hashlib.sha256((root / f).read_bytes()).hexdigest() for f in sorted(files)}


def _git_revision() -> dict[str, Any]:
    repo = Path(rcaeval.__file__).resolve().parent.parent
    if not (repo / ".git").exists():
        return {"git_revision": None, "git_dirty": None}
    try:
        rev = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain",
                                "--untracked-files=no", "--", "rcaeval", "queries"],
                               capture_output=True, text=True, timeout=10,
                               check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"git_revision": None, "git_dirty": None}
    return {"git_revision": rev or None, "git_dirty": bool(dirty)}


def measurement_job() -> dict[str, Any]:
    """What measured: package version, git revision (when run from a checkout) and the
    sha256 of every query that decides a release metric."""
    hashes = _query_hashes()
    combined = hashlib.sha256("".join(f"{k}\0{v}\n" for k, v in hashes.items()).encode())
    return {"package": PACKAGE, "package_version": rcaeval.__version__, **_git_revision(),
            "metric_queries_sha256": combined.hexdigest(), "queries": hashes}


def check_confidence(confidence: Any) -> float:
    """``confidence`` when it is a number strictly between 0 and 1; InputError otherwise."""
    if (isinstance(confidence, bool) or not isinstance(confidence, int | float)
            or not 0.0 < confidence < 1.0):
        raise InputError(f"confidence must be a number strictly between 0 and 1 (e.g. 0.95), "
                         f"got {confidence!r}", field="confidence")
    return float(confidence)


def _reviews_of(reviews: Any) -> tuple[pl.DataFrame | None, int, list[dict[str, Any]],
                                     list[dict[str, Any]]]:
    """(review labels or None, valid reviews, review inputs, review problems)."""
    if reviews is None:
        return None, 0, [], []
    if isinstance(reviews, str | Path):
        rl = read_review_labels(reviews)
        return rl.labels, rl.count, [rl.as_input()], rl.problems
    if isinstance(reviews, ReviewFile):
        items, inputs, probs = reviews.reviews, [reviews.as_input()], reviews.problems
    else:
        items = [r if isinstance(r, Review) else Review.model_validate(r) for r in reviews]
        inputs, probs = [{"path": "<python>", "sha256": None, "rows": len(items),
                          "invalid": 0}], []
    return review_labels(items) if items else None, len(items), inputs, probs


def query_captures(source: str | Path, sql: str, *, window: str | None = None,
                   reviews: Any = None, stage: str | None = None
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Run ``sql`` over the captures of ``source`` read and validated exactly as
    :func:`measure` reads them (``window``: ``START..END``, None every capture; ``reviews``
    and ``stage`` as there): the query sees the release relations (``release_capture``, ...,
    ``capture_text``) of a fresh DuckDB connection. Returns ``(rows as dicts, capture problems
    in file/line order, review problems)``."""
    win = ALL_TIME if window is None else parse_window(window)
    labels, n_reviews, _inputs, review_problems = _reviews_of(reviews)
    con = open_connection()
    try:
        loaded = load_captures(con, Path(source), start=win.start, end=win.end, stage=stage,
                               labels=labels if n_reviews else None)
        build_window(con)
        rel = con.sql(sql)
        rows = [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]
        probs = problems(con, loaded)
    finally:
        con.close()
    return rows, probs, review_problems


def measure(
    source: str | Path | pl.DataFrame,
    window: str | tuple[Any, Any] | Window | None = None,
    *,
    reviews: Any = None,
    stage: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    memory_limit: str | None = None,
    threads: int | None = None,
) -> Measurement:
    """Compute every release gate metric over the captures of ``source`` (a JSONL/Parquet
    file, a directory of them, or a polars frame) in ``window`` (None: every capture), for
    one ``stage`` (None: all). ``reviews``: a JSONL/CSV file, or Review objects/dicts, whose
    latest review per analysis_hash labels captures that carry no labels of their own."""
    if stage is not None and stage not in STAGES:
        raise InputError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}",
                         field="stage")
    check_confidence(confidence)
    win = ALL_TIME if window is None else parse_window(window)
    labels, n_reviews, review_inputs, review_problems = _reviews_of(reviews)
    con = open_connection(memory_limit, threads)
    try:
        loaded = load_captures(con, source if isinstance(source, pl.DataFrame) else Path(source),
                               start=win.start, end=win.end, stage=stage,
                               labels=labels if n_reviews else None)
        build_window(con)
        raw = compute_metrics(con, [t.query for t in GATE], confidence=confidence)
        pop = population(con, loaded)
        knowledge = knowledge_measured(con)
        diag = diagnostics(con, confidence)
        probs = problems(con, loaded) + review_problems
    except duckdb.OutOfMemoryException as exc:
        from rcaeval.store import resolve_memory_limit

        raise InputError(
            f"DuckDB ran out of memory computing the release metrics (memory_limit "
            f"{resolve_memory_limit(memory_limit)}): raise it (--memory-limit, "
            f"$RCAEVAL_DB_MEMORY_LIMIT) or measure a shorter window. {exc}",
            field="memory_limit") from exc
    finally:
        con.close()
    pop["reviews"] = n_reviews
    pop["invalid_reviews"] = sum(i.get("invalid") or 0 for i in review_inputs)
    names = {t.query: t.metric for t in GATE}
    frame = raw.rename({"metric": "query"}).with_columns(
        pl.col("query").replace_strict(names).alias("metric"),
        # a count over nothing (sample size 0) is not measured, like every other kind
        pl.when(pl.col("kind").eq("count") & pl.col("denominator").eq(0)).then(None)
        .otherwise(pl.col("value")).alias("value")).select(FRAME_COLUMNS)
    return Measurement(frame=frame, window=win, stage=stage, population=pop,
                       inputs=[i.as_dict() for i in loaded.inputs], reviews=review_inputs,
                       problems=probs, confidence=confidence, knowledge=knowledge,
                       diagnostics=diag)


def metrics(
    path_or_frame: str | Path | pl.DataFrame,
    window: str | tuple[Any, Any] | Window | None = None,
    *,
    reviews: Any = None,
    stage: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pl.DataFrame:
    """The release gate metrics as a polars frame, one row per metric (gate order):
    ``metric, kind, value, numerator, denominator, ci_low, ci_high, query``. Invalid captures
    are left out and reported as a warning (``measure()`` returns them)."""
    m = measure(path_or_frame, window, reviews=reviews, stage=stage, confidence=confidence)
    if m.problems:
        first = m.problems[0]
        warnings.warn(f"{len(m.problems)} capture/review problem(s) left out, first: "
                      f"{first['src']}:{first['line']} [{first['field']}] {first['message']}",
                      stacklevel=2)
    return m.frame


def write_metrics_json(m: Measurement, out: Path, *, synthetic: bool = False,
                       sign_key: Any = None) -> dict[str, Any]:
    """Write the artifact to ``out`` and ``out`` + ``.sha256`` (sha256sum format: the hash of
    the file's bytes), signed when ``sign_key`` (a ``ReleaseKey``, a key path or ``env:NAME``)
    is given. Returns the document."""
    doc = m.document(out, synthetic=synthetic)
    if sign_key is not None:
        sign(doc, sign_key)
    write_document(doc, out)
    return doc


def sign(doc: dict[str, Any], key: Any) -> dict[str, Any]:
    """Sign a sealed document with ``key`` (a ``ReleaseKey``, a key path or ``env:NAME``)."""
    from rcaeval.release._signing import ReleaseKey, load_key, sign_document

    k = key if isinstance(key, ReleaseKey) else load_key(key, field="sign_key")
    assert k is not None
    return sign_document(doc, k, canonical_bytes(doc))


def write_document(doc: dict[str, Any], out: Path) -> str:
    out = check_output_file(out, field="out")
    check_output_file(f"{out}.sha256", field="out")
    out.parent.mkdir(parents=True, exist_ok=True)
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    out.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    Path(str(out) + ".sha256").write_text(f"{digest}  {out.name}\n", encoding="utf-8")
    return digest
