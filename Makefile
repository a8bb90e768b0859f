# Two commands set up and run everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The console's browser tests drive Debian's Chromium; Playwright's own browsers are never downloaded.
CHROMIUM := /usr/bin/chromium
SUDO := $(shell test "$$(id -u)" = 0 || echo sudo)

.PHONY: demo test lint bench clean kafka postgres postgresql-server

$(STAMP): pyproject.toml
	@echo "[1/3] Creating the virtualenv $(VENV)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "[2/3] Upgrading pip"
	@$(PY) -m pip install --quiet --upgrade pip
	@echo "[3/3] Installing Conveyor and its dependencies (PySpark is large: a few minutes the first time)"
	@$(PY) -m pip install --progress-bar on -e '.[test]'
	@touch $(STAMP)
	@echo "Installed. Put the conveyor command on your PATH with: export PATH=\"$$PWD/$(VENV)/bin:\$$PATH\""

demo: $(STAMP)
	$(PY) -m conveyor.cli demo
	@echo "The conveyor command is $(VENV)/bin/conveyor; put it on your PATH with: export PATH=\"$$PWD/$(VENV)/bin:\$$PATH\""

# A single-node Apache Kafka broker on 127.0.0.1:9092 (jars fetched with Maven into ~/.cache/conveyor).
kafka: $(STAMP)
	$(PY) -m conveyor.kafka_broker --port $${KAFKA_PORT:-9092}

# PostgreSQL's server binaries (Debian's package); the tests start their own server from them as the
# `postgres` OS user, as PostgreSQL refuses to run as root.
postgresql-server:
	test -n "$$(ls /usr/lib/postgresql/*/bin/postgres 2>/dev/null)" || { $(SUDO) apt-get update && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends postgresql; }

# A PostgreSQL server with wal_level=logical on 127.0.0.1:5432 (user and password `conveyor`).
postgres: $(STAMP) postgresql-server
	$(PY) -m conveyor.postgres_server --port $${POSTGRES_PORT:-5432}

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

$(CHROMIUM):
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends chromium

test: lint $(CHROMIUM) postgresql-server
	$(VENV)/bin/pytest

bench: $(STAMP)
	for b in bench/*_bench.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build dist *.egg-info
