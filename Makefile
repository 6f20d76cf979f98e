# Pan online. `make run` serves the site; `make test` runs every test. See README.md.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

# The test suite talks to the real PostgreSQL and Redis (override to point elsewhere).
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/pan
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0

.PHONY: help install run run-prod test lint format messages bench-engine bench-puzzles bench-arena bench-fairplay bench-tournament bench-clock bench-move bench-ratings bench-speed bench-spectators bench-load bench-soak bench-faults bench-scale bench-api bench-mail bench-push clean

help:
	@echo "make run     serve the site at http://$(HOST):$(PORT)/ (embedded mode unless DATABASE_URL/REDIS_URL are set)"
	@echo "make run-prod  the production shape at http://$(HOST):$(PROD_PORT)/: nginx, two daphnes, Celery, DEBUG off (deploy/)"
	@echo "make test    ruff, the pytest suite on PostgreSQL and Redis, then the browser tests"
	@echo "make bench-load  N tables x 4 real websockets on daphne + Celery, against a bare baseline"
	@echo "make bench-soak  250 tables on two daphnes for 30 minutes: memory, connections and p99 per 5 minutes, and whether they stay flat"
	@echo "make bench-faults  tables through nginx while a daphne, Redis or PostgreSQL fails, and through restarts"
	@echo "make bench-scale  a move's and an idle socket's cost to each shared part, and their ceilings"
	@echo "make bench-mail  notice e-mails an hour from one worker, over SMTP to a local sink"
	@echo "make bench-push  encrypted pushes a second from one worker thread, to a local push service"

$(VENV)/.installed: requirements/base.txt requirements/dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $@

install: $(VENV)/.installed
	$(PY) manage.py compile_translations -v0

run: install
	DEBUG=$${DEBUG:-true} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-true} $(PY) manage.py seed_demo
	DEBUG=$${DEBUG:-true} $(PY) manage.py vapid_keys -v0
	DEBUG=$${DEBUG:-true} $(PY) manage.py collectstatic --noinput -v0
	@if [ -n "$$REDIS_URL" ]; then \
		PATH=$(CURDIR)/$(VENV)/bin:$$PATH HOST=$(HOST) PORT=$(PORT) DEBUG=$${DEBUG:-true} $(VENV)/bin/honcho -f Procfile start; \
	else \
		HOST=$(HOST) PORT=$(PORT) DEBUG=$${DEBUG:-true} $(PY) manage.py serve --host $(HOST) --port $(PORT); \
	fi

