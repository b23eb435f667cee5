"""Terminal output honours the terminal's width: on a terminal the CLI's rich tables are laid
out for its size (a real pseudo-terminal of 80 columns; COLUMNS when set), never for a fixed
120-200 columns; piped into a log they use 140 columns (or a wider COLUMNS). `release
metrics` prints tables (metrics, population), not a Python dict."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "data" / "captures"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _on_pty(args: list[str], columns: int = 80, env_columns: str | None = None
            ) -> tuple[int, str]:
    """Run ``rcaeval ARGS`` with stdout and stderr on a pseudo-terminal of ``columns`` (and
    ``COLUMNS=env_columns`` when given)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm"
    if env_columns is not None:
        env["COLUMNS"] = env_columns
    proc = subprocess.Popen([sys.executable, "-m", "rcaeval", *args], stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, env=env, cwd=REPO)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = proc.wait(timeout=120)
    return code, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r", "")


def _piped(args: list[str], columns: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run([sys.executable, "-m", "rcaeval", *args], capture_output=True,
                          text=True, timeout=120, cwd=REPO, env=env)


PLAIN = ("wrote ", "registry ", "gate ")
"""Lines that are sentences (paths in them), not table rows: a terminal wraps those."""


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines() if not line.startswith(PLAIN))


def test_release_tables_fit_an_80_column_terminal(tmp_path: Path) -> None:
    metrics = tmp_path / "m.json"
    code, made = _on_pty(["release", "metrics", "--captures",
                          str(CAPTURES / "sample-window.parquet"), "--window",
                          "2026-11-08..2026-11-14", "--reviews", str(CAPTURES / "reviews.jsonl"),
                          "--out", str(metrics)])
    assert code == 0, made
    # release metrics: tables within 80 columns, values by kind, no dict repr
    assert _widest(made) <= 80, made
    assert "{" not in made and "'" not in made
    assert re.search(r"known_top1\s+│\s+0\.964\s+│\s+1,378\s+│\s+\[0\.952, 0\.972\]", made), made
    assert re.search(r"typedb_outage_runtime_activation_success\s+│\s+true\s", made)
    assert re.search(r"case type known\s+│\s+1,378", made)
    assert not re.search(r"\d\.\d{4,}", made)

    code, out = _on_pty(["release", "gate", str(metrics)])
    assert code == 4, out
    assert _widest(out) <= 80, out  # was 122 columns
    assert "gate FAILED: 11/12 checks pass" in out  # 10 metrics, invalid captures, reviews
    # metric names break after an underscore, never inside a word
    assert re.search(r"^ groundless_\s", out, re.M) and re.search(r"^ confidence\s", out, re.M)
    assert "…" not in out
    # COLUMNS wins over the tty's size (rich's detection), both ways
    code, narrow = _on_pty(["release", "gate", str(metrics)], columns=200, env_columns="80")
    assert _widest(narrow) <= 80, narrow
    code, wide = _on_pty(["release", "gate", str(metrics)], columns=200)
    assert re.search(r"groundless_high_confidence\s+1\s+0\s+562", wide), wide
    log = _piped(["release", "gate", str(metrics)], None)  # a pipe: 140 columns
    assert 80 < _widest(log.stdout) <= 140 and "groundless_high_confidence" in log.stdout


def test_validate_fits_an_80_column_terminal_and_summarises_warnings() -> None:
    """The sample registry's warnings (12 case ids naming their ground truth) came as a
    130-line table; now one entry per warning code: the first message, then where."""
    from rcaeval.registry import load_registry

    reg = load_registry(REPO / "data" / "registry")
    code, out = _on_pty(["validate"])
    assert code == 0, out
    assert _widest(out) <= 80, out
    assert "registry " in out and ": ok:" in out
    codes = {w.code for w in reg.warnings}
    if reg.warnings:
        assert f"{len(reg.warnings)} warning(s) in" in out
        for c in codes:
            n = sum(w.code == c for w in reg.warnings)
            assert out.count(f"{c} ({n}):") == 1, out
        assert "┃" not in out  # no table for warnings
        assert len(out.splitlines()) <= 3 + 12 * len(codes), out
