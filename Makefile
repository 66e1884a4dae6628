# gpukb: every target bootstraps its virtual environment from pyproject.toml when it is missing or stale.
#
# The interpreter is the newest CPython 3.11-3.13 on the machine (PATH or pyenv), or PYTHON=... ; the
# default one gets .venv, another one named with PYTHON gets .venv-X.Y, so both can coexist.
# gpukb's build backend (build_backend/) compiles durable-rules from its PyPI sdist with gpukb's patch
# (patches/) into the package; the built engine is cached in ~/.cache/gpukb (GPUKB_BUILD_CACHE).
SHELL := /bin/bash
PORT  ?= 8000
HOST  ?= 127.0.0.1

PY := $(shell scripts/find_python.sh $(PYTHON))
ifeq ($(PY),)
$(error no suitable Python: see the message above)
endif
PYVER := $(shell $(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ifeq ($(PYTHON),)
VENV ?= .venv
else
VENV ?= .venv-$(PYVER)
endif
BIN   := $(VENV)/bin
STAMP := $(VENV)/.gpukb-installed
DURABLE_PATCH := patches/durable-rules-2.0.28.patch
# `make test` skips these markers (a few minutes); `make test-all` runs everything, `make test-slow` the rest
SLOW := slow or browser

# the fast subset that CI also runs on every other installed Python
FAST_TESTS := tests/test_durable_bugs.py tests/test_durable_host.py tests/test_reasoner.py tests/test_rules.py \
              tests/test_sizing.py tests/test_audit.py tests/test_api.py tests/test_determinism.py

.PHONY: run test test-all test-slow test-fast lint bench venv screenshots openapi clean

$(STAMP): pyproject.toml gpukb/__init__.py $(DURABLE_PATCH) build_backend/gpukb_build.py build_backend/durable_build.py
	@echo "gpukb: installing into $(VENV) with $(PY) (Python $(PYVER))"
	@if [ -x $(BIN)/python ] && [ "$$($(BIN)/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYVER)" ]; then \
	  echo "gpukb: $(VENV) was made with another Python; recreating it"; rm -rf $(VENV); fi
	@test -x $(BIN)/python || $(PY) -m venv $(VENV) || { echo "gpukb: '$(PY) -m venv' failed; install the venv module (e.g. apt-get install python3-venv)"; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python build_backend/durable_build.py --python $(BIN)/python --check
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/gpukb serve --host $(HOST) --port $(PORT)

# make test runs its tests on every core (pytest-xdist); TEST_WORKERS=1 runs them in one process
TEST_WORKERS ?= auto
test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not ($(SLOW))"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m "$(SLOW)"

test-all: $(STAMP)
	$(BIN)/python -m pytest

test-fast: $(STAMP)
	$(BIN)/python -m pytest $(FAST_TESTS)

# the layer contract (.importlinter) with import-linter; make test runs it too (tests/test_structure.py)
lint: $(STAMP)
	$(BIN)/python scripts/lint_imports.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

# server/openapi.json, regenerated from the route declarations (server/api) and the models (engine/models)
openapi: $(STAMP)
	$(BIN)/gpukb openapi --write

clean:
	rm -rf .venv .venv-3.* .pytest_cache .hypothesis build *.egg-info
