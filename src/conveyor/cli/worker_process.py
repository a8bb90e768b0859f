"""A standalone worker process put together: log, Spark, task runner, herder and REST server."""

from __future__ import annotations

import logging
from pathlib import Path
from types import TracebackType
from typing import Self

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import Log, open_log
from conveyor.rest import RestServer, create_app
from conveyor.runtime.properties import read_properties
from conveyor.runtime.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_runner import SparkTaskRunner

logger = logging.getLogger(__name__)

class StandaloneWorker:
    """Starts and stops everything a standalone worker runs, in order."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        for warning in config.warnings:
            logger.warning(warning)
        self.log: Log = open_log(config.log_url)
        spark = get_or_create_session(config.spark_master, "conveyor-worker", config.spark_conf())
        self.runner = SparkTaskRunner(
            spark,
            lease_s=config.task_lease_ms / 1000,
            tasks_per_slot=config.tasks_per_slot,
        )
        self.server: RestServer | None = None
        self.herder: StandaloneHerder | None = None

    def start(self) -> StandaloneHerder:
        placeholder_id = self.config.advertised_worker_id(0)
        herder = StandaloneHerder(self.config, self.log, self.runner, placeholder_id)
        app = create_app(herder, max_request_bytes=self.config.rest_request_max_bytes)
        self.server = RestServer(app, self.config.listeners)
        self.server.start()
        port = int(self.server.url.rsplit(":", 1)[1].rstrip("/"))
        herder.set_worker_id(self.config.advertised_worker_id(port))
        herder.start()
        self.herder = herder
        logger.info("Conveyor worker %s serving the REST API at %s", herder.worker_id, self.server.url)
        return herder

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    def stop(self) -> None:
        if self.herder is not None:
            self.herder.stop()
        if self.server is not None:
            self.server.stop()
        self.log.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def load_worker_config(path: Path | None, overrides: dict[str, str] | None = None) -> WorkerConfig:
    props = read_properties(path.read_text()) if path is not None else {}
    return WorkerConfig.from_props({**props, **(overrides or {})})
