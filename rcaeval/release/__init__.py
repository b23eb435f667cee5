"""Release gate: metrics over an exported window of captured production responses, operator
reviews, and the gate itself (the release procedure). See docs/release.md.

    import rcaeval.release as rel
    rel.metrics("data/captures/sample-window.parquet", window="2026-11-01..2026-11-14")
    m = rel.measure(path, window, reviews="reviews.jsonl")   # frame + provenance + problems
    rel.write_metrics_json(m, Path("M.json"))
    rel.check_gate(rel.load_artifact("M.json", verify_key="release.pub.pem"), strict=True)
    rel.record_window(store, "M.json"); rel.stored_windows(store)  # the window history
    rel.compare(rel.load_artifact("A.json"), rel.load_artifact("S.json")).decision  # shadow
"""

from __future__ import annotations

from rcaeval.release._candidates import knowledge_candidates
from rcaeval.release._compare import compare
from rcaeval.release._gate import GateResult, check_gate, load_artifact
from rcaeval.release._history import (
    ALL_STAGES,
    RecordResult,
    record_window,
    stored_windows,
    window_frames,
)
from rcaeval.release._metrics import (
    Measurement,
    check_confidence,
    measure,
    metrics,
    query_captures,
    seal,
    sign,
    write_document,
    write_metrics_json,
)
from rcaeval.release._models import CASE_TYPES, REVIEW_SCORES, STAGES, Capture, Review, json_schemas
from rcaeval.release._review_store import (
    ImportResult,
    import_reviews,
    review_history,
    verified_actions,
)
from rcaeval.release._reviews import read_reviews
from rcaeval.release._sample import SampleSpec, write_sample, write_shadow
from rcaeval.release._signing import ReleaseKey, load_key
from rcaeval.release._synthetic import synthetic_artifact, write_synthetic_files
from rcaeval.release._thresholds import GATE, GATE_METRICS, Threshold
from rcaeval.release._window import Window, parse_window

__all__ = ["ALL_STAGES", "SampleSpec", "check_confidence", "write_sample", "write_shadow",
    "CASE_TYPES", "GATE", "GATE_METRICS",
    "REVIEW_SCORES", "STAGES", "Capture", "GateResult",
    "ImportResult", "import_reviews", "knowledge_candidates", "review_history",
    "verified_actions",
    "Measurement", "Review", "Threshold", "Window",
    "compare", "check_gate", "json_schemas", "load_artifact", "measure",
    "metrics", "parse_window", "query_captures",
    "RecordResult", "ReleaseKey", "load_key", "read_reviews", "record_window",
    "seal", "sign", "stored_windows", "window_frames",
    "synthetic_artifact", "write_document", "write_metrics_json", "write_synthetic_files",
]
