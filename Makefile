# Two entry points (README): `make demo` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint venv clean

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

lint: $(STAMP)
	$(BIN)/ruff check rcaeval tests bench

clean:
	rm -rf $(VENV) out data/rcaeval.duckdb data/eval_audits
