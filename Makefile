# The two set-up commands are `make run` and `make test`; the rest are for developers.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two locks, one set of pins: requirements.lock is what the running service needs (make run),
# requirements-dev.lock adds the test, lint and docs tools (make test and the developers'
# targets). Regenerate both after changing pyproject.toml (docs/developers/architecture.md):
#   uv pip compile pyproject.toml -o requirements.lock --python-version 3.11
#   uv pip compile pyproject.toml --extra dev -o requirements-dev.lock --python-version 3.11
RUN_STAMP := $(VENV)/.installed-run-$(shell sha1sum requirements.lock | cut -c1-12)
DEV_STAMP := $(VENV)/.installed-dev-$(shell sha1sum requirements-dev.lock | cut -c1-12)
ASSETS_STAMP := node_modules/.installed-$(shell sha1sum package-lock.json | cut -c1-12)
# A stamp's name carries its lock's hash, so a changed lock makes a new stamp; the locks are
# order-only prerequisites, so a lock that is merely newer than its stamp (a new worktree, a
# branch switched there and back) installs nothing again.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/trails
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format messages bench bench-scale venv venv-dev assets fuzz faults docs \
	docs-serve screenshots
DOCS_PORT ?= 8100
# Material for MkDocs prints a banner about MkDocs 2.0 at every build; we pin mkdocs<2.
export NO_MKDOCS_2_WARNING := 1

define install_lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(1)
endef

# The running service's dependencies only: no test tools in a `make run` checkout's .venv.
venv: $(RUN_STAMP)

$(RUN_STAMP): | requirements.lock
	$(call install_lock,requirements.lock)
	@rm -f $(VENV)/.installed-run-* && touch $@

# The runtime's pins plus the development tools; it holds the runtime too, so `make run` after
# it installs nothing.
venv-dev: $(DEV_STAMP)

$(DEV_STAMP): | requirements-dev.lock
	$(call install_lock,requirements-dev.lock)
	@rm -f $(VENV)/.installed-run-* $(VENV)/.installed-dev-* && touch $@ $(RUN_STAMP)

# Browser libraries (Leaflet, the Firebase Web SDK) from the npm registry, exactly as locked.
assets: venv $(ASSETS_STAMP)

$(ASSETS_STAMP): | package-lock.json $(RUN_STAMP)
	npm ci --no-audit --no-fund --loglevel=error
	@# WhiteNoise sends a file's .gz beside it to browsers that accept gzip: Leaflet is most
	@# of a phone's first map load (docs/operators/streams.md).
	$(BIN)/python -m whitenoise.compress --quiet node_modules/leaflet/dist
	@rm -f node_modules/.installed-* && touch $@

# Fresh machine -> running service. Embedded default unless DATABASE_URL/REDIS_URL are set.
run: venv assets
	@scripts/run.sh $(HOST) $(PORT)

# The layer contracts (.importlinter), the docs site (a broken link or a missing page fails),
# then the whole suite, on PostgreSQL, with a real Redis and Celery worker for tests/integration:
# first in TEST_PROCESSES processes (pytest-xdist: most of the suite waits on servers, browsers
# and workers; the tests marked `slow` start first), then, alone, the tests marked `serial`
# (they measure time). Exit status 5 is a pass that PYTEST_ARGS left without a test.
TEST_PROCESSES ?= 4
test: venv-dev assets
	$(BIN)/lint-imports --no-cache
	$(BIN)/mkdocs build --strict
	export DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)}; \
	$(BIN)/pytest -n $(TEST_PROCESSES) --dist loadgroup -m "not serial" $(PYTEST_ARGS); \
	parallel=$$?; [ $$parallel -eq 0 ] || [ $$parallel -eq 5 ] || exit $$parallel; \
	$(BIN)/pytest -m serial $(PYTEST_ARGS); serial=$$?; \
	[ $$serial -eq 0 ] || { [ $$serial -eq 5 ] && [ $$parallel -eq 0 ]; } || exit $$serial

# The documentation site (mkdocs.yml, docs/) into site/, the API reference generated from the
# code at every build; docs-serve rebuilds on every edit, on http://$(HOST):$(DOCS_PORT).
docs: venv-dev
	$(BIN)/mkdocs build --strict

docs-serve: venv-dev
	$(BIN)/mkdocs serve --strict --dev-addr $(HOST):$(DOCS_PORT)

# The pictures of the docs (docs/screenshots/), taken again by the browser tests that take
# them (screenshot(name, docs=True)); commit the ones a change of a page altered.
screenshots: venv-dev assets
	DOCS_SCREENSHOTS=1 DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/pytest \
		$$(grep -rl --include='*.py' 'docs=True)' tests) $(PYTEST_ARGS)

lint: venv-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

format: venv-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The French catalog (webapp/locale/fr) of the web app, the public pages and the messages:
# collect every marked string and compile; translate the new entries, then run it again
# (docs/developers/architecture.md, "Translations").
messages: venv-dev
	DJANGO_SETTINGS_MODULE=tests.settings $(BIN)/python manage.py translations

# Long schema-driven run against /api/v1 (FUZZ_SECONDS per credential; docs/developers/architecture.md).
fuzz: venv-dev
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} FUZZ_SECONDS=$${FUZZ_SECONDS:-600} \
		$(BIN)/pytest tests/config/test_schema_fuzz.py $(PYTEST_ARGS)

# Only the fault scripts on a private production topology (they also run in `make test`).
faults: venv-dev
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/pytest -m faults $(PYTEST_ARGS)

bench: venv-dev
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/run.py

# 10,000 systems, 500,000 trails, 1,000,000 subscribers (SCALE=0.01 for a quick check).
bench-scale: venv-dev
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python bench/scale.py
