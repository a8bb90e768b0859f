"""A real standalone worker (embedded log, Spark task executor, `StandaloneHerder`) behind the REST API.

One worker serves each test module; every test's connectors are deleted after it so their Spark
slots are free for the next test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import open_log
from conveyor.runtime.worker_config import WorkerConfig
from conveyor.spark.runner import SparkTaskExecutor
from conveyor.spark.session import get_or_create_session

from .serving import serving


@pytest.fixture(scope="module")
def herder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneHerder]:
    data_dir: Path = tmp_path_factory.mktemp("worker")
    config = WorkerConfig.from_props({"data.dir": str(data_dir), "offset.flush.interval.ms": "200"})
    log = open_log(config.log_url)
    spark = get_or_create_session(config.spark_master, "conveyor-rest-tests", config.spark_conf())
    executor = SparkTaskExecutor(spark, lease_s=config.task_lease_ms / 1000)
    standalone = StandaloneHerder(config, log, executor, config.advertised_worker_id(8083))
    standalone.start()
    try:
        yield standalone
    finally:
        standalone.stop()
        log.close()


@pytest.fixture(scope="module")
def served(herder: StandaloneHerder) -> Iterator[httpx.Client]:
    with serving(herder) as client:
        yield client


@pytest.fixture
def client(served: httpx.Client) -> Iterator[httpx.Client]:
    """The REST client of this module's worker; the connectors a test creates are deleted after it."""
    yield served
    for name in served.get("/connectors").json():
        served.delete(f"/connectors/{name}")
