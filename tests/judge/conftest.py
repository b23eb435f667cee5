"""Fixtures for tests/judge; helpers live in judge_kit.py (unique module name: test dirs share
one sys.path, so `from conftest import` would pick another dir's conftest)."""

from judge_kit import *  # noqa: F403
