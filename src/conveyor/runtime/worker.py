"""The worker: runs connectors in its own process and their tasks on Spark, and keeps their status.

The worker is the Spark driver. Connector instances (which only plan tasks) live here; every task runs
on Spark through a `TaskRunner`. The worker publishes RUNNING and PAUSED as its tasks report them,
UNASSIGNED with the reason when a task has no room to run, records FAILED with the error's trace, and
restarts a failed task with exponential backoff when `task.restart.enable` is on (Kafka Connect waits
for a manual restart).
"""

from __future__ import annotations

import enum
import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.api import Connector, ConnectorContext, SinkConnector, SourceConnector, Task
from conveyor.errors import ConfigError, ConnectError
from conveyor.plugins import load_plugin_class
from conveyor.plugins.task_classes import load_task_class, task_class_name
from conveyor.runtime.client_overrides import refuse_unsafe_log_urls
from conveyor.runtime.config_providers import ConfigProviders
from conveyor.runtime.connector_config import TaskCount
from conveyor.runtime.control import TargetState
from conveyor.runtime.status import State
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.runtime.worker_config import WorkerConfig
from conveyor.runtime.worker_metrics import (
    ConnectorMetrics,
    StartupCounts,
    TaskMetricValues,
    WorkerMetrics,
    connector_task_counts,
)
from conveyor.storage import Status, StatusStore

logger = logging.getLogger(__name__)

MONITOR_INTERVAL_S = 0.25
HEALTHY_RUN_RESETS_BACKOFF_S = 60.0


class ConnectorType(enum.StrEnum):
    """A connector's type as the REST API shows it (Kafka's ``ConnectorType``)."""

    SOURCE = "source"
    SINK = "sink"
    UNKNOWN = "unknown"


def connector_type(connector: Connector | type[Connector]) -> ConnectorType:
    klass = connector if isinstance(connector, type) else type(connector)
    if issubclass(klass, SourceConnector):
        return ConnectorType.SOURCE
    if issubclass(klass, SinkConnector):
        return ConnectorType.SINK
    return ConnectorType.UNKNOWN


def new_connector(config: Mapping[str, str]) -> Connector:
    klass = load_plugin_class(config["connector.class"])
    if not (isinstance(klass, type) and issubclass(klass, Connector)):
        raise ConfigError(f"{config['connector.class']} is not a Connector class")
    return klass()


def _published(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if key not in ("state", "pid")}


def _connector_metrics(name: str, state: State, connector: Connector | None) -> ConnectorMetrics:
    if connector is None:
        return ConnectorMetrics(name, state.value.lower())
    klass = type(connector)
    try:
        version = connector.version()
    except Exception:
        version = ""
    return ConnectorMetrics(
        name,
        state.value.lower(),
        f"{klass.__module__}.{klass.__qualname__}",
        connector_type(connector).value,
        version,
    )


def _plugin_version(plugin: Connector | Task) -> str | None:
    """The version a status records for a connector or task (Kafka's `WorkerConnector.version`,
    `WorkerTask.taskVersion`); None when the plugin will not say."""
    try:
        return plugin.version()
    except Exception:
        logger.debug("%s did not give its version", type(plugin).__name__, exc_info=True)
        return None


def _connector_version(config: Mapping[str, str]) -> str | None:
    """The version of the connector `config` names; None when it cannot be made (as for Kafka's status of
    a connector whose class does not load)."""
    try:
        return _plugin_version(new_connector(config))
    except Exception:
        return None


def _task_version(task_config: Mapping[str, str]) -> str | None:
    """The version of the task `task.class` names, from an instance made here (as Kafka's worker makes
    the task); None when it cannot be made."""
    try:
        task = load_task_class(task_config["task.class"])()
    except Exception:
        return None
    return _plugin_version(task) if isinstance(task, Task) else None


