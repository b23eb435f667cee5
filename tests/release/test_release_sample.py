"""The generated sample window: deterministic, every case type, a realistic mix with some
failures; the bundled copy in data/captures measures the same as a fresh generation."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import rcaeval.release as rel
from rcaeval.cli import main
from rcaeval.release._sample import SampleSpec, generate, write_sample


def test_generation_is_deterministic_and_valid() -> None:
    a = list(generate(SampleSpec(n=300, seed=3)))
    b = list(generate(SampleSpec(n=300, seed=3)))
    assert a == b
    caps = [rel.Capture.model_validate(c) for c, _ in a]   # the documented format
    assert {c.labels.case_type for c in caps if c.labels} == set(rel.CASE_TYPES)
    reviews = [rel.Review.model_validate(r) for _, r in a if r]
    assert reviews and len({c.incident_id for c in caps}) < len(caps)  # re-analyses


def test_sample_window_metrics(tmp_path: Path) -> None:
    info = write_sample(tmp_path, SampleSpec(n=1500, seed=5))
    m = rel.measure(info["captures"], "2026-11-01..2026-11-14", reviews=info["reviews"])
    v = {r["metric"]: r for r in m.frame.iter_rows(named=True)}
    assert not m.problems and m.population["captures"]["in_window"] == 1500
    assert 0.9 < v["known_top1"]["value"] < 1.0          # some wrong families
    assert 0 < v["false_novel_rate"]["value"] < 0.05
    assert v["typedb_outage_runtime_activation_success"]["value"] == 1.0
    assert v["activation_p95_seconds"]["value"] < 30
    assert all(n > 0 for n in m.population["by_case_type"].values())


def test_bundled_sample_matches_a_fresh_generation(repo_root: Path, tmp_path: Path) -> None:
    bundled = repo_root / "data" / "captures"
    assert main(["release", "sample", "--out", str(tmp_path)]) == 0
    for name in ("sample-window.parquet", "reviews.jsonl"):
        fresh = tmp_path / name
        old = bundled / name
        if name.endswith(".parquet"):
            assert pl.read_parquet(fresh).equals(pl.read_parquet(old))
        else:
            assert fresh.read_bytes() == old.read_bytes()
    out = tmp_path / "M.json"
    assert main(["release", "metrics", "--captures", str(bundled), "--reviews",
                 str(bundled / "reviews.jsonl"), "--window", "2026-11-01..2026-11-14",
                 "--out", str(out)]) == 0
    # the sample has one groundless high-confidence answer (harness disabled): the gate fails
    assert main(["release", "gate", str(out)]) == 4
    res = rel.check_gate(rel.load_artifact(out))
    assert res.failed == ["groundless_high_confidence"]
