# Two entry points (README): `make demo` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RAY_STAMP := $(VENV)/.installed-ray

.PHONY: lab demo test test-slow test-ray lint venv clean sandbox-deps browser-deps harnesses prometheus-deps lab-deps

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,acp]'
	touch $(STAMP)

venv: $(STAMP)

# bubblewrap for the agent sandbox (docs/agents.md, "Sandbox"): installed when missing and
# apt-get is usable (root); otherwise agents run unsandboxed with a warning (--sandbox auto).
sandbox-deps:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get install -y -q bubblewrap || (apt-get update -q && apt-get install -y -q bubblewrap)) >/dev/null 2>&1 \
	      || echo "note: could not install bubblewrap; agents run unsandboxed"; \
	  else echo "note: bubblewrap is not installed; agents run unsandboxed (apt-get install bubblewrap)"; fi; }

# The browser test (tests/notebooks/test_browser.py, slow) opens the rendered reports in
# Debian's headless chromium; it is skipped, with a reason, where chromium is absent.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get install -y -q chromium || (apt-get update -q && apt-get install -y -q chromium)) >/dev/null 2>&1 \
	      || echo "note: could not install chromium; the browser test is skipped"; \
	  else echo "note: chromium is not installed; the browser test is skipped (apt-get install chromium)"; fi; }

# The real agent harnesses (opencode, Claude Code, Gemini CLI from npm; the OpenAI Agents SDK,
# LangGraph and Pydantic AI from PyPI, each in its own venv) the slow tests in tests/harnesses run, pinned in tests/harnesses/versions.txt,
# installed into .cache/harnesses ($$RCAEVAL_HARNESS_CACHE). A registry that cannot be reached
# is noted, not fatal: those tests skip, naming it.
harnesses:
	./.ci/install-harnesses

# The capture test (tests/ingest/test_capture_real_prometheus.py, slow) runs a real Prometheus
# and Alertmanager on 127.0.0.1 (Debian's packages); it is skipped, with a reason, where
# prometheus is absent.
prometheus-deps:
	@command -v prometheus >/dev/null 2>&1 && command -v prometheus-alertmanager >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get install -y -q --no-install-recommends prometheus prometheus-alertmanager \
	      || (apt-get update -q && apt-get install -y -q --no-install-recommends prometheus prometheus-alertmanager)) >/dev/null 2>&1 \
	      || echo "note: could not install prometheus; the capture test is skipped"; \
	  else echo "note: prometheus is not installed; the capture test is skipped (apt-get install prometheus prometheus-alertmanager)"; fi; }

# The incident lab (docs/lab.md; tests/lab, slow) runs Debian's PostgreSQL 15, Prometheus,
# its postgres, node and process exporters and stress-ng on 127.0.0.1; its tests are skipped, with a
# reason, where these are absent.
LAB_PKGS = postgresql-15 prometheus prometheus-postgres-exporter prometheus-node-exporter \
           prometheus-process-exporter stress-ng
lab-deps:
	@[ "$$(dpkg-query -W -f='$${Status}\n' $(LAB_PKGS) 2>/dev/null | grep -c 'install ok installed')" = 6 ] || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get install -y -q --no-install-recommends $(LAB_PKGS) \
	      || (apt-get update -q && apt-get install -y -q --no-install-recommends $(LAB_PKGS))) >/dev/null 2>&1 \
	      || echo "note: could not install the lab's packages; the lab tests are skipped"; \
	  else echo "note: the lab's packages are not installed; the lab tests are skipped (apt-get install $(LAB_PKGS))"; fi; }

# Every lab scenario end to end with the oracle agent (docs/lab.md, "Selftest").
lab: $(STAMP) lab-deps
	$(BIN)/rcaeval lab selftest

demo: $(STAMP) sandbox-deps
	$(BIN)/rcaeval validate
	$(BIN)/rcaeval demo

test: $(STAMP) sandbox-deps
	$(BIN)/python -m pytest -q -n 2

# The slow end-to-end tests (marked `slow`); CI runs them as a second step.
test-slow: $(STAMP) sandbox-deps
	$(BIN)/python -m pytest -q -n 2 -m slow

# The Ray executor tests (marked `ray`, docs/distributed.md) on a local 2-CPU Ray cluster;
# CI runs them as a third step. Ray is an optional extra (~240 MB installed, ~40 s from a warm
# pip cache), so `make test` does not install it.
$(RAY_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,acp,ray]'
	touch $(RAY_STAMP)

test-ray: $(RAY_STAMP) sandbox-deps
	$(BIN)/python -m pytest -q -m ray

lint: $(STAMP)
	$(BIN)/ruff check rcaeval tests bench

clean:
	rm -rf $(VENV) out data/rcaeval.duckdb data/eval_audits
