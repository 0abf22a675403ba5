# Entry points for a fresh machine: `make build`, `make test` and `make docs`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TESTSTAMP := $(VENV)/.installed-test
DOCSSTAMP := $(VENV)/.installed-docs
SYSSTAMP  := $(VENV)/.installed-system
# What the site is built from: `make docs` reruns when one of these changed (the generator itself
# skips MkDocs for a language whose sources came out unchanged).
SITE_INPUTS := $(shell find specs templates generator generated/python -type f \( -name '*.yaml' -o -name '*.py' \
                 -o -name '*.j2' -o -name '*.html' -o -name '*.js' -o -name '*.css' \) 2>/dev/null) README.md

.PHONY: build test check lint bench clean docs system-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TESTSTAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $@

$(DOCSSTAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

# Debian's headless Chromium and a CJK font for tests/test_site.py (root on Debian, as CI is);
# nothing to do when both are installed.
system-deps:
	@if command -v chromium >/dev/null 2>&1 && fc-list 2>/dev/null | grep -qi 'Noto Sans CJK'; then :; \
	else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk; fi

docs: site/.built

site/.built: $(DOCSSTAMP) $(SITE_INPUTS)
	$(BIN)/python -m opgen.site --out site --work build/site
	touch $@

build: $(STAMP)
	$(BIN)/opgen build

check: $(STAMP)
	$(BIN)/opgen build --check

lint: $(STAMP)
	$(BIN)/opgen lint

test: $(TESTSTAMP) system-deps docs
	$(BIN)/opgen build --check
	$(BIN)/python -m pytest -n auto --dist worksteal --durations=30

bench: $(TESTSTAMP)
	$(BIN)/python tests/benchmarks/run.py
	$(BIN)/python tests/benchmarks/kernels_bench.py
	$(BIN)/python tests/benchmarks/onnx_ops_bench.py
	$(BIN)/python tests/benchmarks/run_models_bench.py
	$(BIN)/python tests/benchmarks/window_bench.py
	$(BIN)/python tests/benchmarks/vision_bench.py
	$(BIN)/python tests/benchmarks/indexing_bench.py
	$(BIN)/python tests/benchmarks/misc_bench.py
	$(BIN)/python tests/benchmarks/validate_bench.py

clean:
	rm -rf $(VENV) build *.egg-info site site-screenshots
