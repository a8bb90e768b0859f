# Two commands set up and run everything on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The console's browser tests drive Debian's Chromium; Playwright's own browsers are never downloaded.
CHROMIUM := /usr/bin/chromium
SUDO := $(shell test "$$(id -u)" = 0 || echo sudo)

.PHONY: demo test lint bench clean kafka

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m conveyor.cli demo

# A single-node Apache Kafka broker on 127.0.0.1:9092 (jars fetched with Maven into ~/.cache/conveyor).
kafka: $(STAMP)
	$(PY) -m conveyor.kafka_broker --port $${KAFKA_PORT:-9092}

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

$(CHROMIUM):
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends chromium

test: lint $(CHROMIUM)
	$(VENV)/bin/pytest

bench: $(STAMP)
	for b in bench/*_bench.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build dist *.egg-info
