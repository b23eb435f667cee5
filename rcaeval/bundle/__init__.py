"""The run-bundle SDK (docs/bundle-sdk.md): :class:`BundleWriter` writes a bundle that
follows the contract, validating as it writes; :func:`lint_bundle` says which rule each file
of an existing bundle breaks and what the judge will make of it."""

from __future__ import annotations

from rcaeval.bundle._contract import CHANNELS, MILESTONES, REF_TYPES
from rcaeval.bundle._lint import RULES, LintFinding, lint_bundle
from rcaeval.bundle._writer import BundleError, BundleWriter

__all__ = ["CHANNELS", "MILESTONES", "REF_TYPES", "RULES", "BundleError", "BundleWriter",
           "LintFinding", "lint_bundle"]
