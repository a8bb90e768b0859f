"""Two embedded logs stand for two clusters, A (the source) and B (the target)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.log import Log, open_log

REPOSITORY = Path(__file__).resolve().parents[2]

if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))


@pytest.fixture
def cluster_a(tmp_path: Path) -> Iterator[Log]:
    with open_log(f"embedded:{tmp_path / 'cluster-a'}") as log:
        yield log


@pytest.fixture
def cluster_b(tmp_path: Path) -> Iterator[Log]:
    with open_log(f"embedded:{tmp_path / 'cluster-b'}") as log:
        yield log
