"""``internal.topics.automatic.creation.enable`` (KIP-1209): a worker that may not create its internal
topics starts only on topics that exist, and says which one is missing otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import open_log
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage.errors import StorageError

from .conftest import ThreadTaskRunner


def worker_config(tmp_path: Path, create: str) -> WorkerConfig:
    return WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path / "data"),
            "offset.storage.partitions": "1",
            "status.storage.partitions": "1",
            "internal.topics.automatic.creation.enable": create,
        }
    )


def test_a_missing_internal_topic_fails_start_up_naming_the_topic_and_the_key(tmp_path: Path) -> None:
    config = worker_config(tmp_path, "false")
    log = open_log(config.log_url)
    herder = StandaloneHerder(config, log, ThreadTaskRunner(), "worker-1:8083")
    try:
        with pytest.raises(StorageError, match=r"connect-\w+ does not exist.*automatic\.creation\.enable"):
            herder.start()
        assert log.admin().list_topics() == []
    finally:
        herder.stop()
        log.close()


def test_a_worker_starts_on_internal_topics_created_before_it(tmp_path: Path) -> None:
    config = worker_config(tmp_path, "false")
    log = open_log(config.log_url)
    for topic in (config.configs_topic, config.offsets_topic, config.status_topic):
        log.admin().create_topic(topic, 1, {"cleanup.policy": "compact"})
    herder = StandaloneHerder(config, log, ThreadTaskRunner(), "worker-1:8083")
    try:
        herder.start()
        assert herder.ready()
    finally:
        herder.stop()
        log.close()


def test_internal_topics_are_created_by_default(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path / "data")})
    assert config.internal_topics_creation
