"""A connector with an offsets topic of its own: the herder reads it for a request and lets it go."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.runtime.threads import ThreadTaskRunner

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import Consumer, IllegalStateError, IsolationLevel
from conveyor.log.embedded.log import EmbeddedLog
from conveyor.settings.worker_config import WorkerConfig

from .support import NAME, file_source

OWN_TOPIC = "own-offsets"


class ConsumerKeepingLog(EmbeddedLog):
    """The embedded log, keeping every consumer it hands out so a test can see which were closed."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory)
        self.consumers: list[Consumer] = []

    def consumer(
        self,
        group_id: str | None = None,
        isolation_level: IsolationLevel = "read_committed",
        **config: object,
    ) -> Consumer:
        consumer = super().consumer(group_id, isolation_level, **config)
        self.consumers.append(consumer)
        return consumer


@pytest.fixture
def keeping(tmp_path: Path) -> Iterator[tuple[StandaloneHerder, ConsumerKeepingLog]]:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path / "data"), "offset.storage.partitions": "1"})
    log = ConsumerKeepingLog(tmp_path / "log")
    herder = StandaloneHerder(config, log, ThreadTaskRunner(), "worker-1:8083")
    herder.start()
    try:
        yield herder, log
    finally:
        herder.stop()
        log.close()


def is_closed(consumer: Consumer) -> bool:
    try:
        consumer.poll(0.0)
    except IllegalStateError as error:
        return "closed" in str(error)
    return False


def test_listing_offsets_from_a_connectors_own_topic_closes_what_it_opened(
    keeping: tuple[StandaloneHerder, ConsumerKeepingLog], tmp_path: Path
) -> None:
    herder, log = keeping
    config = {**file_source(tmp_path), "offsets.storage.topic": OWN_TOPIC}
    herder.put_connector_config(NAME, config, allow_replace=False, initial_state="STOPPED")
    opened_before = len(log.consumers)
    assert herder.connector_offsets(NAME) == []
    opened = log.consumers[opened_before:]
    assert opened, "the connector's own offsets topic was read"
    assert all(is_closed(consumer) for consumer in opened)
