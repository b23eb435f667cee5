# Two entry points (README): `make demo` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow lint venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,acp]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/rcaeval validate
	$(BIN)/rcaeval demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

# The slow end-to-end tests (marked `slow`); CI runs them as a second step.
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m slow

lint: $(STAMP)
	$(BIN)/ruff check rcaeval tests bench

clean:
	rm -rf $(VENV) out data/rcaeval.duckdb data/eval_audits
