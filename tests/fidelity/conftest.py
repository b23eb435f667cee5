"""tests/fidelity: helpers live in fidelity_kit.py (unique module name)."""
