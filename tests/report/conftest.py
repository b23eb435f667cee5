"""Fixtures for tests/report; helpers live in report_kit.py (unique module name: test dirs share
one sys.path, so `from conftest import` would pick another dir's conftest)."""

from report_kit import *  # noqa: F403
from report_kit import _template_db  # noqa: F401  (underscore fixtures escape `import *`)
