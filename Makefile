# gpukb: every target bootstraps .venv from pyproject.toml when it is missing or stale.
SHELL := /bin/bash
VENV  := .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.gpukb-installed
PORT  ?= 8000
HOST  ?= 127.0.0.1

# durable-rules 2.0.28 works on CPython 3.11 only (see ../shared/DESIGN.md / README "Python 3.11").
PYTHON311 := $(shell command -v python3.11 2>/dev/null || { command -v python3 >/dev/null 2>&1 && python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null && command -v python3; })

.PHONY: run test bench venv screenshots clean

$(STAMP): pyproject.toml
	@if [ -z "$(PYTHON311)" ]; then \
	  echo "gpukb needs Python 3.11: durable-rules 2.0.28 crashes on 3.12 and does not import on 3.13."; \
	  echo "Install python3.11 (e.g. 'pyenv install 3.11', 'apt install python3.11 python3.11-venv'), or use the Dockerfile:"; \
	  echo "  docker build -t gpukb . && docker run -p 8000:8000 gpukb"; \
	  exit 1; fi
	@test -x $(BIN)/python || $(PYTHON311) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/gpukb serve --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
