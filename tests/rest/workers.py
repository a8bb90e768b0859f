"""Standalone herders for the REST tests, each over its own embedded log and the shared Spark session."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import open_log
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_runner import SparkTaskRunner


@contextmanager
def unstarted_herder(data_dir: Path, **settings: str) -> Iterator[StandaloneHerder]:
    """A standalone herder over its own embedded log in `data_dir`, not yet started, with extra `settings`."""
    props = {"data.dir": str(data_dir), "offset.flush.interval.ms": "200", **settings}
    config = WorkerConfig.from_props(props)
    log = open_log(config.log_url)
    spark = get_or_create_session(config.spark_master, "conveyor-rest-tests", config.spark_conf())
    executor = SparkTaskRunner(spark, lease_s=config.task_lease_ms / 1000)
    try:
        yield StandaloneHerder(config, log, executor, config.advertised_worker_id(8083))
    finally:
        log.close()
