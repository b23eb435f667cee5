"""An `--out` that cannot be a directory - under a file, or where none can be made - is exit
3 naming it for every command that writes cases or incident data (docs/cli.md, "Input files
and ids"), not a FileExistsError traceback (exit 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ingest_kit import DATA, REPO, rcaeval

CORPORA = REPO / "tests" / "corpora" / "data"


def _commands(out: Path) -> dict[str, list[str]]:
    return {
        "logs": ["import", "logs", str(DATA / "checkout-app.log"), "--out", str(out)],
        "prometheus": ["import", "prometheus", str(DATA / "prom_latency.json"), "--out",
                       str(out)],
        "openrca": ["import", "openrca", str(CORPORA / "openrca"), "--system", "Bank",
                    "--out", str(out)],
        "rcaeval": ["import", "rcaeval", str(CORPORA / "rcaeval"), "--out", str(out)],
        "capture": ["case", "capture", "--window", "now-1h..now", "--out",
                    str(out / "cases" / "c-001"), "--prometheus", "http://127.0.0.1:9",
                    "--query", "up"],
    }


@pytest.mark.parametrize("command", ["logs", "prometheus", "openrca", "rcaeval", "capture"])
def test_an_out_under_a_file(tmp_path: Path, command: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    got = rcaeval(*_commands(blocker / "sub")[command])
    assert got.returncode == 3, got.stderr
    assert "[--out]" in got.stderr and f"{blocker} is not a directory" in got.stderr \
        or f"{blocker} [--out]: is not a directory" in got.stderr
    assert "Traceback" not in got.stderr
    assert blocker.read_text() == "x"


@pytest.mark.parametrize(("command", "out"), [("logs", "/proc/rcaeval-nope"),
                                              ("rcaeval", "/proc/self")])
def test_an_out_where_no_directory_can_be_made(command: str, out: str) -> None:
    got = rcaeval(*_commands(Path(out))[command])
    assert got.returncode == 3, got.stderr
    assert "[--out]: cannot" in got.stderr
    assert "Traceback" not in got.stderr
