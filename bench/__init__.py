"""Benchmarks of rcaeval (``python -m bench``; see bench/RESULTS.md). Not tests."""
