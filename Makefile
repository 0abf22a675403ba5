# Two entry points for a fresh machine: `make build` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TESTSTAMP := $(VENV)/.installed-test

.PHONY: build test check lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TESTSTAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

build: $(STAMP)
	$(BIN)/opgen build

check: $(STAMP)
	$(BIN)/opgen build --check

lint: $(STAMP)
	$(BIN)/opgen lint

test: $(TESTSTAMP)
	$(BIN)/opgen build --check
	$(BIN)/python -m pytest -n auto --dist worksteal --durations=15

bench: $(TESTSTAMP)
	$(BIN)/python tests/benchmarks/run.py
	$(BIN)/python tests/benchmarks/kernels_bench.py
	$(BIN)/python tests/benchmarks/run_models_bench.py
	$(BIN)/python tests/benchmarks/window_bench.py
	$(BIN)/python tests/benchmarks/vision_bench.py
	$(BIN)/python tests/benchmarks/indexing_bench.py
	$(BIN)/python tests/benchmarks/misc_bench.py
	$(BIN)/python tests/benchmarks/validate_bench.py

clean:
	rm -rf $(VENV) build *.egg-info
