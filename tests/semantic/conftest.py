"""Fixtures for tests/semantic; helpers live in semantic_kit.py (unique module name)."""

from semantic_kit import *  # noqa: F403
