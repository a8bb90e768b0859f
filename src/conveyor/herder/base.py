"""What both herders share, as Kafka's `AbstractHerder`: reads of configs and statuses, validation,
offsets (KIP-875), plugins. Each herder adds how it changes things: at once (standalone) or through
the group's leader and work thread (distributed)."""

from __future__ import annotations

import functools
import logging
import threading
from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from conveyor.api import SinkConnector, SourceConnector
from conveyor.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConnectError,
    ForbiddenError,
    NotFoundError,
    NotReadyError,
)
from conveyor.herder.api import ConfigWrite, Herder, HerderHealth
from conveyor.herder.entities import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorState,
    ConnectorStateInfo,
    PluginInfo,
    TaskInfo,
    TaskRef,
    TaskState,
)
from conveyor.herder.sink_offsets import parse_sink_connector_offsets
from conveyor.herder.stages import HerderStages
from conveyor.herder.topic_tracking import TopicTracker
from conveyor.herder.validation import (
    connector_class,
    connector_definition,
    plugin_config_keys,
    validate_connector_config,
)
from conveyor.log import (
    Admin,
    Log,
    NonEmptyGroupError,
    TopicPartition,
    UnknownTopicOrPartitionError,
    open_log,
)
from conveyor.metrics.status import State
from conveyor.metrics.worker_metrics import WorkerMetrics
from conveyor.metrics.worker_usage import ProcessTreeUsage, WorkerUsage
from conveyor.plugins import PluginKind, list_plugins
from conveyor.runtime.connector_calls import ConnectorThread, StuckCallError, instant
from conveyor.runtime.control import PRIVATE_METRICS, TargetState
from conveyor.runtime.task_logs import source_cluster_url
from conveyor.runtime.task_runner import TaskRunner
from conveyor.runtime.task_spec import TaskId
from conveyor.runtime.worker import ConnectorType, Worker, connector_type
from conveyor.runtime.worker_stores import worker_offset_store, worker_status_store
from conveyor.settings.connector_config import SinkTopics, SourceTransactionSettings
from conveyor.settings.names import consumer_group, task_transactional_id
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import ConfigStore, ConnectorOffsetStore, Status
from conveyor.storage.offset_store import OffsetUpdates

T = TypeVar("T")

OFFSETS_ALTERED = "The offsets for this connector have been altered successfully"
OFFSETS_RESET = "The offsets for this connector have been reset successfully"
NOT_READY = (
    "Worker is still starting up: it has not read its internal topics to the end and started its "
    "connectors yet. Retry once GET /health answers 200."
)
NOT_STOPPED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
    "the specified connector by issuing a 'PUT' request to the '/connectors/{}/stop' endpoint"
)

logger = logging.getLogger(__name__)


