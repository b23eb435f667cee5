"""Unit-level proofs of the bad-input fixes the end-to-end tests found (fast, no CLI)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import rcaeval.extract._safe as safe_mod
from rcaeval.extract import CaseFS, FileRecord
from rcaeval.registry import Problem
from rcaeval.registry._yamlsrc import MAX_EXPANDED_NODES, YamlDoc, parse_yaml

# A hostile YAML must not hang the parser: pytest-timeout fails a hang (no timed assertion,
# which would fail on a loaded machine without telling anything about correctness).
pytestmark = pytest.mark.timeout(120)


def _yaml(tmp_path: Path, text: str | bytes) -> tuple[YamlDoc | None, list[Problem]]:
    p = tmp_path / "x.yaml"
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return parse_yaml(p, "x.yaml")


def test_alias_bomb_is_refused_naming_the_key(tmp_path: Path) -> None:
    text = "ok: 1\nlol0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 12):
        text += f"lol{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n"
    doc, problems = _yaml(tmp_path, text)
    assert doc is None
    (p,) = problems
    assert (p.code, p.field, p.line) == ("yaml_syntax", "lol4", 6)
    assert f"more than {MAX_EXPANDED_NODES} nodes" in p.message


def test_recursive_anchor_is_refused(tmp_path: Path) -> None:
    for text in ("a: &x [1, *x]\n", "a: &x {b: *x}\n"):
        doc, problems = _yaml(tmp_path, text)
        assert doc is None and [p.code for p in problems] == ["yaml_syntax"]
        assert "recursive anchor" in problems[0].message


def test_deep_nesting_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    doc, problems = _yaml(tmp_path, "a: " + "[" * 3000 + "]" * 3000 + "\n")
    assert doc is None and [p.code for p in problems] == ["yaml_syntax"]
    assert "too deep" in problems[0].message


def test_ordinary_aliases_and_merge_keys_still_load(tmp_path: Path) -> None:
    doc, problems = _yaml(tmp_path, "base: &b {x: 1}\nother: *b\nm:\n  <<: *b\n  y: 2\n")
    assert problems == []
    assert doc is not None
    assert doc.data == {"base": {"x": 1}, "other": {"x": 1}, "m": {"x": 1, "y": 2}}


def test_non_utf8_names_line_column_and_field(tmp_path: Path) -> None:
    doc, problems = _yaml(tmp_path, b"a:\n  b: ok\n  c: \"caf\xe9\"\n")
    assert doc is None
    (p,) = problems
    assert (p.code, p.line, p.field) == ("unreadable", 3, "a.c")
    assert "byte(s) e9 at line 3, column 10" in p.message


def test_fifo_swapped_in_after_stat_does_not_block(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The size/type check and the open are separate calls; a FIFO that appears in between
    must be refused, not block the extraction forever (open uses O_NONBLOCK)."""
    case = tmp_path / "case"
    case.mkdir()
    (case / "regular").write_text("x")
    os.mkfifo(case / "output.txt")
    real_stat = os.stat
    regular = real_stat(case / "regular")

    def fake_stat(path: object, *a: object, **kw: object) -> os.stat_result:
        return regular if str(path).endswith("output.txt") else real_stat(path, *a, **kw)

    monkeypatch.setattr(safe_mod.os, "stat", fake_stat)
    result: list[tuple[FileRecord, bytes | None]] = []
    worker = threading.Thread(
        target=lambda: result.append(CaseFS(case).read("output.txt", "output.txt", "output")),
        daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader so the test process can exit
        fd = os.open(case / "output.txt", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("reading a FIFO blocked")
    rec, data = result[0]
    assert data is None and (rec.status, rec.detail) == ("unreadable", "not a regular file")
