"""rcaeval: evaluate AI root-cause-analysis agents.

The public API is deliberately thin; subpackages expose their own facades.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
