# dpviz — two commands on a fresh machine (Python 3.11+ and make):
#   make serve   set up .venv and serve every lesson with Voila on http://localhost:8866
#   make test    set up .venv and run the whole test suite
# and: make bench (p50/p95 update time of every widget; where a slider move's time goes in the browser; what one
#      class-view submission costs the server),
#      make lab (JupyterLab on the lessons), make export (static pages and PDFs of the lessons in build/),
#      make serve CLASS=30 [LESSONS=07,11] (classroom mode), make loadtest (30 students against a local server),
#      make docs (the documentation site in build/docs; warnings are errors).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.dpviz-installed
SERVE_STAMP := $(VENV)/.dpviz-serve-installed
DOCS_STAMP := $(VENV)/.dpviz-docs-installed
PORT   ?= 8866
HOST   ?= localhost
CLASS  ?=
LESSONS ?=

.PHONY: install hub-proxy serve test test-fast bench loadtest lab export docs clean-notebooks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-installs whenever pyproject.toml changes ("creates or updates .venv"). Serving needs the package and its
# ".[serve]" extra; tests, benchmarks and the load test add the ".[test]" extras.
$(SERVE_STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[serve]"
	touch $(SERVE_STAMP)

$(STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[serve,test]"
	touch $(STAMP) $(SERVE_STAMP)

install: $(STAMP)

# Plain: one learner. CLASS=30: pre-heat kernels for 30 students (on LESSONS=07,11, or every lesson) and say when ready.
# HOST=0.0.0.0: students on the local network can connect (anyone who can reach this machine can).
serve: $(SERVE_STAMP)
	$(BIN)/dpviz serve --port=$(PORT) --Voila.ip=$(HOST) $(if $(CLASS),--class-size=$(CLASS)) $(if $(LESSONS),--lessons=$(LESSONS))

# JupyterLab on a working copy of the lessons (lab-work/, git-ignored): running and saving there never writes
# outputs into the tracked notebooks/. A lesson is copied again only when the tracked one is newer. Its kernel
# WebSocket sends each message at once, as the app's does (dpviz/serve/connection.py; tests/serve/test_server.py).
LAB_OPTIONS = --ServerApp.kernel_websocket_connection_class=dpviz.serve.connection.NoDelayConnection
lab: $(SERVE_STAMP)
	mkdir -p lab-work && cp -u notebooks/*.ipynb lab-work/
	$(BIN)/jupyter lab lab-work/ $(LAB_OPTIONS)

test: install hub-proxy
	$(BIN)/python -m pytest

# configurable-http-proxy (npm) for the real-hub test (tests/browser/test_jupyterhub.py), in .venv/hub-proxy; npm
# keeps the downloaded package in its own cache (~/.npm), so a fresh clone installs it again without the network.
HUB_PROXY := $(VENV)/hub-proxy/node_modules/.bin/configurable-http-proxy
$(HUB_PROXY): | $(BIN)/python
	npm install --silent --no-fund --no-audit --prefix $(VENV)/hub-proxy configurable-http-proxy@5
hub-proxy: $(HUB_PROXY)

# The fast layer alone (a developer's loop, under 2 minutes on 2 cores): the core, the figures and the panels, without
# the statistical/simulation tests, notebooks and the browser. `make test` runs everything.
FAST = -m "not slow and not browser and not notebook" tests/numerics tests/figures tests/panels
test-fast: install
	$(BIN)/python -m pytest -q $(FAST)

bench: install
	$(BIN)/python -m benchmarks.panels.run
	$(BIN)/python -m benchmarks.panels.anatomy
	$(BIN)/python -m benchmarks.classroom.submission

# A class of students (default 30) opening a lesson together against a server on a free loopback port.
# ANSWER=1: class mode (issue 39): the class view on, every student answers one exercise within 5 s, and the report
# gives the submissions counted on the teacher's view and submit→visible (make loadtest ANSWER=1 ARGS="--browsers 0").
loadtest: install
	$(BIN)/dpviz loadtest $(if $(ANSWER),--answer) $(ARGS)

# Every lesson as a static page with its figures at the default settings (and a PDF with Chromium) in build/.
export: $(SERVE_STAMP)
	$(BIN)/dpviz export --out build

# The documentation site (Sphinx + MyST, docs/) in build/docs: rebuilt from scratch (-E) so that every warning
# shows, warnings are errors (-W, all of them reported: --keep-going), every cross-reference is checked (-n).
$(DOCS_STAMP): pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[serve,docs]"
	touch $(DOCS_STAMP) $(SERVE_STAMP)

docs: $(DOCS_STAMP)
	$(BIN)/python -m sphinx -b html -E -W --keep-going -n -q docs build/docs
	@echo "docs: build/docs/index.html"

# Strip outputs from lesson notebooks (they are stored without outputs).
clean-notebooks: install
	$(BIN)/python -m dpviz.lessons --strip notebooks/*.ipynb

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
