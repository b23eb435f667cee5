"""Fixtures of the Ray executor tests: one real local Ray cluster per module (2 CPUs, no
dashboard, a short temp dir: Ray's unix socket paths must stay under ~107 bytes). Tests that
use it are skipped, saying why, where Ray is not installed."""

from __future__ import annotations

import shutil
import tempfile

import pytest


@pytest.fixture(scope="module")
def ray_address() -> object:
    """Start a local Ray cluster for the module; yields its address (for RAY_ADDRESS)."""
    ray = pytest.importorskip(
        "ray", reason="Ray is not installed: pip install 'rcaeval-judge[ray]' (make test-ray)")
    tmp = tempfile.mkdtemp(prefix="rcray-", dir="/tmp")
    ctx = ray.init(num_cpus=2, include_dashboard=False, _temp_dir=tmp, log_to_driver=False)
    try:
        yield ctx.address_info["gcs_address"]
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
