"""Bad paths around a bundle (docs/bundle-sdk.md; docs/cli.md, "Input files and ids"):
`bundle lint --case` naming no case is an error, not a silent pass; a FIFO case.json is
refused without blocking; and `BundleWriter` never writes through a symlink out of its
bundle (telemetry.log, a symlinked evidences/, a planted temporary file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rcaeval.bundle import BundleError, BundleWriter

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "data" / "registry" / "cases" / "tikv-panic-restart-001"
WINDOW = ("2026-10-03T14:00:00Z", "2026-10-03T15:00:00Z")


def rcaeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=60, check=False,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_bundle_lint import good_bundle

    root = tmp_path / "ws"
    root.mkdir()
    return good_bundle(root)


def test_lint_case_that_names_no_case(bundle: Path, tmp_path: Path) -> None:
    assert rcaeval("bundle", "lint", str(bundle), "--case", str(CASE)).returncode == 0
    got = rcaeval("bundle", "lint", str(bundle), "--case", str(tmp_path / "nope"))
    assert got.returncode == 6, got.stdout + got.stderr
    assert f"{tmp_path / 'nope'}: no such case dir" in got.stderr
    some_file = tmp_path / "case.json"
    some_file.write_text("{}")
    got = rcaeval("bundle", "lint", str(bundle), "--case", str(some_file))
    assert got.returncode == 3, got.stdout + got.stderr
    assert f"{some_file} [--case]: is not a directory" in got.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    got = rcaeval("bundle", "lint", str(bundle), "--case", str(empty))
    assert got.returncode == 3, got.stdout + got.stderr
    assert f"{empty} [--case]: holds no case.json or case.yaml" in got.stderr


def test_lint_refuses_a_fifo_case_json(bundle: Path) -> None:
    os.mkfifo(bundle / "case.json")
    got = rcaeval("bundle", "lint", str(bundle))
    assert got.returncode == 3, got.stdout + got.stderr
    assert f"{bundle / 'case.json'}: is a FIFO, expected a regular file" in got.stderr


def test_writer_never_writes_through_a_symlink_out_of_the_bundle(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "ws"
    (root / ".opencode").mkdir(parents=True)
    (root / ".opencode" / "telemetry.log").symlink_to(outside / "victim.log")
    w = BundleWriter(root, cluster_id="prod-tidb-017", time_window=WINDOW)
    with pytest.raises(BundleError, match=r"\[symlink\] .*telemetry.log is a symlink"):
        w.milestone("diagnosis_run.initialized")
    (root / ".opencode" / "telemetry.log").unlink()
    w.milestone("diagnosis_run.initialized")
    # a temporary file's name planted as a symlink is replaced, never written through
    (root / f".output.txt.{os.getpid()}.tmp").symlink_to(outside / "answer.txt")
    w.final_answer("## Root cause\n\ntikv-2 panicked.\n")
    assert (root / "output.txt").read_text().startswith("## Root cause")
    for name in ("evidences", ".opencode"):
        target = root / name
        for p in sorted(target.iterdir()):
            p.unlink()
        target.rmdir()
        target.symlink_to(outside)
        with pytest.raises(BundleError, match=r"\[symlink\] .*outside the bundle"):
            if name == "evidences":
                w.add_log_entries([{"id": "L-1", "ts": "2026-10-03T14:05:00Z",
                                    "level": "FATAL", "message": "TiKV panic"}])
            else:
                w.milestone("guardrails.loaded")
        target.unlink()
    assert list(outside.iterdir()) == []
