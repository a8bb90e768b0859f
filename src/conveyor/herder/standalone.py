"""The standalone herder: one worker, its connectors' configs, offsets and status kept in the log.

Unlike Kafka Connect's standalone mode, connector configs persist in the config topic, so a restarted
worker resumes every connector it had (connectors named on the command line are re-applied over them).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager

from conveyor.errors import NotFoundError
from conveyor.herder.api import ConfigWrite
from conveyor.herder.base import BaseHerder
from conveyor.herder.connector_locks import ConnectorLocks
from conveyor.herder.entities import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
)
from conveyor.herder.validation import connector_class
from conveyor.log import Log
from conveyor.runtime.connector_calls import StuckCallError, SupersededError
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskRunner
from conveyor.runtime.task_spec import TaskId
from conveyor.runtime.worker import ConnectorType, connector_type
from conveyor.settings.worker_config import WorkerConfig

logger = logging.getLogger(__name__)

REQUEST_TIMEOUT_S = 90.0
"""How long a request waits for another change to the same connector to finish (Kafka's REST timeout)."""


class StandaloneHerder(BaseHerder):
    """Serves every REST operation for the connectors of a single worker."""

    def __init__(self, config: WorkerConfig, log: Log, runner: TaskRunner, worker_id: str) -> None:
        super().__init__(config, log, runner, worker_id)
        self._locks = ConnectorLocks()

    # Lifecycle.

    def start(self) -> None:
        """Read the internal topics and start every connector they hold."""
        with self._stages.stage("reading to the end of internal topics"):
            self.configs.start()
            self.offsets.start()
            self.statuses.start()
        self._start_topic_tracking()
        snapshot = self.configs.snapshot()
        logger.info("Starting connectors and tasks using config offset %s", snapshot.offset)
        starting = [
            threading.Thread(target=self._start_stored, args=(name, config), name=f"start-{name}")
            for name in snapshot.connectors()
            if (config := snapshot.connector_config(name)) is not None
        ]
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join()
        self._ready.set()

    def _start_stored(self, name: str, config: Mapping[str, str]) -> None:
        """Start a connector the config topic holds: side by side with the others, so that one whose
        `start()` is slow or stuck holds up no other."""
        with self._changing(name, "starting the connector"):
            self._start_connector_and_tasks(name, config, self._target(name))

    def stop(self) -> None:
        self._ready.clear()
        self._stop_topic_tracking()
        self.worker.close()
        for store in (self.configs, self.offsets, self.statuses):
            store.stop()

    # Helpers.

    @contextmanager
    def _changing(self, name: str, what: str) -> Iterator[None]:
        """Hold the connector's lock while changing it, as a stage the health check can name. A request
        that cannot have the lock in time says what holds it up (Kafka's KAFKA-15563 message)."""
        with ExitStack() as held:
            try:
                held.enter_context(self._locks.holding(name, REQUEST_TIMEOUT_S))
            except TimeoutError as error:
                raise self._timed_out() from error
            held.enter_context(self._stages.stage(f"{what} {name}"))
            yield

    def _start_connector_and_tasks(self, name: str, config: Mapping[str, str], target: TargetState) -> None:
        if not self.worker.start_connector(name, config, target):
            return
        if target is TargetState.STOPPED:
            self.configs.put_task_configs(name, [])
            return
        self._reconfigure_tasks(name, config, target)

    def _reconfigure_tasks(self, name: str, config: Mapping[str, str], target: TargetState) -> None:
        """Ask the connector for task configs; if they changed, write them and restart the tasks."""
        try:
            task_configs = self.worker.connector_task_configs(name, config)
        except (SupersededError, StuckCallError):
            return
        except Exception as exc:
            self.worker.fail_connector(name, exc)
            return
        snapshot = self.configs.snapshot()
        running = self.worker.tasks_of(name)
        unchanged = task_configs == snapshot.task_configs(name)
        if unchanged and len(running) == len(task_configs):
            return
        self.worker.stop_tasks(running)
        if not unchanged:
            self.configs.put_task_configs(name, task_configs)
            if (
                self.config.exactly_once_source_enabled
                and connector_type(connector_class(config)) is ConnectorType.SOURCE
            ):
                self._fence_previous_generation(name, snapshot.task_count_record(name), len(task_configs))
                self.configs.put_task_count_record(name, len(task_configs))
        for index, task_config in enumerate(task_configs):
            self.worker.start_task(TaskId(name, index), config, task_config, target)

    def _on_reconfiguration_request(self, name: str) -> None:
        def reconfigure() -> None:
            with self._changing(name, "reconfiguring the tasks of the connector"):
                config = self.configs.snapshot().connector_config(name)
                if config is not None and self.worker.is_running(name):
                    self._reconfigure_tasks(name, config, self._target(name))

        threading.Thread(target=reconfigure, name=f"reconfigure-{name}", daemon=True).start()

    def _write_connector_config(self, write: ConfigWrite) -> tuple[bool, ConnectorInfo]:
        name, config = write.name, write.config
        if write.allow_replace and self.configs.snapshot().contains(name):
            self.worker.supersede(name)
        with self._changing(name, "writing the config of the connector"):
            exists, target = self._prepare_config_write(write)
            if exists:
                self.worker.stop_tasks(self.worker.tasks_of(name))
                self.worker.stop_connector(name)
            self.configs.put_connector_config(name, config, None if target is None else target.value)
            self._start_connector_and_tasks(name, config, target or self._target(name))
            return not exists, self.connector_info(name)

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        with self._changing(name, "writing the config of the connector"):
            config = self._patched_config(name, patch)
            return self.put_connector_config(name, config, allow_replace=True)[1]

    def delete_connector(self, name: str) -> None:
        self.worker.supersede(name)
        with self._changing(name, "deleting the connector"):
            self._require(name)
            self.worker.stop_tasks(self.worker.tasks_of(name))
            self.worker.stop_connector(name)
            self.configs.remove_connector_config(name)
            self.statuses.delete_connector(name)

    # Restarts and target states.

    def restart_task(self, name: str, task: int) -> None:
        with self._changing(name, "restarting a task of the connector"):
            config = self._require(name)
            task_configs = self.configs.snapshot().task_configs(name)
            if not 0 <= task < len(task_configs):
                raise NotFoundError(f"Unknown task: {name}-{task}")
            task_id = TaskId(name, task)
            if self.worker.task_state(task_id) is None:
                self.worker.start_task(task_id, config, task_configs[task], self._target(name))
            else:
                self.worker.restart_task(task_id)

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool) -> ConnectorStateInfo:
        if not only_failed:
            self.worker.supersede(name)
        with self._changing(name, "restarting the connector"):
            config = self._require(name)
            status = self.connector_status(name)
            restart_connector, restart_tasks = self._restart_targets(status, include_tasks, only_failed)
            if restart_connector:
                target = self._target(name)
                if not self.worker.start_connector(name, config, target):
                    restart_tasks = []
                elif not status.tasks and target is not TargetState.STOPPED:
                    self._reconfigure_tasks(name, config, target)
            for task in restart_tasks:
                self.restart_task(name, task)
            return self._restarting(status, restart_connector, restart_tasks)

    def _set_target(self, name: str, target: TargetState) -> None:
        if target is TargetState.STOPPED:
            self.worker.supersede(name)
        with self._changing(name, "changing the target state of the connector"):
            config = self._require(name)
            previous = self._target(name)
            self.configs.put_target_state(name, target.value)
            if target is TargetState.STOPPED:
                self.worker.stop_tasks(self.worker.tasks_of(name))
                self.worker.start_connector(name, config, TargetState.STOPPED)
                self.configs.put_task_configs(name, [])
            elif previous is TargetState.STOPPED or not self.worker.is_running(name):
                self._start_connector_and_tasks(name, config, target)
            else:
                self.worker.set_connector_target(name, target)

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        with self._changing(name, "altering the offsets of the connector"):
            return self._alter_offsets(name, offsets)

    def reset_connector_offsets(self, name: str) -> str:
        with self._changing(name, "resetting the offsets of the connector"):
            return self._reset_offsets(name)
