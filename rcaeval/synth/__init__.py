"""Deterministic generator of the sample registry and recorded agent runs.

- :func:`generate_sample` writes the shipped sample (``data/registry`` smoke suite and
  ``data/recorded/rec-<behaviour>``) from the scenario templates in ``scenarios/*.yaml``.
- :func:`generate_runs` streams N recorded runs over scenario variants for benchmarks.

Everything is derived from a seed through per-(case, behaviour) RNGs: same seed ⇒
byte-identical files. See docs/synth.md.
"""

from __future__ import annotations

from rcaeval.synth._bench import generate_runs
from rcaeval.synth._bundle import BEHAVIOURS, EXPECTED, LANGUAGE_BEHAVIOURS
from rcaeval.synth._incident import Incident
from rcaeval.synth._io import derive_rng
from rcaeval.synth._sample import SAMPLE_SEED, generate_sample
from rcaeval.synth._template import Scenario, load_scenarios

__all__ = [
    "BEHAVIOURS",
    "LANGUAGE_BEHAVIOURS",
    "EXPECTED",
    "SAMPLE_SEED",
    "Incident",
    "Scenario",
    "derive_rng",
    "generate_runs",
    "generate_sample",
    "load_scenarios",
]
