"""The tests' own layout: one directory per subpackage under test, helper modules named
``<area>_kit.py``, programs that tests start as subprocesses under ``<area>/agents/``."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_helper_modules_are_kits() -> None:
    odd = [str(p.relative_to(TESTS)) for p in sorted(TESTS.rglob("*.py"))
           if not p.name.startswith("test_") and p.name not in ("conftest.py", "__init__.py")
           and not p.name.endswith("_kit.py") and p.parent.name != "agents"]
    assert not odd, ("name test helper modules <area>_kit.py, and put programs a test starts "
                     f"as a subprocess under <area>/agents/: {odd}")


def test_kit_names_are_unique() -> None:
    """Test dirs share one sys.path: two kits with one name would shadow each other."""
    names = [p.name for p in TESTS.rglob("*_kit.py")]
    assert len(names) == len(set(names)), sorted(names)


def test_runner_tests_have_one_home() -> None:
    assert not (TESTS / "run").exists(), "rcaeval.runner's tests live in tests/runner/"
