# The two set-up commands are `make run` and `make test`; the rest are for developers.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha1sum requirements.lock | cut -c1-12)
ASSETS_STAMP := node_modules/.installed-$(shell sha1sum package-lock.json | cut -c1-12)
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/trails
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format bench venv assets

venv: $(STAMP)

$(STAMP): requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	@rm -f $(VENV)/.installed-* && touch $@

# Browser libraries (Leaflet, the Firebase Web SDK) from the npm registry, exactly as locked.
assets: $(ASSETS_STAMP)

$(ASSETS_STAMP): package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@rm -f node_modules/.installed-* && touch $@

# Fresh machine -> running service. Embedded default unless DATABASE_URL/REDIS_URL are set.
run: venv assets
	@scripts/run.sh $(HOST) $(PORT)

# The layer contracts (.importlinter), then the whole suite, on PostgreSQL, with a real Redis
# and Celery worker for tests/integration.
test: venv assets
	$(BIN)/lint-imports --no-cache
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/pytest $(PYTEST_ARGS)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: venv
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/run.py
