"""A standalone herder driven directly, its tasks run in threads of this process on an embedded log."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]

# Test plugins and the in-process placement are named by dotted path from the repository root.
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))

from tests.runtime.threads import ThreadTaskRunner  # noqa: E402

from conveyor.herder.standalone import StandaloneHerder  # noqa: E402
from conveyor.log import Log, open_log  # noqa: E402
from conveyor.settings.worker_config import WorkerConfig  # noqa: E402

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


@dataclass
class Standalone:
    herder: StandaloneHerder
    runner: ThreadTaskRunner
    log: Log


@pytest.fixture
def standalone(tmp_path: Path) -> Iterator[Standalone]:
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path / "data"),
            "offset.flush.interval.ms": "100",
            "offset.storage.partitions": "1",
            "status.storage.partitions": "1",
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "task.restart.enable": "false",
        }
    )
    log = open_log(config.log_url)
    runner = ThreadTaskRunner()
    herder = StandaloneHerder(config, log, runner, "worker-1:8083")
    herder.start()
    try:
        yield Standalone(herder, runner, log)
    finally:
        herder.stop()
        log.close()


@pytest.fixture
def herder(standalone: Standalone) -> StandaloneHerder:
    return standalone.herder
