"""`rcaeval bundle lint` against a case scope with odd values (docs/bundle-sdk.md): a
tolerance that is not a number of seconds is a time_window finding, and a window at the
edge of the calendar (year 1) is compared, never an internal error (exit 5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from test_bundle_lint import good_bundle


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", "bundle", "lint", str(root)],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.mark.parametrize(("start", "tolerance", "code", "says"), [
    ("0001-01-01T00:00:00Z", 3600, 0, "0 error(s)"),
    ("2026-10-03T14:00:00Z", 1e300, 3, "the case's tolerance_s 1e+300 is not a number"),
    ("2026-10-03T14:00:00Z", "abc", 3, "the case's tolerance_s 'abc' is not a number"),
    ("2026-10-03T14:10:00Z", 5, 3, "is outside the case's 2026-10-03T14:10:00Z"),
])
def test_case_scope_values(tmp_path: Path, start: str, tolerance: object, code: int,
                           says: str) -> None:
    root = good_bundle(tmp_path)
    (root / "case.json").write_bytes(orjson.dumps({
        "environment": {"cluster_id": "prod-tidb-017"},
        "time_window": {"start": start, "end": "2026-10-03T15:00:00Z",
                        "tolerance_s": tolerance}}))
    got = _lint(root)
    assert got.returncode == code, got.stdout + got.stderr
    assert says in got.stdout
    assert "Traceback" not in got.stderr
