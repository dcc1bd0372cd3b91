# dpviz — two commands on a fresh machine (Python 3.11+ and make):
#   make serve   set up .venv and serve every lesson with Voila on http://localhost:8866
#   make test    set up .venv and run the whole test suite
# and: make bench (p50/p95 update time of every widget), make lab (JupyterLab on the lessons).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.dpviz-installed
PORT   ?= 8866

.PHONY: install serve test bench lab clean-notebooks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-installs whenever pyproject.toml changes ("creates or updates .venv").
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

serve: install
	$(BIN)/python -m dpviz.app --port=$(PORT)

lab: install
	$(BIN)/jupyter lab notebooks/

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python benchmarks/run.py

# Strip outputs from lesson notebooks (they are stored without outputs).
clean-notebooks: install
	$(BIN)/python -m dpviz.lessons --strip notebooks/*.ipynb

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