def _trace(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


class WorkerConnectorContext(ConnectorContext):
    def __init__(self, worker: Worker, name: str) -> None:
        self._worker = worker
        self._name = name

    def request_task_reconfiguration(self) -> None:
        self._worker.on_reconfiguration_request(self._name)

    def raise_error(self, error: Exception) -> None:
        self._worker.fail_connector(self._name, error)


@dataclass
class RunningTask:
    spec: TaskSpec
    target: TargetState
    raw_configs: tuple[dict[str, str], dict[str, str]]
    """The connector and task configs as stored, variables unresolved: each start resolves them anew."""
    task_config_generation: int | None = None
    state: State = State.UNASSIGNED
    failures: int = 0
    unplaced: bool = False
    started_at: float = field(default_factory=time.monotonic)
    restart_timer: threading.Timer | None = None
    reported: bool = False
    """Whether this incarnation has reported RUNNING or PAUSED yet: its startup succeeded."""
    last_error: str | None = None
    """The error the task last failed with, since it last ran healthily: logged as an ERROR once."""


def _task_context(task: TaskId) -> dict[str, str]:
    """The log context of a line about `task` logged off the task's own threads."""
    return {"connector": task.connector, "task": str(task.task)}


def _log_failure_and_restart(running: RunningTask, outcome: TaskOutcome, delay_ms: int) -> None:
    """A failure is an ERROR the first time; the same failure again is one INFO line. Both say which restart
    comes next and when; the trace is in the task's status."""
    task = running.spec.id
    next_try = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + delay_ms / 1000))
    restart = f"restart {running.failures} in {delay_ms} ms, at {next_try}"
    if outcome.error != running.last_error:
        logger.error("Task %s failed: %s; %s", task, outcome.error, restart, extra=_task_context(task))
    else:
        logger.info("Task %s failed again with the same error; %s", task, restart, extra=_task_context(task))


