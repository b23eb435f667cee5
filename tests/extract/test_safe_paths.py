"""The containment checks' path splitting agrees with ``PurePosixPath`` on any path; the
capped read holds the size cap whatever ``fstat`` reported."""

from __future__ import annotations

from pathlib import PurePosixPath

from hypothesis import given, settings
from hypothesis import strategies as st

from rcaeval.extract._safe import CaseFS, _parts, _read_capped, has_dotdot

_PIECES = st.sampled_from(["a", "b.json", ".", "..", "", "...", ".hidden", "x..y", "\\", "\\..",
                           "é", " "])
_PATHS = st.lists(_PIECES, max_size=6).map("/".join) | st.text(alphabet="ab./\\", max_size=12)


@given(_PATHS)
def test_has_dotdot_is_pure_posix_path(rel: str) -> None:
    p = PurePosixPath(rel.replace("\\", "/"))
    assert has_dotdot(rel) == (p.is_absolute() or ".." in p.parts)


@given(_PATHS)
def test_parts_are_pure_posix_parts(rel: str) -> None:
    assert _parts(rel) == list(PurePosixPath(rel).parts)


def test_examples() -> None:
    assert has_dotdot("../x") and has_dotdot("a/../b") and has_dotdot("/etc/passwd")
    assert has_dotdot("a\\..\\b") and not has_dotdot("a/..b/c") and not has_dotdot("./a")
    assert _parts("./a//b/./c/") == ["a", "b", "c"]
    assert _parts("") == [] and _parts(".") == []


@settings(max_examples=60, deadline=None)
@given(actual=st.integers(0, 300), seen=st.integers(0, 300), cap=st.integers(0, 200))
def test_read_capped_holds_the_cap_whatever_fstat_said(tmp_path_factory, actual: int,
                                                      seen: int, cap: int) -> None:
    """``seen`` is the size fstat reported, ``actual`` what the file holds when read (it may
    have grown or shrunk since): the read returns the whole file when it fits the cap, else
    exactly ``cap + 1`` bytes (refused as too_large by the caller)."""
    path = tmp_path_factory.mktemp("capped") / "f"
    data = bytes(i % 251 for i in range(actual))
    path.write_bytes(data)
    with open(path, "rb") as fh:
        got = _read_capped(fh, seen, cap)
    assert got == (data if actual <= cap else data[:cap + 1])


def test_file_at_the_cap_is_read_one_byte_over_is_too_large(tmp_path) -> None:
    (tmp_path / "at.json").write_bytes(b"[" + b"1" * 98 + b"]")  # 100 bytes
    (tmp_path / "over.json").write_bytes(b"[" + b"1" * 99 + b"]")  # 101 bytes
    fs = CaseFS(tmp_path, max_file_bytes=100)
    rec, data = fs.read("at.json", "at.json", "evidence")
    assert (rec.status, rec.size, len(data or b"")) == ("ok", 100, 100)
    rec, data = fs.read("over.json", "over.json", "evidence")
    assert (rec.status, rec.size, data) == ("too_large", 101, None)
    assert rec.detail == "101 bytes exceeds the 100-byte cap"
