"""The worker: runs connectors in its own process and their tasks on Spark, and keeps their status.

The worker is the Spark driver. Connector instances (which only plan tasks) live here; every task runs
on Spark through a `TaskRunner`. The worker publishes RUNNING and PAUSED as its tasks report them,
UNASSIGNED with the reason when a task has no room to run, records FAILED with the error's trace, and
restarts a failed task with exponential backoff when `task.restart.enable` is on (Kafka Connect waits
for a manual restart).
"""

from __future__ import annotations

import contextlib
import enum
import itertools
import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from conveyor.api import Connector, ConnectorContext, SinkConnector, SourceConnector, Task
from conveyor.errors import ConfigError, ConnectError
from conveyor.metrics.plugin_labels import WORKER_CONVERTER_KEYS, chain_plugin_labels, task_plugin_labels
from conveyor.metrics.status import State
from conveyor.metrics.worker_metrics import (
    ConnectorMetrics,
    StartupCounts,
    TaskMetricValues,
    WorkerMetrics,
    connector_task_counts,
)
from conveyor.plugins import listed_name, load_plugin_class
from conveyor.plugins.task_classes import load_task_class, task_class_name
from conveyor.runtime.connector_calls import (
    ConnectorThread,
    StuckCallError,
    SupersededError,
    call_once,
    instant,
)
from conveyor.runtime.control import CALL, CALL_BEGAN, PRIVATE_METRICS, TargetState
from conveyor.runtime.status_writes import StatusKey, StatusWrites
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskOwner, TaskSpec
from conveyor.settings.client_overrides import refuse_unsafe_log_urls
from conveyor.settings.config_providers import ConfigProviders
from conveyor.settings.connector_config import TaskCount
from conveyor.settings.connector_config.definitions import CONNECTOR_VERSION_CONFIG
from conveyor.settings.converters import converter_choice
from conveyor.settings.worker_config import WorkerConfig
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
    klass = load_plugin_class(config["connector.class"], version=config.get(CONNECTOR_VERSION_CONFIG) or None)
    if not (isinstance(klass, type) and issubclass(klass, Connector)):
        raise ConfigError(f"{config['connector.class']} is not a Connector class")
    return klass()


def _published(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if key not in PRIVATE_METRICS}


def _connector_metrics(
    name: str, state: State, connector: Connector | None, version: str | None
) -> ConnectorMetrics:
    if connector is None:
        return ConnectorMetrics(name, state.value.lower())
    klass = type(connector)
    return ConnectorMetrics(
        name,
        state.value.lower(),
        listed_name(klass),
        connector_type(connector).value,
        version or "",
        _connector_plugin_metrics(connector),
    )


def _connector_plugin_metrics(connector: Connector) -> list[dict[str, Any]]:
    """The samples of the metrics a running connector registered through its context (KIP-877)."""
    try:
        return connector.context.plugin_metric_samples()
    except ConnectError:
        return []


def _plugin_version(plugin: Connector | Task) -> str | None:
    """The version a status records for a connector or task (Kafka's `WorkerConnector.version`,
    `WorkerTask.taskVersion`); None when the plugin will not say."""
    try:
        return plugin.version()
    except Exception:
        logger.debug("%s did not give its version", type(plugin).__name__, exc_info=True)
        return None


def _connector_version(config: Mapping[str, str], name: str, timeout_s: float) -> str | None:
    """The version of the connector `config` names; None when it cannot be made in time (as for Kafka's
    status of a connector whose class does not load)."""
    try:
        return call_once(name, "version()", lambda: _plugin_version(new_connector(config)), timeout_s)
    except Exception:
        return None


def _task_version(task_config: Mapping[str, str], name: str, timeout_s: float) -> str | None:
    """The version of the task `task.class` names, from an instance made here (as Kafka's worker makes
    the task) on a thread of its own; None when it cannot be made in time."""

    def version() -> str | None:
        task = load_task_class(task_config["task.class"])()
        return _plugin_version(task) if isinstance(task, Task) else None

    try:
        return call_once(name, "version()", version, timeout_s)
    except Exception:
        return None


def _abandon(thread: ConnectorThread, connector: Connector | None) -> None:
    """Leave a connector's thread behind: once the call it is in returns, it stops the instance (if one
    was made) and ends. Nothing else of the worker waits on it."""
    if connector is not None:
        thread.submit("stop()", connector.stop).add_done_callback(_log_late_stop)
    thread.close()


