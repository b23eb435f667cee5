"""``python -m rcaeval``: the same as the ``rcaeval`` command."""

from rcaeval.cli import run

if __name__ == "__main__":
    run()