class BaseHerder(Herder):
    """The stores, the worker, and every operation that reads them or needs no coordination."""

    def __init__(
        self,
        config: WorkerConfig,
        log: Log,
        runner: TaskRunner,
        worker_id: str,
        configs_transactional_id: str | None = None,
    ) -> None:
        """`configs_transactional_id` is the id the config topic's writer takes, if it writes in
        transactions (the distributed leader's under KIP-618)."""
        self.config = config
        self.log = log
        self._worker_id = worker_id
        create = config.internal_topics_creation
        self.configs = ConfigStore(
            log,
            config.configs_topic,
            transactional_id=configs_transactional_id,
            replication_factor=config.configs_replication_factor,
            create_missing=create,
        )
        self.offsets = worker_offset_store(log, config, create_missing=create)
        self.statuses = worker_status_store(log, config, create_missing=create)
        self.worker = Worker(config, runner, self.statuses, worker_id, self._on_reconfiguration_request)
        self._ready = threading.Event()
        self._topic_tracker = (
            TopicTracker(self.statuses, self.worker) if config.topic_tracking_enable else None
        )
        self._stages = HerderStages()
        """What the herder is doing, for `GET /health` (KIP-1017)."""
        self._usage = ProcessTreeUsage()

    def start(self) -> None:
        """Read the internal topics and start this worker's connectors and tasks."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop every connector and task this worker runs, and the stores."""
        raise NotImplementedError

    def _start_topic_tracking(self) -> None:
        """Once the status store is read: record the topics tasks report (KIP-558)."""
        if self._topic_tracker is not None:
            self._topic_tracker.start()

    def _stop_topic_tracking(self) -> None:
        if self._topic_tracker is not None:
            self._topic_tracker.stop()

    def _on_reconfiguration_request(self, name: str) -> None:
        """A connector asked for its tasks to be reconfigured (`ConnectorContext`)."""
        raise NotImplementedError

    @property
    def worker_id(self) -> str:
        return self._worker_id

    def set_worker_id(self, worker_id: str) -> None:
        """The id is the REST address, known only once the server has bound its port."""
        self._worker_id = worker_id
        self.worker.worker_id = worker_id

    @functools.cached_property
    def kafka_cluster_id(self) -> str:
        """The log's cluster id, as Kafka Connect names its Kafka cluster's in ``GET /``."""
        return self.log.admin().cluster_id()

    def ready(self) -> bool:
        return self._ready.is_set()

    def health(self) -> HerderHealth:
        """Starting until the internal topics are read and the task runner can run tasks."""
        stuck = self._stages.stuck()
        details = stuck.summarize() if stuck is not None else self._stages.summary()
        waiting = self.worker.runner.waiting_for()
        if waiting is not None and stuck is None:
            return HerderHealth(False, False, " ".join(filter(None, [details, waiting])))
        return HerderHealth(self.ready(), stuck is not None, details)

    def connect_metrics(self) -> WorkerMetrics:
        return self.worker.connect_metrics()

    def usage(self) -> WorkerUsage:
        """This worker's memory, CPU, Spark slots and Spark UI."""
        memory, cpu, processes = self._usage.read()
        runner = self.worker.runner
        return WorkerUsage(self.worker_id, memory, cpu, processes, runner.slot_usage(), runner.ui_url())

    def workers_usage(self) -> list[WorkerUsage]:
        return [self.usage()]

    def local_task_metrics(self) -> dict[TaskId, dict[str, Any]]:
        """The metrics of every task this worker runs, as its status shows them."""
        return {task: _public(self.worker.task_metrics(task)) for task in self.worker.task_ids()}

    def operations_in_progress(self) -> list[str]:
        """What the herder is doing now, oldest first: named when a shutdown abandons it."""
        return [stage.summarize() for stage in self._stages.running()]

    # Helpers.

    def _fence_previous_generation(self, name: str, previous_count: int | None, task_count: int) -> bool:
        """KIP-618: fence the transactional producers of the connector's previous task generation (tasks
        0..previous_count-1), so that none of its zombies can commit once `task_count` new tasks start;
        True if it fenced. With no earlier generation, or one task before and after (the new task's
        producer fences the old one as it starts), there is nothing to fence (Kafka's
        `doFenceZombieSourceTasks`)."""
        if not previous_count or (previous_count == 1 and task_count == 1):
            return False
        ids = [task_transactional_id(self.config.group_id, name, task) for task in range(previous_count)]
        logger.info("Fencing %d task producers of connector %s", len(ids), name)
        with self._source_log(self.configs.snapshot().connector_config(name) or {}) as log:
            log.admin().fence_producers(ids)
        return True

    def _target(self, name: str) -> TargetState:
        return TargetState(self.configs.snapshot().target_state(name))

    def _has_task(self, name: str, task: int) -> bool:
        """Whether `task` is one of the connector's task ids, 0 to its task count less one."""
        return 0 <= task < self.configs.snapshot().task_count(name)

    def _require_ready(self) -> None:
        """A 503 until `start()` has read the internal topics and started the connectors."""
        if not self._ready.is_set():
            raise NotReadyError(NOT_READY)

    def _timed_out(self) -> ConnectError:
        """The error of a request that waited too long on the herder (see `HerderStages.timed_out`)."""
        return ConnectError(self._stages.timed_out())

    def _require(self, name: str) -> dict[str, str]:
        self._require_ready()
        config = self.configs.snapshot().connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        return config

    # Connectors.

    def connectors(self) -> list[str]:
        self._require_ready()
        return sorted(self.configs.snapshot().connectors())

    def connector_info(self, name: str) -> ConnectorInfo:
        config = self._require(name)
        tasks = [TaskRef(name, i) for i in range(self.configs.snapshot().task_count(name))]
        return ConnectorInfo(name, config, tasks, self._type_of(config))

    def _type_of(self, config: Mapping[str, str]) -> ConnectorType:
        try:
            return connector_type(connector_class(config))
        except BadRequestError:
            return ConnectorType.UNKNOWN

    def connector_config(self, name: str) -> dict[str, str]:
        return self._require(name)

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        allow_replace: bool,
        initial_state: str | None = None,
        initial_offsets: list[ConnectorOffset] | None = None,
        resume_offsets: bool = False,
    ) -> tuple[bool, ConnectorInfo]:
        named = {**config, "name": name}
        self._require_ready()
        self._raise_on_invalid(named)
        return self._write_connector_config(
            ConfigWrite(name, named, allow_replace, initial_state, initial_offsets, resume_offsets)
        )

    @abstractmethod
    def _write_connector_config(self, write: ConfigWrite) -> tuple[bool, ConnectorInfo]:
        """Write a checked connector config as this herder's mode does; returns (created, info)."""

    def _prepare_config_write(self, write: ConfigWrite) -> tuple[bool, TargetState | None]:
        """Before a connector config is written: whether the connector exists (one that may not be replaced
        raises `AlreadyExistsError`) and, for a new one, its initial target state (KIP-980), its offsets
        set up first (KIP-995)."""
        name = write.name
        if self.configs.snapshot().contains(name):
            if not write.allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            return True, None
        target = self._initial_target(write.initial_state)
        self._set_up_offsets_of_new_connector(name, write.config, write.initial_offsets, write.resume_offsets)
        return False, target

    def pause_connector(self, name: str) -> None:
        self._set_target(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._set_target(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        self._set_target(name, TargetState.STOPPED)

    @abstractmethod
    def _set_target(self, name: str, target: TargetState) -> None:
        """Write the connector's new target state and make this worker act on it, as this mode does."""

    @staticmethod
    def _initial_target(initial_state: str | None) -> TargetState:
        if initial_state is None:
            return TargetState.STARTED
        mapping = {
            "RUNNING": TargetState.STARTED,
            "PAUSED": TargetState.PAUSED,
            "STOPPED": TargetState.STOPPED,
        }
        target = mapping.get(initial_state.strip().upper())
        if target is None:
            raise BadRequestError(
                f"Invalid initial state {initial_state}: must be one of RUNNING, PAUSED, STOPPED"
            )
        return target

    def _raise_on_invalid(self, config: Mapping[str, str]) -> None:
        infos = self.validate_connector_config(config)
        if infos["error_count"] == 0:
            return
        errors = [
            f"{entry['value']['name']}: {message}"
            for entry in infos["configs"]
            if entry["value"] is not None
            for message in entry["value"]["errors"]
        ]
        raise BadRequestError(
            f"Connector configuration is invalid and contains the following {len(errors)} error(s):\n"
            + "\n".join(errors)
            + "\nYou can also find the above list of errors at the endpoint "
            "`/connector-plugins/{connectorType}/config/validate`"
        )

    def _patched_config(self, name: str, patch: Mapping[str, str | None]) -> dict[str, str]:
        """The stored config with `patch` merged in (a None value removes the key), as KIP-477 says."""
        stored = self._require(name)
        config: dict[str, str] = dict(stored)
        for key, value in patch.items():
            if value is None:
                config.pop(key, None)
            else:
                config[key] = value
        if not config.get("connector.class"):
            connector_class(config, connector_definition(connector_class(stored)))
        return config

    # Status.

    def connector_status(self, name: str) -> ConnectorStateInfo:
        config = self._require(name)
        status = self.statuses.connector(name)
        if status is None:
            raise NotFoundError(f"No status found for connector {name}")
        tasks = [self.task_status(name, i) for i in range(self.configs.snapshot().task_count(name))]
        return ConnectorStateInfo(
            name,
            ConnectorState(status.state, status.worker_id, status.trace, status.version),
            tasks,
            self._type_of(config),
        )

    def task_status(self, name: str, task: int) -> TaskState:
        self._require(name)
        if not self._has_task(name, task):
            raise NotFoundError(f"No status found for task {name}-{task}")
        status = self.statuses.task(name, task) or Status(State.UNASSIGNED.value, self._worker_id)
        metrics = self.worker.task_metrics(TaskId(name, task))
        return TaskState(
            status.state, status.worker_id, status.trace, status.version, id=task, metrics=_public(metrics)
        )

    @staticmethod
    def _restart_targets(
        status: ConnectorStateInfo, include_tasks: bool, only_failed: bool
    ) -> tuple[bool, list[int]]:
        """KIP-745: whether the connector restarts, and which of its tasks do."""
        restart_connector = not only_failed or status.connector.state == State.FAILED.value
        tasks = [
            t.id for t in status.tasks if include_tasks and (not only_failed or t.state == State.FAILED.value)
        ]
        return restart_connector, tasks

    @staticmethod
    def _restarting(
        status: ConnectorStateInfo, restart_connector: bool, restart_tasks: list[int]
    ) -> ConnectorStateInfo:
        """The status KIP-745 answers with: what restarts shown as RESTARTING."""
        tasks = [
            TaskState(
                "RESTARTING" if t.id in restart_tasks else t.state, t.worker_id, t.trace, t.version, id=t.id
            )
            for t in status.tasks
        ]
        connector = ConnectorState(
            "RESTARTING" if restart_connector else status.connector.state,
            status.connector.worker_id,
            status.connector.trace,
            status.connector.version,
        )
        return ConnectorStateInfo(status.name, connector, tasks, status.type)

    def task_configs(self, name: str) -> list[TaskInfo]:
        self._require(name)
        configs = self.configs.snapshot().task_configs(name)
        return [TaskInfo(TaskRef(name, i), config) for i, config in enumerate(configs)]

    # Offsets (KIP-875).

    def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        return self._offsets_of(name, self._require(name))

    def _offsets_of(self, name: str, config: Mapping[str, str]) -> list[ConnectorOffset]:
        """The offsets stored under ``name``: its sink group's, or its source offsets in its offsets topic."""
        if self._type_of(config) is ConnectorType.SINK:
            committed = self.log.admin().list_consumer_group_offsets(consumer_group(name))
            return [
                ConnectorOffset(
                    {"kafka_topic": tp.topic, "kafka_partition": tp.partition}, {"kafka_offset": meta.offset}
                )
                for tp, meta in sorted(committed.items())
            ]
        with self._source_offsets(config) as store:
            return [
                ConnectorOffset(dict(entry.partition), dict(entry.offset))
                for entry in store.offsets(name).values()
            ]

    @contextmanager
    def _source_offsets(self, config: Mapping[str, str]) -> Iterator[ConnectorOffsetStore]:
        """The connector's offsets, read to their end, as its tasks see them (Kafka's
        `offsetStoreFor*SourceConnector`): the worker's offsets topic, or, when the connector is
        exactly-once or names an `offsets.storage.topic`, its own topic on the cluster it produces to
        (opened for this use and stopped after it), with the worker's for what that one has not stored."""
        own_topic = SourceTransactionSettings.parse(config).offsets_topic
        if own_topic is None and self.config.exactly_once_source_enabled:
            own_topic = self.config.offsets_topic
        self.offsets.read_to_end()
        if own_topic is None:
            yield ConnectorOffsetStore(None, self.offsets)
            return
        with self._source_log(config) as log:
            if log is self.log and own_topic == self.config.offsets_topic:
                yield ConnectorOffsetStore(self.offsets, None)
                return
            store = worker_offset_store(log, self.config, own_topic)
            try:
                store.start()
                yield ConnectorOffsetStore(store, self.offsets)
            finally:
                store.stop()

    @contextmanager
    def _source_log(self, config: Mapping[str, str]) -> Iterator[Log]:
        """The log a source connector produces to: the worker's, or the other cluster its producer's
        `bootstrap.servers` names (where its own offsets topic and its task producers live)."""
        url = source_cluster_url(self.config, config)
        if url is None:
            yield self.log
            return
        with open_log(url) as log:
            yield log

    def _require_stopped(self, name: str) -> dict[str, str]:
        config = self._require(name)
        snapshot = self.configs.snapshot()
        if snapshot.target_state(name) != TargetState.STOPPED.value or snapshot.task_count(name) != 0:
            raise BadRequestError(NOT_STOPPED.format(name))
        return config

    def _alter_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        config = self._require_stopped(name)
        if not offsets:
            raise BadRequestError("Partitions / offsets need to be provided for an alter offsets request")
        self._write_offsets(name, config, offsets)
        return OFFSETS_ALTERED

    def _reset_offsets(self, name: str) -> str:
        self._reset_offsets_of(name, self._require_stopped(name))
        return OFFSETS_RESET

    def _reset_offsets_of(
        self, name: str, config: Mapping[str, str], current: list[ConnectorOffset] | None = None
    ) -> None:
        """Reset the connector's offsets; a source's ``current`` ones, when the caller has read them."""
        if self._type_of(config) is ConnectorType.SINK:
            admin = self.log.admin()
            # Every partition the sink reads, not only those its group committed: a sink that keeps its
            # own positions (a Spark query's checkpoint, the JDBC sink's offsets table) may be ahead of
            # a group that has not committed yet, and a reset must move those positions too.
            reset: dict[TopicPartition, int | None] = dict.fromkeys(self._subscribed_partitions(config))
            group = consumer_group(name)
            if group in admin.list_consumer_groups():
                reset.update(dict.fromkeys(admin.list_consumer_group_offsets(group)))
                _delete_idle_group(admin, name, group)
            self._sink_connector(config).alter_offsets(config, reset)
        else:
            if current is None:
                current = self._offsets_of(name, config)
            self._write_offsets(name, config, [ConnectorOffset(o.partition, None) for o in current])

    def _set_up_offsets_of_new_connector(
        self,
        name: str,
        config: Mapping[str, str],
        initial_offsets: list[ConnectorOffset] | None,
        resume_offsets: bool,
    ) -> None:
        """Before a new connector's config is written: the offsets a deleted namesake left behind are reset
        (as DELETE /offsets does) unless the request asked to resume from them, then `initial_offsets`
        (KIP-995) are written, as an alter would."""
        left = [] if resume_offsets else self._offsets_of(name, config)
        if left:
            logger.info("Connector %s starts afresh: resetting the offsets a deleted namesake left", name)
            self._reset_offsets_of(name, config, left)
        if initial_offsets is not None:
            self._write_offsets(name, config, initial_offsets)

    def _subscribed_partitions(self, config: Mapping[str, str]) -> list[TopicPartition]:
        """The partitions of the existing topics a sink connector's `topics` or `topics.regex` names."""
        subscription = SinkTopics.parse(config)
        admin = self.log.admin()
        existing = admin.list_topics()
        topics = [topic for topic in existing if subscription.includes(topic)]
        described = admin.describe_topics(topics) if topics else {}
        return [partition for topic in described.values() for partition in topic.topic_partitions()]

    def _write_offsets(self, name: str, config: Mapping[str, str], offsets: list[ConnectorOffset]) -> None:
        klass = connector_class(config)
        if issubclass(klass, SinkConnector):
            parsed = parse_sink_connector_offsets(offsets)
            updates = {partition: offset for partition, offset in parsed.items() if offset is not None}
            if len(updates) < len(parsed):
                raise BadRequestError("Resetting single sink partitions is not supported yet; use DELETE")
            try:
                self.log.admin().list_offsets(updates)
            except UnknownTopicOrPartitionError as error:
                raise BadRequestError(str(error)) from error
            self._sink_connector(config).alter_offsets(config, dict(updates))
            self.log.admin().alter_consumer_group_offsets(consumer_group(name), updates)
            return
        connector = klass()
        assert isinstance(connector, SourceConnector)
        connector.alter_offsets(config, [(entry.partition, entry.offset) for entry in offsets])
        self._put_source_offsets(name, config, [(entry.partition, entry.offset) for entry in offsets])

    def _put_source_offsets(self, name: str, config: Mapping[str, str], offsets: OffsetUpdates) -> None:
        """Write a source connector's offsets to its offsets topic."""
        with self._source_offsets(config) as store:
            store.write(name, offsets)

    @staticmethod
    def _sink_connector(config: Mapping[str, str]) -> SinkConnector:
        connector = connector_class(config)()
        assert isinstance(connector, SinkConnector)
        return connector

    def connector_active_topics(self, name: str) -> list[str]:
        """The topics the connector's tasks have used, on any worker (KIP-558), from the status topic."""
        self._require_topic_tracking()
        self._require(name)
        self.statuses.read_to_end()
        return [status.topic for status in self.statuses.topic_statuses(name)]

    def reset_connector_active_topics(self, name: str) -> None:
        self._require_topic_tracking()
        if not self.config.topic_tracking_allow_reset:
            raise ForbiddenError("Topic tracking reset is disabled.")
        self._require(name)
        self.statuses.read_to_end()
        self.statuses.delete_topics(name)

    def _require_topic_tracking(self) -> None:
        if not self.config.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled.")

    # Plugins and validation.

    def validate_connector_config(self, config: Mapping[str, str]) -> dict[str, Any]:
        return self._within_deadline(
            config.get("connector.class", ""),
            lambda: validate_connector_config(
                config,
                self.config.exactly_once_source_enabled,
                self._worker_group_id(),
                self.config.client_override_policy,
            ),
        )

    def _within_deadline(self, plugin: str, function: Callable[[], T]) -> T:
        """Plugin code a request waits on (`validate()`, `config()`), run on a thread of its own: a call
        that overruns `connector.call.timeout.ms` answers a 500 naming the class and the blocked call
        instead of holding the request."""
        thread = ConnectorThread(plugin)
        timeout_s = self.config.connector_call_timeout_ms / 1000
        try:
            return thread.call("validation", function, timeout_s)
        except StuckCallError as stuck:
            blocked = thread.blocked_call() or f"the code of {plugin}"
            raise ConnectError(
                f"Request timed out: connector class {plugin} is blocked in {blocked}, called at "
                f"{instant(stuck.call.began)}, for longer than connector.call.timeout.ms "
                f"({self.config.connector_call_timeout_ms} ms)"
            ) from stuck
        finally:
            thread.close()

    def _worker_group_id(self) -> str | None:
        """The group a sink connector's consumer group must not collide with (none when standalone)."""
        return None

    def plugins(self, connectors_only: bool) -> list[PluginInfo]:
        kinds = [PluginKind.SOURCE, PluginKind.SINK] if connectors_only else list(PluginKind)
        found = [desc for kind in kinds for desc in list_plugins(kind)]
        return [PluginInfo(desc.class_name, desc.type.value, desc.version) for desc in found]

    def plugin_config(self, plugin: str, version: str | None = None) -> list[dict[str, Any]]:
        return self._within_deadline(plugin, lambda: plugin_config_keys(plugin, version))


def _delete_idle_group(admin: Admin, name: str, group: str) -> None:
    """Delete a sink connector's consumer group before its own positions are reset, so that a group some
    other consumer still uses fails the reset before anything has moved."""
    try:
        admin.delete_consumer_group(group)
    except NonEmptyGroupError as error:
        raise ConnectError(
            f"Cannot reset the offsets of connector {name}: its consumer group {group} has active members "
            "(a task of it that has not stopped yet, or another client or Connect cluster consuming with "
            "that group). Stop them and try again; a connector created under a deleted one's name can "
            "instead carry on from the group's offsets with ?resume_offsets=true"
        ) from error


def _public(metrics: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if k not in PRIVATE_METRICS}
