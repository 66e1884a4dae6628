# gpukb: every target bootstraps its virtual environment from pyproject.toml when it is missing or stale.
#
# The interpreter is the newest CPython 3.11-3.13 on the machine (PATH or pyenv), or PYTHON=... ; the
# default one gets .venv, another one named with PYTHON gets .venv-X.Y, so both can coexist.
# durable-rules is built from its PyPI sdist with gpukb's patch (patches/) and cached in .cache/.
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
CACHE := .cache/wheels
DURABLE_PATCH := patches/durable-rules-2.0.28.patch

# the fast subset that CI also runs on every other installed Python
FAST_TESTS := tests/test_durable_bugs.py tests/test_durable_host.py tests/test_reasoner.py tests/test_rules.py \
              tests/test_sizing.py tests/test_audit.py tests/test_api.py tests/test_determinism.py

.PHONY: run test test-fast bench venv screenshots openapi clean

$(STAMP): pyproject.toml $(DURABLE_PATCH) scripts/build_durable.py
	@echo "gpukb: installing into $(VENV) with $(PY) (Python $(PYVER))"
	@if [ -x $(BIN)/python ] && [ "$$($(BIN)/python -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYVER)" ]; then \
	  echo "gpukb: $(VENV) was made with another Python; recreating it"; rm -rf $(VENV); fi
	@test -x $(BIN)/python || $(PY) -m venv $(VENV) || { echo "gpukb: '$(PY) -m venv' failed; install the venv module (e.g. apt-get install python3-venv)"; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/python scripts/build_durable.py --python $(BIN)/python --cache $(CACHE)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python scripts/build_durable.py --python $(BIN)/python --check
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/gpukb serve --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest

test-fast: $(STAMP)
	$(BIN)/python -m pytest $(FAST_TESTS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

# server/openapi.json, regenerated from the answer models (engine/models) and server/openapi_paths.json
openapi: $(STAMP)
	$(BIN)/gpukb openapi --write

clean:
	rm -rf .venv .venv-3.* .pytest_cache .hypothesis build *.egg-info