class Worker:
    """Starts, stops and watches the connectors and tasks the herder assigns to this worker."""

    def __init__(
        self,
        config: WorkerConfig,
        runner: TaskRunner,
        status: StatusStore,
        worker_id: str,
        on_reconfiguration_request: Callable[[str], None] = lambda name: None,
    ) -> None:
        self.config = config
        self.runner = runner
        self.status = status
        self.worker_id = worker_id
        self.providers = ConfigProviders.from_worker_props(config.props)
        self._reconfigure = on_reconfiguration_request
        self.generation = 0
        """The worker group's generation this worker's statuses are written for (0 when standalone)."""
        self._connectors: dict[str, Connector] = {}
        self._tasks: dict[TaskId, RunningTask] = {}
        self._connector_states: dict[str, State] = {}
        self._task_states: dict[TaskId, State] = {}
        self._connector_versions: dict[str, str | None] = {}
        self._task_versions: dict[TaskId, str | None] = {}
        self.startups = StartupCounts()
        self._lock = threading.RLock()
        self._closed = threading.Event()
        self._monitor = threading.Thread(target=self._watch_tasks, name="conveyor-task-monitor", daemon=True)
        self._monitor.start()

    # Connectors.

    def start_connector(self, name: str, config: Mapping[str, str], target: TargetState) -> bool:
        """Create and start the connector unless it is STOPPED; False (and FAILED) if that fails."""
        with self._lock:
            self.stop_connector(name)
            if target is TargetState.STOPPED:
                self._connector_versions[name] = _connector_version(config)
                self._put_connector_status(name, State.STOPPED)
                return True
            self.startups.attempted("connector")
            try:
                resolved = self.providers.transform(config)
                refuse_unsafe_log_urls(self.config.client_override_policy, resolved)
                connector = new_connector(resolved)
                self._connector_versions[name] = _plugin_version(connector)
                connector.initialize(WorkerConnectorContext(self, name))
                connector.start(resolved)
            except Exception as exc:
                logger.error("Failed to start connector %s", name, exc_info=exc)
                self.startups.failed("connector")
                self._put_connector_status(name, State.FAILED, _trace(exc))
                return False
            self.startups.succeeded("connector")
            self._connectors[name] = connector
            self._put_connector_status(name, State.PAUSED if target is TargetState.PAUSED else State.RUNNING)
            return True

    def connector_task_configs(self, name: str, config: Mapping[str, str]) -> list[dict[str, str]]:
        """The connector's task configs for `tasks.max`, each with `task.class` as Kafka Connect adds it.

        A value the connector copied from a resolved config variable is given back as the variable
        (Kafka's reverse transform), so that task configs are stored without secrets.
        """
        with self._lock:
            connector = self._connectors.get(name)
        if connector is None:
            return []
        count = TaskCount.parse(self.providers.transform(config))
        max_tasks = count.tasks_max
        configs = [
            self.providers.reverse_transform(task_config, config)
            for task_config in connector.task_configs(max_tasks)
        ]
        if len(configs) > max_tasks and count.enforce:
            raise ConnectError(
                f"Connector {name} generated {len(configs)} task configs, more than tasks.max ({max_tasks})"
            )
        task_class = task_class_name(connector.task_class())
        return [{**task_config, "task.class": task_class} for task_config in configs]

    def is_running(self, name: str) -> bool:
        with self._lock:
            return name in self._connectors

    def stop_connector(self, name: str) -> None:
        with self._lock:
            connector = self._connectors.pop(name, None)
            self._connector_states.pop(name, None)
            self._connector_versions.pop(name, None)
        if connector is not None:
            try:
                connector.stop()
            except Exception as exc:
                logger.error("Connector %s failed to stop cleanly", name, exc_info=exc)

    def set_connector_target(self, name: str, target: TargetState) -> None:
        with self._lock:
            if name in self._connectors:
                self._put_connector_status(
                    name, State.PAUSED if target is TargetState.PAUSED else State.RUNNING
                )
            for task in [t for t in self._tasks.values() if t.spec.id.connector == name]:
                task.target = target
                self.runner.set_target(task.spec.id, target)

    def fail_connector(self, name: str, error: Exception) -> None:
        self._put_connector_status(name, State.FAILED, _trace(error))

    def on_reconfiguration_request(self, name: str) -> None:
        self._reconfigure(name)

    # Tasks.

    def start_task(
        self,
        task: TaskId,
        connector_config: Mapping[str, str],
        task_config: Mapping[str, str],
        target: TargetState,
        *,
        task_config_generation: int | None = None,
    ) -> None:
        raw_configs = (dict(connector_config), dict(task_config))
        version = _task_version(task_config)
        with self._lock:
            self._task_versions[task] = version
        spec = self._resolved_spec(task, raw_configs, task_config_generation)
        if spec is None:
            return
        with self._lock:
            if task in self._tasks:
                raise RuntimeError(f"Task {task} is already running on this worker")
            self._tasks[task] = RunningTask(spec, target, raw_configs, task_config_generation)
            self._put_task_status(task, State.UNASSIGNED)
            try:
                self._launch(spec, target)
            except Exception as exc:
                self._fail_launch(task, exc)

    def _fail_launch(self, task: TaskId, error: Exception) -> None:
        """A task that could not be placed is FAILED with the reason, not left UNASSIGNED (as Kafka's
        `Worker.startTask` does with any error before the task runs)."""
        logger.error("Failed to start task %s", task, exc_info=error)
        self.startups.failed("task")
        self._tasks.pop(task, None)
        self._put_task_status(task, State.FAILED, _trace(error))

    def _resolved_spec(
        self,
        task: TaskId,
        raw_configs: tuple[dict[str, str], dict[str, str]],
        task_config_generation: int | None = None,
    ) -> TaskSpec | None:
        """A new incarnation's spec, its config variables resolved now; None (and FAILED) if that fails."""
        connector_config, task_config = raw_configs
        self.startups.attempted("task")
        try:
            resolved = self.providers.transform(connector_config)
            resolved_task = self.providers.transform(task_config)
            refuse_unsafe_log_urls(self.config.client_override_policy, resolved, resolved_task)
            return TaskSpec(
                task,
                TaskKind(connector_type(load_plugin_class(resolved["connector.class"]))),
                resolved,
                resolved_task,
                self.config,
                task_config_generation,
            )
        except Exception as exc:
            logger.error("Failed to start task %s", task, exc_info=exc)
            self.startups.failed("task")
            self._put_task_status(task, State.FAILED, _trace(exc))
            return None

    def _launch(self, spec: TaskSpec, target: TargetState) -> None:
        self.runner.start(spec, TaskEvents(self._on_task_exit, self._on_task_report, self._on_task_unplaced))
        if target is not TargetState.STARTED:
            self.runner.set_target(spec.id, target)

    def stop_task(self, task: TaskId) -> None:
        with self._lock:
            running = self._tasks.pop(task, None)
            self._task_states.pop(task, None)
            self._task_versions.pop(task, None)
        if running is None:
            return
        if running.restart_timer is not None:
            running.restart_timer.cancel()
        timeout = self.config.graceful_shutdown_timeout_ms / 1000
        if not self.runner.stop(task, timeout):
            logger.warning("Graceful stop of task %s failed; its Spark job was cancelled", task)

    def stop_tasks(self, tasks: list[TaskId]) -> None:
        """Stop several tasks at once: ask them all first, then wait."""
        threads = [threading.Thread(target=self.stop_task, args=(task,)) for task in tasks]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def tasks_of(self, name: str) -> list[TaskId]:
        with self._lock:
            return sorted((t for t in self._tasks if t.connector == name), key=lambda t: t.task)

    def task_metrics(self, task: TaskId) -> dict[str, Any]:
        return self.runner.metrics(task)

    def task_state(self, task: TaskId) -> State | None:
        with self._lock:
            running = self._tasks.get(task)
            return running.state if running else None

    def _on_task_exit(self, spec: TaskSpec, outcome: TaskOutcome) -> None:
        with self._lock:
            running = self._tasks.get(spec.id)
            current = running is not None and running.spec.attempt == spec.attempt
            if not outcome.failed:
                if current:
                    self._tasks.pop(spec.id, None)
                return
            if not current or running is None or not self.config.task_restart_enabled:
                logger.error("Task %s failed: %s", spec.id, outcome.error, extra=_task_context(spec.id))
            if not current or running is None:
                return
            if not running.reported:
                self.startups.failed("task")
            running.state = State.FAILED
            self._put_task_status(spec.id, State.FAILED, outcome.trace or outcome.error)
            if not self.config.task_restart_enabled:
                return
            if time.monotonic() - running.started_at > HEALTHY_RUN_RESETS_BACKOFF_S:
                running.failures = 0
                running.last_error = None
            delay_ms = min(
                self.config.task_restart_initial_ms * 2**running.failures, self.config.task_restart_max_ms
            )
            running.failures += 1
            _log_failure_and_restart(running, outcome, delay_ms)
            running.last_error = outcome.error
            timer = threading.Timer(delay_ms / 1000, self._restart_failed, args=(spec.id, spec.attempt))
            timer.daemon = True
            running.restart_timer = timer
            timer.start()

    def _restart_failed(self, task: TaskId, failed_attempt: str) -> None:
        with self._lock:
            running = self._tasks.get(task)
            if running is None or running.spec.attempt != failed_attempt or self._closed.is_set():
                return
            spec = self._resolved_spec(task, running.raw_configs, running.task_config_generation)
            if spec is None:
                return
            running.spec = spec
            running.started_at = time.monotonic()
            running.restart_timer = None
            running.reported = False
            running.state = State.RESTARTING
            self._put_task_status(task, State.RESTARTING)
            self._launch(running.spec, running.target)

    def restart_task(self, task: TaskId) -> None:
        """Stop the task if it runs and start a new incarnation with the same configs."""
        with self._lock:
            running = self._tasks.get(task)
        if running is None:
            return
        self.stop_task(task)
        restarted = self._resolved_spec(task, running.raw_configs, running.task_config_generation)
        if restarted is None:
            return
        with self._lock:
            self._task_versions[task] = _task_version(running.raw_configs[1])
            self._tasks[task] = RunningTask(
                restarted,
                running.target,
                running.raw_configs,
                running.task_config_generation,
                State.RESTARTING,
            )
            self._put_task_status(task, State.RESTARTING)
            self._launch(restarted, running.target)

    def _on_task_unplaced(self, spec: TaskSpec, reason: str) -> None:
        """Say why a task does not run: in the log, and in its status's trace."""
        logger.warning("Task %s is not running: %s", spec.id, reason)
        with self._lock:
            running = self._tasks.get(spec.id)
            if running is not None and running.spec.attempt == spec.attempt:
                running.state = State.UNASSIGNED
                running.unplaced = True
                self._put_task_status(spec.id, State.UNASSIGNED, reason)

    def metrics(self) -> dict[str, int]:
        """The worker's own gauges: its tasks, and how many of them wait for room to run."""
        with self._lock:
            tasks = list(self._tasks.values())
        return {
            "task-count": len(tasks),
            "unplaced-task-count": sum(1 for running in tasks if running.unplaced),
        }

    def _on_task_report(self, spec: TaskSpec, reported: str) -> None:
        """Publish RUNNING or PAUSED as soon as the task reports it."""
        with self._lock:
            running = self._tasks.get(spec.id)
            if running is not None and running.spec.attempt == spec.attempt:
                self._take_reported_state(running, reported)

    def _watch_tasks(self) -> None:
        """Publish again the state each task last reported, should a report have been missed or its
        status write have failed."""
        while not self._closed.wait(MONITOR_INTERVAL_S):
            with self._lock:
                tasks = list(self._tasks.values())
            for running in tasks:
                try:
                    reported = self.runner.metrics(running.spec.id).get("state")
                    with self._lock:
                        if self._tasks.get(running.spec.id) is running:
                            self._take_reported_state(running, reported)
                except Exception:
                    logger.exception("Could not publish the state of task %s; will retry", running.spec.id)

    def _take_reported_state(self, running: RunningTask, reported: object) -> None:
        if reported not in ("RUNNING", "PAUSED") or running.state is State.FAILED:
            return
        if not running.reported:
            running.reported = True
            self.startups.succeeded("task")
        state = State(reported)
        running.unplaced = False
        if state is not running.state:
            self._put_task_status(running.spec.id, state)
            running.state = state

    # Status.

    def _put_connector_status(self, name: str, state: State, trace: str | None = None) -> None:
        with self._lock:
            self._connector_states[name] = state
            version = self._connector_versions.get(name)
        self.status.put_connector(
            name, Status(state.value, self.worker_id, trace, self.generation, version), safe=True
        )

    def _put_task_status(self, task: TaskId, state: State, trace: str | None = None) -> None:
        with self._lock:
            self._task_states[task] = state
            version = self._task_versions.get(task)
        self.status.put_task(
            task.connector,
            task.task,
            Status(state.value, self.worker_id, trace, self.generation, version),
            safe=True,
        )

    # Metrics.

    def connect_metrics(self) -> WorkerMetrics:
        """Kafka Connect's metric groups for the connectors and tasks this worker runs, as of now."""
        with self._lock:
            connector_states = dict(self._connector_states)
            task_states = dict(self._task_states)
            running_connectors = dict(self._connectors)
            task_count = len(self._tasks)
        connectors = [
            _connector_metrics(name, state, running_connectors.get(name))
            for name, state in sorted(connector_states.items())
        ]
        tasks = [
            TaskMetricValues(
                task.connector, task.task, state.value.lower(), _published(self.runner.metrics(task))
            )
            for task, state in sorted(task_states.items(), key=lambda item: (item[0].connector, item[0].task))
        ]
        states_by_connector: dict[str, list[State]] = {name: [] for name in connector_states}
        for task, state in task_states.items():
            states_by_connector.setdefault(task.connector, []).append(state)
        worker = {
            "connector-count": float(len(running_connectors)),
            "task-count": float(task_count),
            **self.startups.metrics(),
        }
        return WorkerMetrics(
            worker,
            {name: connector_task_counts(states) for name, states in sorted(states_by_connector.items())},
            connectors,
            tasks,
        )

    def close(self) -> None:
        """Stop every task and connector; tasks commit what they may on the way out."""
        self._closed.set()
        with self._lock:
            tasks = list(self._tasks)
            connectors = list(self._connectors)
        self.stop_tasks(tasks)
        for name in connectors:
            self.stop_connector(name)
        self.runner.close()
        self.providers.close()