# The production shape on this machine (deploy/run_prod.py): Debian's nginx (installed when
# absent) on PROD_PORT in front of two daphnes, the Celery workers and beat, DEBUG off, on
# PostgreSQL and Redis (DATABASE_URL, REDIS_URL; default the database pan_prod, Redis db 0).
PROD_PORT ?= 8080
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
run-prod: install
	@test -x /usr/sbin/nginx || command -v nginx >/dev/null || { \
		echo "run-prod: installing Debian's nginx"; \
		$(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y nginx; }
	$(PY) -m deploy.run_prod --host $(HOST) --port $(PROD_PORT)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

messages: install
	$(PY) manage.py makemessages -l pl --ignore=.venv --ignore=var --ignore=tests --ignore=bench --no-obsolete
	$(PY) manage.py compile_translations

# Tests get their own queue and key prefix, so a running dev worker never takes their tasks.
TEST_ENV = DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
	CELERY_QUEUE=pan-test CHANNELS_PREFIX=pan-test HTTPS=false DEBUG=false

# The browser tests run beside the rest, in two pytest processes of their own (Playwright's
# loop and pytest-asyncio clash in one), each with half the files (PAN_E2E_PART), its own
# site, test database (tests/e2e/conftest.py), queue and key prefix: a browser test mostly
# waits, and together they take the time of the longest. Their output follows the rest's.
E2E_ENV = DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
	HTTPS=false DEBUG=false
E2E_PART = $(E2E_ENV) PAN_E2E_PART=$(1)/2 CELERY_QUEUE=pan-e2e-$(1) CHANNELS_PREFIX=pan-e2e-$(1)

# The rest of the suite runs in two processes side by side too (tests/conftest.py): the
# games' and the tournaments' tests, which wait most (sockets, workers, clocks), in a
# second one with its own test database, queue and key prefix. With the browser tests in
# two, the rest took 15.7 minutes, the games' 7, each browser part 12 to 13.
SHARD_ENV = DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
	CELERY_QUEUE=pan-test-2 CHANNELS_PREFIX=pan-test-2 PAN_TEST_SHARD=2 HTTPS=false DEBUG=false
SHARD_TESTS = tests/games tests/tournaments

test: lint
	@mkdir -p var
	@$(call E2E_PART,1) $(PY) -m pytest tests/e2e -q --durations=15 > var/e2e-1.log 2>&1 & browser1=$$!; \
	$(call E2E_PART,2) $(PY) -m pytest tests/e2e -q --durations=15 > var/e2e-2.log 2>&1 & browser2=$$!; \
	$(SHARD_ENV) $(PY) -m pytest $(SHARD_TESTS) -q --durations=15 > var/shard.log 2>&1 & shard=$$!; \
	trap 'kill $$browser1 $$browser2 $$shard 2>/dev/null' INT TERM; \
	$(TEST_ENV) $(PY) -m pytest tests --ignore=tests/e2e $(SHARD_TESTS:%=--ignore=%) -q --durations=25; rest=$$?; \
	wait $$shard; second=$$?; \
	echo "--- $(SHARD_TESTS) (output kept in var/shard.log) ---"; cat var/shard.log; \
	wait $$browser1; e2e1=$$?; \
	echo "--- the browser tests, part 1 (output kept in var/e2e-1.log) ---"; cat var/e2e-1.log; \
	wait $$browser2; e2e2=$$?; \
	echo "--- the browser tests, part 2 (output kept in var/e2e-2.log) ---"; cat var/e2e-2.log; \
	test $$rest -eq 0 -a $$second -eq 0 -a $$e2e1 -eq 0 -a $$e2e2 -eq 0

bench-engine: install
	$(PY) -m bench.bench_engine

# Puzzles from bot hands as the analysis worker makes them: per minute, yield, re-check survival.
bench-puzzles: install
	$(PY) -m bench.bench_puzzles

# 500 players in a 20-minute arena through the services on a simulated clock: games, waits,
# pairing waves, the leaderboard's render, a recount (database pan_bench_arena).
bench-arena: install
	$(PY) -m bench.bench_arena $(BENCH_ARGS)

# Fair play's detection measured: simulated honest players, card-sharing pairs, assisted
# players and dumpers in rated matches through the services; recall and false positives by
# matches played (database pan_bench_fairplay; --quick: under ten minutes; options:
# python -m bench.bench_fairplay --help).
bench-fairplay: install
	$(PY) -m bench.bench_fairplay $(BENCH_ARGS)

# A 256-bot tournament through the services (no websockets); its own database pan_bench_tournament.
bench-tournament: install
	$(PY) -m bench.bench_tournament

# Notice e-mails an hour from one worker, over SMTP to a local aiosmtpd (database pan_bench_mail).
bench-mail: install
	$(PY) -m bench.bench_mail

# Encrypted, signed pushes from one worker thread to a local push service (database
# pan_bench_push; options: python -m bench.bench_push --help).
bench-push: install
	$(PY) -m bench.bench_push $(BENCH_ARGS)

# Real PostgreSQL, Redis, celery worker and beat; its own database pan_bench.
bench-clock: install
	$(PY) -m bench.bench_clock

# Queries and server time of one move and of one viewer's render (database pan_bench).
bench-move: install
	$(PY) -m bench.bench_move

# An annulment's cost to the ratings: replay after it vs rebuild (database pan_bench_ratings).
bench-ratings: install
	$(PY) -m bench.bench_ratings

# N of the rating speeds: a player's own actions per hand in bot hands (no database).
bench-speed: install
	$(PY) -m bench.bench_speed

# A move's cost with 100 spectators: visitors share a render, signed-in ones do not.
bench-spectators: install
	$(PY) -m bench.bench_spectators

# Tables of four real websockets against daphne, Celery, PostgreSQL and Redis with production
# settings, and a bare Channels baseline (database pan_bench_load; options: python -m
# bench.bench_load --help).
bench-load: install
	$(PY) -m bench.bench_load $(BENCH_ARGS)

# 250 tables of four on two daphnes played for 30 minutes with production settings: per
# 5-minute window the RSS of each daphne and the worker, PostgreSQL's and Redis's
# connections, moves, p50/p99, CPU per move and the stolen share; then the verdict, flat
# or not (database pan_bench_soak; options: python -m bench.bench_soak --help).
bench-soak: install
	$(PY) -m bench.bench_soak $(BENCH_ARGS)

# 50 tables played through nginx on two daphnes while one daphne is killed, Redis (its own,
# started for the run) restarts and PostgreSQL (its own cluster) stops; then 250 while
# one daphne restarts (SIGTERM) and while both do, one after the other, as a deploy does
# (database pan_bench_faults; options: python -m bench.bench_faults --help).
bench-faults: install
	$(PY) -m bench.bench_faults $(BENCH_ARGS)

# What a move and an idle socket cost daphne, Redis and PostgreSQL (100 tables on one
# daphne, 1000 idle sockets), and how many move writes and PUBLISHes those two take, on a
# Redis and a PostgreSQL cluster of its own (database pan_bench_scale; options: python -m
# bench.bench_scale --help). The figures of docs/scaling.md.
bench-scale: install
	$(PY) -m bench.bench_scale

# API bots (bot accounts) playing through the Bot API's streams against daphne, Celery,
# PostgreSQL and Redis (database pan_bench_api; options: python -m bench.bench_api --help).
bench-api: install
	$(PY) -m bench.bench_api

clean:
	rm -rf $(VENV) var
