"""The shipped data/offline sample is exactly what the generator writes (regenerate with
`rcaeval offline sample`), has at least 23 known cases plus every other case type, and its
responses are real post-harness captures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rcaeval.harness import check
from rcaeval.offline import generate_offline_sample, read_fixtures
from rcaeval.offline._sample import FILES


def test_shipped_sample_matches_a_fresh_generation(tmp_path: Path, repo_root: Path) -> None:
    generate_offline_sample(tmp_path / "offline")
    shipped = repo_root / "data" / "offline"
    drift = [f for f in FILES
             if (tmp_path / "offline" / f).read_bytes() != (shipped / f).read_bytes()]
    assert drift == [], f"data/offline drifted (regenerate: `rcaeval offline sample`): {drift}"


def test_sample_content(repo_root: Path) -> None:
    fs = read_fixtures(repo_root / "data" / "offline" / "fixtures.jsonl")
    assert not fs.errors
    types = Counter(f.case_type for f in fs.fixtures)
    assert types["known"] >= 23 and min(types.values()) >= 4 and len(types) == 4
    for f in fs.fixtures[:8]:
        # a captured post-harness response is a fixed point of the harness
        again = check(f.response)
        assert again.status in ("passed", "repaired", "degraded", "insufficient_evidence")
        assert again.response_hash == f.response.analysis_hash
        assert f.harness is not None and f.harness.status == again.status
    gate = read_fixtures(repo_root / "data" / "offline" / "novel_e2e.jsonl")
    assert not gate.errors and len(gate.fixtures) >= 5
