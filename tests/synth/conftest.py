from __future__ import annotations

from pathlib import Path

import pytest

from rcaeval.synth import SAMPLE_SEED, generate_sample


@pytest.fixture(scope="session")
def sample_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One sample generation with the shipped seed, shared by the read-only tests."""
    root = tmp_path_factory.mktemp("synth-sample")
    generate_sample(root, seed=SAMPLE_SEED)
    return root
