# Two quick-start targets (see README): `make data` and `make test`. Each creates or reuses .venv.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
OUT    ?= out

.PHONY: data test bench catalog clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Stamps depend on pyproject.toml, so a changed dependency list reinstalls.
$(VENV)/.base-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,audit]'
	touch $@ $(VENV)/.base-installed

data: $(VENV)/.base-installed
	$(BIN)/python -m generator kernelinfer --out $(OUT)/kernelinfer
	$(BIN)/python -m generator kernelswarm --out $(OUT)/kernelswarm

test: $(VENV)/.test-installed
	$(BIN)/python -m pytest -n 2 -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing on purpose"; exit 1; fi; exit $$rc

bench: $(VENV)/.test-installed
	$(BIN)/python bench/run.py

catalog: $(VENV)/.base-installed
	$(BIN)/python -m generator catalog

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache
