"""The containment checks' path splitting agrees with ``PurePosixPath`` on any path."""

from __future__ import annotations

from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from rcaeval.extract._safe import _parts, has_dotdot

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