def _log_late_stop(done: Future[None]) -> None:
    if done.exception() is not None:
        logger.warning("An abandoned connector failed to stop", exc_info=done.exception())


def _failure_trace(error: BaseException, thread: ConnectorThread) -> str:
    """A FAILED status's trace: a stuck call's message and where its thread waits, else the error's."""
    if isinstance(error, StuckCallError):
        return f"{error}\nThe connector's thread is at:\n{thread.stack()}"
    return _trace(error)


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
    blocked: str | None = None
    """What its RUNNING status says of a call into the task that has not returned for too long."""
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
        self._status_writes = StatusWrites(status)
        self.worker_id = worker_id
        self.providers = ConfigProviders.from_worker_props(config.props)
        self._reconfigure = on_reconfiguration_request
        self.generation = 0
        """The worker group's generation this worker's statuses are written for (0 when standalone)."""
        self._connectors: dict[str, Connector] = {}
        self._threads: dict[str, ConnectorThread] = {}
        """The thread each connector's code runs on, from the start of its incarnation."""
        self._epochs: dict[str, int] = {}
        """Each connector's incarnation: a call into an older one no longer counts (see `supersede`)."""
        self._epoch_counter = itertools.count(1)
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

    @property
    def _call_timeout_s(self) -> float:
        return self.config.connector_call_timeout_ms / 1000

    def supersede(self, name: str) -> int:
        """Begin a new incarnation of the connector and return its epoch: whoever still waits on a call
        into an older one stops waiting at once (that call's thread stops what it started, if it ever
        returns). Herders call it before a stop, delete or restart that must not queue behind a stuck call."""
        with self._lock:
            epoch = next(self._epoch_counter)
            self._epochs[name] = epoch
            return epoch

    def _is_current(self, name: str, epoch: int) -> bool:
        with self._lock:
            return self._epochs.get(name) == epoch

    def start_connector(self, name: str, config: Mapping[str, str], target: TargetState) -> bool:
        """Create and start the connector unless it is STOPPED; False (and FAILED) if that fails or
        overruns `connector.call.timeout.ms`, False alone if a newer start or a stop superseded it.

        Connector code runs on the connector's own thread, never under the worker's lock."""
        epoch = self._stop_connector(name)
        if target is TargetState.STOPPED:
            version = _connector_version(config, name, self._call_timeout_s)
            with self._lock:
                if self._epochs.get(name) != epoch:
                    return False
                self._connector_versions[name] = version
            self._put_connector_status(name, State.STOPPED)
            return True
        self.startups.attempted("connector")
        thread = ConnectorThread(name)
        with self._lock:
            if self._epochs.get(name) != epoch:
                thread.close()
                return False
            self._threads[name] = thread
        try:
            connector = self._start_instance(name, epoch, thread, config)
        except SupersededError:
            self._forget_thread(name, thread)
            return False
        except Exception as exc:
            self._forget_thread(name, thread)
            if self._is_current(name, epoch):
                logger.error("Failed to start connector %s", name, exc_info=exc)
                self.startups.failed("connector")
                self._put_connector_status(name, State.FAILED, _failure_trace(exc, thread))
            return False
        with self._lock:
            current = self._epochs.get(name) == epoch
            if current:
                self._connectors[name] = connector
        if not current:
            _abandon(thread, connector)
            return False
        self.startups.succeeded("connector")
        self._put_connector_status(name, State.PAUSED if target is TargetState.PAUSED else State.RUNNING)
        return True

    def _forget_thread(self, name: str, thread: ConnectorThread) -> None:
        """End a start's thread once its calls are done, and stop counting it as the connector's."""
        thread.close()
        with self._lock:
            if self._threads.get(name) is thread:
                del self._threads[name]

    def _start_instance(
        self, name: str, epoch: int, thread: ConnectorThread, config: Mapping[str, str]
    ) -> Connector:
        """Make, initialize and start the connector on its thread, each call within the deadline; a call
        that overruns or is superseded leaves the thread to stop the instance should the call return."""
        timeout = self._call_timeout_s

        def superseded() -> bool:
            return not self._is_current(name, epoch)

        resolved = self.providers.transform(config)
        refuse_unsafe_log_urls(self.config.client_override_policy, resolved)
        connector = thread.call("its constructor", lambda: new_connector(resolved), timeout, superseded)
        version = thread.call("version()", lambda: _plugin_version(connector), timeout, superseded)
        with self._lock:
            if self._epochs.get(name) == epoch:
                self._connector_versions[name] = version
        context = WorkerConnectorContext(self, name)
        try:
            thread.call("initialize()", lambda: connector.initialize(context), timeout, superseded)
            thread.call("start()", lambda: connector.start(resolved), timeout, superseded)
        except (SupersededError, StuckCallError):
            _abandon(thread, connector)
            raise
        return connector

    def connector_task_configs(self, name: str, config: Mapping[str, str]) -> list[dict[str, str]]:
        """The connector's task configs for `tasks.max`, each with `task.class` as Kafka Connect adds it.

        A value the connector copied from a resolved config variable is given back as the variable
        (Kafka's reverse transform), so that task configs are stored without secrets. The connector is
        asked on its own thread; if it overruns `connector.call.timeout.ms` it is FAILED as stuck and the
        `StuckCallError` raised; `SupersededError` if a stop or a newer start came first.
        """
        with self._lock:
            connector = self._connectors.get(name)
            thread = self._threads.get(name)
            epoch = self._epochs.get(name, 0)
        if connector is None or thread is None:
            return []
        count = TaskCount.parse(self.providers.transform(config))
        max_tasks = count.tasks_max

        def generate() -> tuple[list[dict[str, str]], type[Task]]:
            return connector.task_configs(max_tasks), connector.task_class()

        try:
            generated, task_type = thread.call(
                "task_configs()", generate, self._call_timeout_s, lambda: not self._is_current(name, epoch)
            )
        except StuckCallError as stuck:
            self._fail_stuck(name, epoch, stuck)
            raise
        configs = [self.providers.reverse_transform(task_config, config) for task_config in generated]
        if len(configs) > max_tasks and count.enforce:
            raise ConnectError(
                f"Connector {name} generated {len(configs)} task configs, more than tasks.max ({max_tasks})"
            )
        task_class = task_class_name(task_type)
        return [{**task_config, "task.class": task_class} for task_config in configs]

    def _fail_stuck(self, name: str, epoch: int, stuck: StuckCallError) -> None:
        """A running connector overran a call: forget it, leave its thread to stop it should the call ever
        return, and record it FAILED, saying which call and since when."""
        with self._lock:
            if self._epochs.get(name) != epoch:
                return
            connector = self._connectors.pop(name, None)
            thread = self._threads.pop(name, None)
        if thread is None:
            return
        _abandon(thread, connector)
        logger.error("%s", stuck)
        self._put_connector_status(name, State.FAILED, _failure_trace(stuck, thread))

    def is_running(self, name: str) -> bool:
        with self._lock:
            return name in self._connectors

    def stop_connector(self, name: str) -> None:
        """Stop the connector, waiting at most `task.shutdown.graceful.timeout.ms` for its `stop()`."""
        self._stop_connector(name)

    def _stop_connector(self, name: str) -> int:
        """Stop the current incarnation and return the epoch of the next (see `supersede`)."""
        epoch = self.supersede(name)
        self._status_writes.forget(StatusKey(name))
        with self._lock:
            connector = self._connectors.pop(name, None)
            thread = self._threads.pop(name, None) if connector is not None else None
            self._connector_states.pop(name, None)
            self._connector_versions.pop(name, None)
        if connector is None or thread is None:
            return epoch
        try:
            thread.call("stop()", connector.stop, self.config.graceful_shutdown_timeout_ms / 1000)
        except StuckCallError as stuck:
            logger.warning("%s; its thread is left behind", stuck)
        except Exception as exc:
            logger.error("Connector %s failed to stop cleanly", name, exc_info=exc)
        finally:
            with contextlib.suppress(ConnectError):
                connector.context.close_plugin_metrics()
        thread.close()
        return epoch

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
        version = _task_version(task_config, str(task), self._call_timeout_s)
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
                None if task_config_generation is None else TaskOwner(self.worker_id, self.generation),
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

    def keep_status(self, connector: str, task: int | None, status: Status) -> None:
        """A status the herder could not write (the status topic out of reach): written again with the
        worker's own that failed, once the topic answers."""
        self._status_writes.keep(StatusKey(connector, task), status)

    def stop_task(self, task: TaskId) -> None:
        with self._lock:
            running = self._tasks.pop(task, None)
            self._task_states.pop(task, None)
            self._task_versions.pop(task, None)
        self._status_writes.forget(StatusKey(task.connector, task.task))
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

    def task_ids(self) -> list[TaskId]:
        """Every task this worker runs, by connector and task number."""
        with self._lock:
            return sorted(self._tasks, key=lambda t: (t.connector, t.task))

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
        version = _task_version(running.raw_configs[1], str(task), self._call_timeout_s)
        with self._lock:
            self._task_versions[task] = version
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
        status write have failed, and write again the statuses whose writes failed."""
        while not self._closed.wait(MONITOR_INTERVAL_S):
            self._status_writes.retry()
            with self._lock:
                tasks = list(self._tasks.values())
            for running in tasks:
                try:
                    metrics = self.runner.metrics(running.spec.id)
                    with self._lock:
                        if self._tasks.get(running.spec.id) is running:
                            self._take_reported_state(running, metrics.get("state"))
                            self._note_blocked_call(running, metrics)
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
            running.blocked = None

    def _note_blocked_call(self, running: RunningTask, metrics: Mapping[str, Any]) -> None:
        """Say in a RUNNING task's status that it has been inside one call (`poll()`, `put()`) for longer
        than `connector.call.timeout.ms`, and stop saying so once the call returns. The task runs on
        (Kafka's would too); stopping it cancels or abandons the call after the graceful timeout."""
        what, began = metrics.get(CALL), metrics.get(CALL_BEGAN)
        blocked = None
        if isinstance(what, str) and isinstance(began, float) and time.time() - began > self._call_timeout_s:
            blocked = f"Task {running.spec.id} has been blocked in {what} since {instant(began)}"
        if blocked == running.blocked or running.state is not State.RUNNING:
            return
        running.blocked = blocked
        self._put_task_status(running.spec.id, State.RUNNING, blocked)

    # Status.

    def _put_connector_status(self, name: str, state: State, trace: str | None = None) -> None:
        with self._lock:
            self._connector_states[name] = state
            version = self._connector_versions.get(name)
        self._status_writes.put(
            StatusKey(name), Status(state.value, self.worker_id, trace, self.generation, version)
        )

    def _put_task_status(self, task: TaskId, state: State, trace: str | None = None) -> None:
        with self._lock:
            self._task_states[task] = state
            version = self._task_versions.get(task)
        self._status_writes.put(
            StatusKey(task.connector, task.task),
            Status(state.value, self.worker_id, trace, self.generation, version),
        )

    # Metrics.

    def connect_metrics(self) -> WorkerMetrics:
        """Kafka Connect's metric groups for the connectors and tasks this worker runs, as of now."""
        with self._lock:
            connector_states = dict(self._connector_states)
            task_states = dict(self._task_states)
            running_connectors = dict(self._connectors)
            versions = dict(self._connector_versions)
            task_count = len(self._tasks)
            task_configs = {task: running.raw_configs for task, running in self._tasks.items()}
        connectors = [
            _connector_metrics(name, state, running_connectors.get(name), versions.get(name))
            for name, state in sorted(connector_states.items())
        ]
        tasks = [
            TaskMetricValues(
                task.connector,
                task.task,
                state.value.lower(),
                {**self._task_plugin_labels(task_configs.get(task)), **_published(self.runner.metrics(task))},
                chain_plugin_labels(task_configs[task][0]) if task in task_configs else (),
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

    def _task_plugin_labels(self, configs: tuple[dict[str, str], dict[str, str]] | None) -> dict[str, str]:
        if configs is None:
            return {}
        connector_config, task_config = configs
        used = {}
        for key in WORKER_CONVERTER_KEYS:
            class_name, version, _ = converter_choice(connector_config, self.config, key)
            used[key] = (class_name, version or "")
        return task_plugin_labels(task_config, used)

    def close(self) -> None:
        """Stop every task and connector; tasks commit what they may on the way out."""
        self._closed.set()
        with self._lock:
            tasks = list(self._tasks)
            connectors = list(self._connectors)
        self.stop_tasks(tasks)
        stopping = [threading.Thread(target=self.stop_connector, args=(name,)) for name in connectors]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()
        self.runner.close()
        self.providers.close()
