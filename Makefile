# dpviz — two commands on a fresh machine (Python 3.11+ and make):
#   make serve   set up .venv and serve every lesson with Voila on http://localhost:8866
#   make test    set up .venv and run the whole test suite
# and: make bench (p50/p95 update time of every widget), make lab (JupyterLab on the lessons),
#      make serve CLASS=30 [LESSONS=05,08] (classroom mode), make loadtest (30 students against a local server).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.dpviz-installed
PORT   ?= 8866
CLASS  ?=
LESSONS ?=

.PHONY: install serve test bench loadtest lab clean-notebooks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-installs whenever pyproject.toml changes ("creates or updates .venv").
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

# Plain: one learner. CLASS=30: pre-heat kernels for 30 students (on LESSONS=05,08, or every lesson) and say when ready.
serve: install
	$(BIN)/python -m dpviz.app --port=$(PORT) $(if $(CLASS),--class-size=$(CLASS)) $(if $(LESSONS),--lessons=$(LESSONS))

lab: install
	$(BIN)/jupyter lab notebooks/

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python benchmarks/run.py

# A class of students (default 30) opening a lesson together against a server on a free loopback port.
loadtest: install
	$(BIN)/python benchmarks/loadtest.py $(ARGS)

# Strip outputs from lesson notebooks (they are stored without outputs).
clean-notebooks: install
	$(BIN)/python -m dpviz.lessons --strip notebooks/*.ipynb

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
