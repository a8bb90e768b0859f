"""A worker process put together: log, Spark, task runner, herder and REST server (standalone or grouped)."""

from __future__ import annotations

import dataclasses
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, cast

from conveyor.lifecycle import Service
from conveyor.log import Log, open_log
from conveyor.plugins import load_plugin_path
from conveyor.plugins.plugin_path import PluginSource
from conveyor.settings.properties import read_properties
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.starting_runner import StartingTaskRunner
from conveyor.spark.table_formats import resolve

# The herders, the REST server and Spark are imported where they are first needed: a worker starts
# Spark's JVM first, and imports the rest while it boots.
if TYPE_CHECKING:
    from conveyor.herder.base import BaseHerder
    from conveyor.herder.distributed.herder import DistributedHerder
    from conveyor.herder.standalone import StandaloneHerder
    from conveyor.rest.routes.internal import InternalHerder
    from conveyor.rest.worker_server import WorkerRestServer
    from conveyor.spark.task_runner import SparkTaskRunner

logger = logging.getLogger(__name__)

SHUTDOWN_MARGIN_S = 30.0
"""How long stopping a worker may take beyond `task.shutdown.graceful.timeout.ms` (connectors, statuses,
the group, Spark) before what has not stopped is abandoned."""


class WorkerProcess(Service):
    """Starts and stops everything a worker runs, in order; subclasses choose the herder."""

    def __init__(self, config: WorkerConfig) -> None:
        for warning in config.warnings:
            logger.warning(warning)
        plugins = load_plugin_path(config.plugin_path)
        self.config = config = dataclasses.replace(
            config, plugin_modules=plugins.modules, plugin_module_info=plugins.module_info
        )
        self.runner = StartingTaskRunner(lambda: self._start_spark(plugins.sources))
        self.log: Log = open_log(config.log_url)
        self.server: WorkerRestServer | None = None
        self.herder: BaseHerder | None = None

    def _start_spark(self, plugin_sources: list[PluginSource]) -> SparkTaskRunner:
        """Spark's session, the plugins shipped to it, its executors' daemon, and the runner on it: built
        while the REST server and the herder start, since none of them needs Spark. Its JVM maps the
        archive of its classes, or, for the first worker for its JDK and jars, writes it as it exits."""
        from conveyor.spark.plugin_shipping import ship_plugins
        from conveyor.spark.session import (
            get_or_create_session,
            prepare_class_archive,
            start_executor_daemons,
        )
        from conveyor.spark.table_formats import session_conf
        from conveyor.spark.task_runner import SparkTaskRunner

        config = self.config
        spark_conf = session_conf(config.spark_conf(), config.table_formats, config.iceberg_warehouse)
        archive = prepare_class_archive(spark_conf) if config.jvm_class_archive else None
        spark = get_or_create_session(config.spark_master, "conveyor-worker", spark_conf, archive)
        ship_plugins(spark.sparkContext, plugin_sources)
        start_executor_daemons(spark)
        return SparkTaskRunner(
            spark,
            control_host=config.control_channel_bind_host,
            control_port=config.task_control_port,
            advertised_control_host=config.control_channel_host,
            lease_s=config.task_lease_ms / 1000,
            tasks_per_slot=config.tasks_per_slot,
            placement=config.task_placement,
            memory_limit_bytes=config.task_memory_limit_bytes,
        )

    def _new_herder(self, worker_id: str) -> BaseHerder:
        raise NotImplementedError

    def _internal(self, herder: BaseHerder) -> InternalHerder | None:
        """The herder behind the inter-worker endpoints; none for a standalone worker."""
        return None

    def _bound(self, herder: BaseHerder, port: int) -> None:
        """The REST server is listening on `port`: the herder learns the address it is reached at."""
        herder.set_worker_id(self.config.advertised_worker_id(port))

    def start(self) -> BaseHerder:
        from conveyor.rest.worker_server import WorkerRestServer

        herder = self._new_herder(self.config.advertised_worker_id(0))
        self.server = WorkerRestServer(herder, self.config, self._internal(herder))
        self.server.start()
        self._bound(herder, int(self.server.advertised_url.rsplit(":", 1)[1].rstrip("/")))
        self.herder = herder
        try:
            herder.start()
            self.runner.wait_started()
        except BaseException:
            self.stop()
            raise
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

    def shut_down(self) -> bool:
        """`stop()` within `task.shutdown.graceful.timeout.ms` plus `SHUTDOWN_MARGIN_S`; False if it did not
        finish by then, after naming in the log what had not stopped (the caller exits the process, which
        ends what was abandoned)."""
        limit_s = self.config.graceful_shutdown_timeout_ms / 1000 + SHUTDOWN_MARGIN_S
        stopping = threading.Thread(target=self._stop_logged, name="worker-shutdown", daemon=True)
        stopping.start()
        stopping.join(limit_s)
        if not stopping.is_alive():
            return True
        in_progress = self.herder.operations_in_progress() if self.herder is not None else []
        logger.error(
            "The worker did not stop within %.0f s; abandoning what has not stopped: %s",
            limit_s,
            " ".join(in_progress) or "the worker's shutdown",
        )
        return False

    def _stop_logged(self) -> None:
        try:
            self.stop()
        except Exception:
            logger.exception("Stopping the worker failed")


class StandaloneWorker(WorkerProcess):
    """A worker on its own, as Kafka's connect-standalone.sh runs."""

    herder: StandaloneHerder | None

    def _new_herder(self, worker_id: str) -> StandaloneHerder:
        from conveyor.herder.standalone import StandaloneHerder

        return StandaloneHerder(self.config, self.log, self.runner, worker_id)

    def start(self) -> StandaloneHerder:
        return cast("StandaloneHerder", super().start())


class DistributedWorker(WorkerProcess):
    """A worker of the group `group.id`, as Kafka's connect-distributed.sh runs."""

    herder: DistributedHerder | None

    def _new_herder(self, worker_id: str) -> DistributedHerder:
        from conveyor.herder.distributed.herder import DistributedHerder
        from conveyor.rest.tls import client_ssl_context

        return DistributedHerder(
            self.config,
            self.log,
            self.runner,
            worker_id,
            url="",
            inter_worker_tls=client_ssl_context(self.config.rest_ssl),
        )

    def _internal(self, herder: BaseHerder) -> InternalHerder | None:
        return cast("DistributedHerder", herder)

    def _bound(self, herder: BaseHerder, port: int) -> None:
        super()._bound(herder, port)
        cast("DistributedHerder", herder).url = self.config.advertised_url(port)

    def start(self) -> DistributedHerder:
        return cast("DistributedHerder", super().start())


def load_worker_config(
    path: Path | None, overrides: dict[str, str] | None = None, *, standalone: bool = True
) -> WorkerConfig:
    props = read_properties(path.read_text()) if path is not None else {}
    config = WorkerConfig.from_props({**props, **(overrides or {})}, standalone=standalone)
    resolve(config.table_formats)  # a table format this Spark cannot load stops the worker before its start
    return config
