"""Topic tracking (KIP-558) switched off, or its reset forbidden, as Kafka Connect's worker keys say."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conveyor.errors import ForbiddenError
from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import Log, open_log
from conveyor.settings.worker_config import WorkerConfig

from .conftest import ThreadTaskRunner
from .support import file_source

NAME = "lines"
HerderWith = Callable[..., StandaloneHerder]


@pytest.fixture
def herder_with(tmp_path: Path) -> Iterator[HerderWith]:
    """A started standalone herder with the given worker properties, running one file source."""
    started: list[tuple[StandaloneHerder, Log]] = []

    def make(**props: str) -> StandaloneHerder:
        config = WorkerConfig.from_props({"data.dir": str(tmp_path / f"data-{len(started)}"), **props})
        log = open_log(config.log_url)
        herder = StandaloneHerder(config, log, ThreadTaskRunner(), "worker-1:8083")
        herder.start()
        started.append((herder, log))
        herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
        return herder

    yield make
    for herder, log in started:
        herder.stop()
        log.close()


def test_with_tracking_off_the_active_topics_are_forbidden(herder_with: HerderWith) -> None:
    herder = herder_with(**{"topic.tracking.enable": "false"})
    with pytest.raises(ForbiddenError, match=r"^Topic tracking is disabled\.$"):
        herder.connector_active_topics(NAME)
    with pytest.raises(ForbiddenError, match=r"^Topic tracking is disabled\.$"):
        herder.reset_connector_active_topics(NAME)


def test_with_reset_not_allowed_a_reset_is_forbidden_but_reading_is_not(herder_with: HerderWith) -> None:
    herder = herder_with(**{"topic.tracking.allow.reset": "false"})
    assert isinstance(herder.connector_active_topics(NAME), list)
    with pytest.raises(ForbiddenError, match=r"^Topic tracking reset is disabled\.$"):
        herder.reset_connector_active_topics(NAME)
