"""Task loops, the record pipeline and the worker run in this process, on an embedded log of their own."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.log import Log, open_log

REPOSITORY = Path(__file__).resolve().parents[2]

# Task classes are named by dotted path (`tests.runtime.tasks:...`), as a worker names them.
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))


@pytest.fixture
def log_url(tmp_path: Path) -> str:
    return f"embedded:{tmp_path / 'log'}"


@pytest.fixture
def log(log_url: str) -> Iterator[Log]:
    opened = open_log(log_url)
    yield opened
    opened.close()
