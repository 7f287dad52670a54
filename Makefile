# The README's two commands: `make run` builds the graph from seeds/ into output/,
# `make test` runs the test suite (tests/test_docs.py builds the manual in strict mode).
# Both set up .venv themselves on first use. `make docs` builds the manual into site/.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test quick docs browser lint eval quotes clean

run: $(STAMP)
	$(BIN)/kg build

test: $(STAMP) browser
	$(BIN)/ruff check kg tests bench
	$(BIN)/mypy kg
	$(BIN)/pytest

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

# The quick loop: no real model, no browser, no slow tests (docs/development.md).
quick: $(STAMP)
	$(BIN)/pytest -q -m "not model and not browser and not slow"

# The manual (docs/, mkdocs.yml) as a static site in site/: open site/index.html, no server
# needed; it works offline, search included.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The HTML tests drive Debian's Chromium; install it once if it is missing.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; }

lint: $(STAMP)
	$(BIN)/ruff format --check kg tests bench
	$(BIN)/ruff check kg tests bench
	$(BIN)/mypy kg

# Extraction quality on the evaluation data beside the repository
# (see docs/explanation/measuring.md).
DATA ?= ../shared/data
eval: $(STAMP)
	$(BIN)/kg eval $(DATA)/scierc_dev.jsonl
	$(BIN)/kg eval $(DATA)/iclr2024_dev.jsonl

# Refit the outputs README.md and docs/ quote to what kg prints now (tests/requote.py).
quotes: $(STAMP)
	$(BIN)/python tests/requote.py

clean:
	rm -rf $(VENV) output .output.kg-lock site
