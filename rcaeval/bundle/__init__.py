"""The run-bundle SDK (docs/bundle-sdk.md): :class:`BundleWriter` writes a bundle that
follows the contract, validating as it writes; :func:`lint_bundle` says which rule each file
of an existing bundle breaks and what the judge will make of it.

The incident tools (``rcaeval.tools``) read and write bundle files through the same contract:
the status vocabularies (:data:`GATE_STATUSES`, :data:`SPAN_STATUSES`), the timestamp parser
(:func:`parse_time`) and a case's metadata (:func:`read_case_meta`)."""

from __future__ import annotations

from rcaeval.bundle._basics import parse_time
from rcaeval.bundle._casemeta import read_case_meta
from rcaeval.bundle._contract import CHANNELS, GATE_STATUSES, MILESTONES, REF_TYPES, SPAN_STATUSES
from rcaeval.bundle._lint import RULES, LintFinding, lint_bundle
from rcaeval.bundle._writer import BundleError, BundleWriter

__all__ = ["CHANNELS", "GATE_STATUSES", "MILESTONES", "REF_TYPES", "RULES", "SPAN_STATUSES",
           "BundleError", "BundleWriter", "LintFinding", "lint_bundle", "parse_time",
           "read_case_meta"]
