"""An audit root or registry that exists but is not a directory (a file, a FIFO) is exit 3
naming it and its argument, without blocking; a missing one stays exit 6 (docs/cli.md "Exit
codes")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCAEVAL_")}
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=env)


def test_files_and_fifos_as_audit_root_or_registry_are_exit_3(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    afile = tmp_path / "manifest.json"
    afile.write_text("{}")
    reg = str(REPO / "data" / "registry")
    db = str(tmp_path / "s.duckdb")
    for target, kind in ((fifo, "is a FIFO"), (afile, "is a regular file")):
        r = _cli("judge", str(target), "--registry", reg, "--db", db, cwd=tmp_path)
        assert r.returncode == 3 and f"{target} [AUDIT_DIR]: {kind}" in r.stderr, r.stderr
        r = _cli("judge", str(REPO / "data" / "recorded" / "rec-thorough"), "--registry",
                 str(target), "--db", db, "--no-files", cwd=tmp_path)
        assert r.returncode == 3 and f"{target} [--registry]: {kind}" in r.stderr, r.stderr
        r = _cli("validate", "--registry", str(target), cwd=tmp_path)
        assert r.returncode == 3 and f"{target} [--registry]: {kind}" in r.stderr, r.stderr
    r = _cli("judge", str(tmp_path / "missing"), "--registry", reg, "--db", db, cwd=tmp_path)
    assert r.returncode == 6 and "does not exist" in r.stderr, r.stderr
    r = _cli("validate", "--registry", str(tmp_path / "missing"), cwd=tmp_path)
    assert r.returncode == 6, r.stderr


def test_a_run_id_the_audit_root_does_not_hold_is_exit_6_naming_its_runs(tmp_path):
    """`judge ROOT --run-id X` with no run X under ROOT: not found (6), listing the runs it
    does hold; an audit root with no case dir at all stays invalid input (3)."""
    root = REPO / "data" / "recorded"
    reg = str(REPO / "data" / "registry")
    r = _cli("judge", str(root), "--run-id", "no-such-run", "--registry", reg, "--db",
             str(tmp_path / "s.duckdb"), "--no-files", cwd=tmp_path)
    assert r.returncode == 6, r.stderr
    assert "no run 'no-such-run'" in r.stderr and "rec-thorough" in r.stderr, r.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    r = _cli("judge", str(empty), "--run-id", "x", "--registry", reg, "--db",
             str(tmp_path / "s.duckdb"), "--no-files", cwd=tmp_path)
    assert r.returncode == 3 and "no case dirs found" in r.stderr, r.stderr
