"""A herder reads its internal topics and takes requests while Spark starts, and is healthy once it is up."""

from __future__ import annotations

import threading
from pathlib import Path

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import open_log
from conveyor.runtime.task_runner import TaskRunner
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.starting_runner import StartingTaskRunner

from .conftest import STRING_CONVERTER, ThreadTaskRunner
from .support import NAME, file_source, wait_for_states

SPARK_START_TIMEOUT_S = 120.0


def test_a_herder_serves_while_spark_starts_and_is_healthy_once_it_has(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path / "data"),
            "offset.storage.partitions": "1",
            "status.storage.partitions": "1",
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
        }
    )
    spark_started = threading.Event()

    def start_spark() -> TaskRunner:
        assert spark_started.wait(SPARK_START_TIMEOUT_S)
        return ThreadTaskRunner()

    log = open_log(config.log_url)
    herder = StandaloneHerder(config, log, StartingTaskRunner(start_spark), "worker-1:8083")
    herder.start()
    try:
        assert herder.ready()
        starting = herder.health()
        assert not starting.ready
        assert starting.details is not None and "Spark is starting." in starting.details
        created, _ = herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
        assert created
        spark_started.set()
        wait_for_states(herder, "RUNNING", ["RUNNING"])
        assert herder.health().ready
    finally:
        spark_started.set()
        herder.stop()
        log.close()
