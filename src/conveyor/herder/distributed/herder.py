"""The distributed herder: one worker of a group that shares connectors and tasks, as Kafka's
`DistributedHerder`.

It is made of four parts, each in a module of its own, as Kafka's runtime splits its herder from the
config store, the group member and the rebalance listener:
- `tick.Tick`: one round of the work thread, where everything that changes the herder's state happens,
  and the config changes read from the config topic that it applies;
- `rebalance_listener.WorkerRebalanceListener`: the group member's callbacks: what this worker tells the
  group, the assignment it makes as leader, what it does when given work, revoked or out of the group;
- `work_tracker.WorkTracker`: what this worker owns and runs, and every start and stop of it (fenced
  task starts included);
- `leader_writes.LeaderWrites`: the writes only the leader makes: connector and task configs, task
  count records after zombie fencing, restart requests, session keys.

The herder holds what the parts share (the assignment in force, its generation and protocol, the config
this worker acts on) and serves the `Herder` interface: REST requests run on the work thread through
its request queue, reads are answered from this worker's view of the shared topics, and a follower
asked for a leader-only write answers `NotLeaderError` with the leader's URL, which the REST layer
forwards.
"""

from __future__ import annotations

import dataclasses
import logging
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from conveyor.errors import ConnectError, NotFoundError, NotReadyError
from conveyor.herder.api import ConfigWrite, HerderHealth
from conveyor.herder.base import BaseHerder
from conveyor.herder.distributed.assignment import ConnectorsAndTasks
from conveyor.herder.distributed.connector_lanes import ConnectorLanes
from conveyor.herder.distributed.errors import (
    NO_LEADER,
    NotAssignedError,
    NotLeaderError,
    RebalanceNeededError,
    RequestTargetError,
)
from conveyor.herder.distributed.internal_client import InternalClient
from conveyor.herder.distributed.leader_writes import LeaderWrites
from conveyor.herder.distributed.peer_views import PeerViews, WorkerView
from conveyor.herder.distributed.protocol import ConnectAssignment, ConnectProtocolCompatibility
from conveyor.herder.distributed.rebalance_listener import WorkerRebalanceListener
from conveyor.herder.distributed.request_queue import RequestQueue
from conveyor.herder.distributed.tick import Tick
from conveyor.herder.distributed.work_tracker import WorkTracker
from conveyor.herder.entities import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    TaskInfo,
    TaskState,
)
from conveyor.herder.transactional_offsets import write_offsets_in_transaction
from conveyor.log import Log
from conveyor.log.group_member import GroupMember
from conveyor.metrics.worker_metrics import RebalanceMetrics, WorkerMetrics
from conveyor.metrics.worker_usage import WorkerUsage
from conveyor.runtime.connector_calls import StuckCallError, SupersededError
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskRunner
from conveyor.runtime.task_spec import TaskId
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage.cluster_config_state import ClusterConfigState
from conveyor.storage.config_records import SessionKey
from conveyor.storage.errors import StorageError
from conveyor.storage.offset_store import OffsetUpdates

logger = logging.getLogger(__name__)

T = TypeVar("T")

PROTOCOL_TYPE = "connect"
RECONFIGURE_RETRY_S = 0.25
"""Kafka's `RECONFIGURE_CONNECTOR_TASKS_BACKOFF_MS`."""
REQUEST_TIMEOUT_S = 90.0
CONFIG_REFRESH_S = 0.25
"""How often a background thread reads new config records (Kafka's config log is read continuously)."""
NOT_ASSIGNED = "Cannot restart {} since it is not assigned to this member"
SHUTTING_DOWN = "Worker is shutting down"


class DistributedHerder(BaseHerder):
    """A worker of the group `group.id`; start with `start()`, which returns once the work thread runs."""

    def __init__(
        self,
        config: WorkerConfig,
        log: Log,
        runner: TaskRunner,
        worker_id: str,
        url: str,
        inter_worker_tls: ssl.SSLContext | None = None,
    ) -> None:
        """`inter_worker_tls` is how this worker reaches the others' HTTPS listeners (their CA, and its
        own certificate for mutual TLS); None trusts the system's CAs."""
        leader_id = config.leader_transactional_id if config.transactional_leader_enabled else None
        super().__init__(config, log, runner, worker_id, leader_id)
        self.url = url
        self.mode = ConnectProtocolCompatibility.from_config(config.connect_protocol.value)
        self._requests = RequestQueue()
        self._stopping = threading.Event()
        self._serving = threading.Event()
        """Set once a tick after the herder became ready reaches its requests: by then the leader has
        written the session key, so a worker reported healthy serves a request without that wait (Kafka's
        health check is a request through the tick thread)."""
        self._thread: threading.Thread | None = None
        self._refresher: threading.Thread | None = None
        self._forwarding = ConnectorLanes()
        """Where a follower sends task configs to the leader: in order per connector, connectors side by
        side, so that a burst of them reaches the leader together and is applied in one rebalance."""
        self.internal = InternalClient(
            self.session_key, config.signature_algorithm, verify=inter_worker_tls or True
        )
        self.peers = PeerViews(self.internal.worker_view)
        self._listener = WorkerRebalanceListener(self)
        self._member = GroupMember(
            log.group_coordinator(),
            config.group_id,
            PROTOCOL_TYPE,
            self._listener.join_protocols,
            self._listener.assign,
            self._listener.on_assigned,
            on_revoked=self._listener.on_revoked,
            on_lost=self._listener.on_lost,
            on_left=self._listener.on_left,
            session_timeout_ms=config.session_timeout_ms,
            rebalance_timeout_ms=config.rebalance_timeout_ms,
            heartbeat_interval_ms=config.heartbeat_interval_ms,
        )
        # State of the work thread; other threads read it only as a whole value.
        self._assignment: ConnectAssignment | None = None
        self._protocol = self.mode
        self._generation = -1
        self._config_state = ClusterConfigState()
        """The config this worker acts on: refreshed when it catches up or when changes arrive, not at
        every record read, so that an assignment's config offset can be compared with it (Kafka's
        `configState`)."""
        self._rebalance_resolved = True
        self._known_connectors: frozenset[str] = frozenset()
        self._leader = LeaderWrites(self)
        self._work = WorkTracker(self)
        self._tick = Tick(self)
        self.configs.add_listener(self._tick.changes)
        self.failure: BaseException | None = None
        """The error that ended the work thread, if one did: the worker then stops and exits."""
        self._failed = threading.Event()

    # Lifecycle.

    def start(self) -> None:
        """Start the work thread; `ready()` turns true once the first assignment has been handled."""
        self._thread = threading.Thread(target=self._run, name="DistributedHerder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._member.wakeup()
        if self._thread is not None:
            self._thread.join(self.config.graceful_shutdown_timeout_ms / 1000 + 30)
        if self._refresher is not None:
            self._refresher.join()

    def wait_failed(self, timeout_s: float) -> bool:
        """Wait up to `timeout_s` for the work thread to fail; True if it has."""
        return self._failed.wait(timeout_s)

    def _run(self) -> None:
        try:
            self._start_services()
            while not self._stopping.is_set():
                self._tick.run()
        except BaseException as error:
            logger.exception("Uncaught exception in herder work thread, exiting")
            self.failure = error
            self._failed.set()
        self._halt()

    def _start_services(self) -> None:
        with self._stages.stage("reading to the end of internal topics"):
            self.configs.start()
            self._config_state = self.configs.snapshot()
            self.offsets.start()
            self.statuses.start()
        self._start_topic_tracking()
        self._refresher = threading.Thread(target=self._refresh_configs, name="config-refresher", daemon=True)
        self._refresher.start()

    def _refresh_configs(self) -> None:
        while not self._stopping.wait(CONFIG_REFRESH_S):
            try:
                self.configs.read_to_end(self.config.worker_sync_timeout_ms / 1000)
            except Exception as error:
                logger.debug("Reading the config topic failed; retrying: %s", error)

    def _halt(self) -> None:
        """Stop the work, leave the group, fail the requests left and close the stores; each step is
        taken even if one before it failed (after a failure, the group must still see this worker go)."""
        self._ready.clear()
        self._serving.clear()
        steps: list[Callable[[], object]] = [
            lambda: self._work.release(self._work.running),
            self._member.close,
            lambda: self._requests.fail_all(ConnectError(SHUTTING_DOWN)),
            lambda: self._work.pool.shutdown(wait=True),
            self.peers.close,
            self._stop_topic_tracking,
            self.worker.close,
            self.configs.stop,
            self.offsets.stop,
            self.statuses.stop,
        ]
        for step in steps:
            try:
                step()
            except Exception:
                logger.exception("A step of stopping the herder failed; going on with the next")

    def wakeup(self) -> None:
        self._member.wakeup()

    def health(self) -> HerderHealth:
        """Starting until the tick thread first reaches its requests, as Kafka's health check waits for it;
        failed once the work thread has died."""
        if self.failure is not None:
            return HerderHealth(
                False, failure=f"The herder's work thread failed and the worker is exiting: {self.failure!r}"
            )
        health = super().health()
        if health.ready and not self._serving.is_set():
            return HerderHealth(False, health.stuck, health.details)
        return health

    def _require_ready(self) -> None:
        """As the base herder's, but a worker whose herder failed says it is exiting, not starting."""
        if self.failure is not None:
            raise NotReadyError(f"{SHUTTING_DOWN}: its herder failed ({self.failure!r})")
        super()._require_ready()

    @property
    def known_connectors(self) -> frozenset[str]:
        """The connectors of the config this worker last acted on: one missing from it is new, and needs
        a rebalance to be assigned (Kafka compares with the herder's own `configState`)."""
        return self._known_connectors

    # Task reconfiguration.

    def _on_reconfiguration_request(self, name: str) -> None:
        self._requests.add(lambda: self._reconfigure_with_retry(name))
        self.wakeup()

    def _reconfigure_with_retry(self, name: str) -> None:
        """Ask the connector for task configs on its lane; the work thread then writes them if they
        changed, retrying after a failure (Kafka's `reconfigureConnectorTasksWithRetry`, though Kafka asks
        the connector on its work thread)."""

        def retry(error: BaseException) -> None:
            logger.error("Failed to reconfigure the tasks of connector %s; retrying", name, exc_info=error)
            self._requests.add(
                lambda: self._reconfigure_with_retry(name),
                RECONFIGURE_RETRY_S,
                f"reconfiguring the tasks of the connector {name}",
            )
            self.wakeup()

        def generate() -> None:
            try:
                generated = self._generate_task_configs(name)
            except (SupersededError, StuckCallError):
                return
            except Exception as error:
                retry(error)
                return
            if generated is not None:
                config, task_configs = generated
                self._requests.add(
                    lambda: self._write_task_configs(name, config, task_configs, retry),
                    description=f"writing the task configs of the connector {name}",
                )
                self.wakeup()

        self._work.lanes.submit(name, generate)

    def _generate_task_configs(self, name: str) -> tuple[dict[str, str], list[dict[str, str]]] | None:
        """The connector's config and the task configs it generates now, if it runs and is STARTED (a
        stuck connector is FAILED by the worker and raises `StuckCallError`)."""
        if not self.worker.is_running(name):
            return None
        snapshot = self.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None or TargetState(snapshot.target_state(name)) is not TargetState.STARTED:
            return None
        return config, self.worker.connector_task_configs(name, config)

    def _write_task_configs(
        self,
        name: str,
        config: dict[str, str],
        task_configs: list[dict[str, str]],
        on_error: Callable[[BaseException], None],
    ) -> None:
        """If they changed and were made from the connector's current config, the leader writes the task
        configs, and a follower sends them to the leader on another thread (so that it stays in the group
        meanwhile)."""
        snapshot = self.configs.snapshot()
        if snapshot.connector_config(name) != config or task_configs == snapshot.task_configs(name):
            return
        if self.is_leader():
            try:
                self._leader.write(lambda: self.configs.put_task_configs(name, task_configs))
            except Exception as error:
                on_error(error)
            return
        leader_url = self.leader_url()
        if leader_url is None:
            on_error(ConnectError(NO_LEADER))
            return

        def forward() -> None:
            try:
                self.internal.put_task_configs(leader_url, name, task_configs)
            except Exception as error:
                on_error(error)

        self._forwarding.submit(name, forward)

    # Leadership.

    def is_leader(self) -> bool:
        assignment = self._assignment
        return assignment is not None and assignment.leader == self._member.member_id

    def leader_url(self) -> str | None:
        assignment = self._assignment
        return None if assignment is None else assignment.leader_url

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def running(self) -> ConnectorsAndTasks:
        """The connectors and tasks this worker runs under its current assignment."""
        return self._work.running

    def _worker_group_id(self) -> str | None:
        return self.config.group_id

    def connect_metrics(self) -> WorkerMetrics:
        """The worker's groups, with `connect-worker-rebalance-metrics` from this worker's rebalances."""
        history = self._listener.history
        durations = history.durations_ms
        assignment = self._assignment
        since = None if history.last_completed is None else (time.monotonic() - history.last_completed) * 1000
        rebalance = RebalanceMetrics(
            connect_protocol=self._protocol.subprotocol,
            leader_name=assignment.leader_url if assignment is not None else "",
            epoch=max(self._generation, 0),
            completed_rebalances_total=history.count,
            rebalancing=history.in_progress or not self._rebalance_resolved,
            rebalance_max_time_ms=max(durations) if durations else None,
            rebalance_avg_time_ms=sum(durations) / len(durations) if durations else None,
            time_since_last_rebalance_ms=since,
        )
        return dataclasses.replace(self.worker.connect_metrics(), rebalance=rebalance)

    # The group's view: every task's metrics and every worker's usage, from any worker.

    def local_view(self) -> WorkerView:
        """What this worker tells its peers: its tasks' metrics, its usage, and (the leader) the members."""
        members = self._listener.member_urls if self.is_leader() else ()
        return WorkerView(self.local_task_metrics(), self.usage(), members)

    def _peer_url(self, worker_id: str) -> str:
        """A worker id is the `host:port` of its REST API, reached with this worker's scheme."""
        scheme = self.url.partition("://")[0] or "http"
        return f"{scheme}://{worker_id}/"

    def cluster_status(self, name: str) -> ConnectorStateInfo:
        status = self.connector_status(name)
        tasks = self._with_peer_metrics(name, status.tasks)
        return ConnectorStateInfo(status.name, status.connector, tasks, status.type)

    def cluster_task_status(self, name: str, task: int) -> TaskState:
        return self._with_peer_metrics(name, [self.task_status(name, task)])[0]

    def _with_peer_metrics(self, name: str, tasks: list[TaskState]) -> list[TaskState]:
        """`tasks` with the metrics of those a peer runs, asked of it (unknown if it does not answer)."""
        peers = {task.worker_id for task in tasks if task.worker_id and task.worker_id != self.worker_id}
        answers = self.peers.views(self._peer_url(worker_id) for worker_id in peers)
        gathered: list[TaskState] = []
        for task in tasks:
            if task.worker_id not in peers:
                gathered.append(task)
                continue
            answer = answers[self._peer_url(task.worker_id)]
            if answer.view is None:
                unknown = f"Worker {task.worker_id}, which runs this task, did not answer: {answer.error}"
                gathered.append(dataclasses.replace(task, metrics={}, metrics_unavailable=unknown))
            else:
                metrics = answer.view.tasks.get(TaskId(name, task.id), {})
                gathered.append(dataclasses.replace(task, metrics=metrics))
        return gathered

    def workers_usage(self) -> list[WorkerUsage]:
        """This worker's usage, then every other member's (the members as the leader last saw them)."""
        own = {self.url.rstrip("/"), self._peer_url(self.worker_id).rstrip("/")}
        members = set(self._listener.member_urls)
        leader = self.leader_url()
        if not self.is_leader() and leader is not None and leader.rstrip("/") not in own:
            leader_view = self.peers.view(leader).view
            members |= set(leader_view.members) if leader_view is not None else {leader}
        peers = sorted(url for url in members if url.rstrip("/") not in own)
        answers = self.peers.views(peers)
        usages = [self.usage()]
        for url in peers:
            view = answers[url].view
            if view is None:
                worker_id = url.partition("://")[2].rstrip("/")
                usages.append(WorkerUsage.unknown(worker_id, answers[url].error or "no answer"))
            elif view.worker_id != self.worker_id:
                usages.append(view.usage)
        return usages

    @property
    def verification_algorithms(self) -> tuple[str, ...]:
        return self.config.verification_algorithms

    def session_key(self) -> SessionKey | None:
        return self.configs.snapshot().session_key

    def signing_required(self) -> bool:
        """Internal requests are verified only once the group speaks the sessioned protocol (KIP-507)."""
        return self._protocol is ConnectProtocolCompatibility.SESSIONED

    # Requests from other threads.

    def _submit(self, action: Callable[[], T], description: str = "handling a request") -> T:
        """Run `action` on the work thread and wait for its result (REST calls are served this way); a
        request that times out says what the work thread is doing (Kafka's KAFKA-15563 message)."""
        self._require_ready()
        request, first = self._requests.add(action, description=description)
        if first:
            self.wakeup()
        try:
            result: T = request.future.result(REQUEST_TIMEOUT_S)
        except FutureTimeout as error:
            raise self._timed_out() from error
        return result

    def _check_rebalance_needed(self) -> None:
        """Reads and restarts wait for an expected rebalance (a 409); writes of connector configs,
        deletions and stops do not, so a burst of them is applied in one rebalance (as Kafka's
        `checkRebalanceNeeded` callers are)."""
        with self._tick.changes.lock:
            if self._tick.changes.needs_rebalance:
                raise RebalanceNeededError()

    # The REST operations that change things: leader-only writes.

    def _write_connector_config(self, write: ConfigWrite) -> tuple[bool, ConnectorInfo]:
        return self._submit(
            lambda: self._leader.put_connector_config(write),
            f"writing the config of the connector {write.name}",
        )

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        config = self._patched_config(name, patch)
        return self.put_connector_config(name, config, allow_replace=True)[1]

    def delete_connector(self, name: str) -> None:
        self._submit(lambda: self._leader.delete_connector(name), f"deleting the connector {name}")

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        """The internal `POST /connectors/{c}/tasks`: a follower's connector generated these configs."""
        self._submit(
            lambda: self._leader.put_task_configs(name, configs),
            f"writing the task configs of the connector {name}",
        )

    def fence_zombies(self, name: str) -> None:
        """The internal `PUT /connectors/{c}/fence` (KIP-618)."""
        self._submit(
            lambda: self._leader.fence_zombies(name), f"fencing the zombie tasks of the connector {name}"
        )

    def _set_target(self, name: str, target: TargetState) -> None:
        def write() -> None:
            self._require(name)
            if target is TargetState.STOPPED:
                self._leader.require("stop connectors")
                self._leader.write(lambda: self.configs.put_task_configs(name, []))
            self.configs.put_target_state(name, target.value)

        self._submit(write, f"changing the target state of the connector {name}")

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool) -> ConnectorStateInfo:
        if not include_tasks and not only_failed:
            restarted = self._submit(
                lambda: self._restart_connector_instance(name), f"restarting the connector {name}"
            )
            try:
                started = restarted.result(REQUEST_TIMEOUT_S)
            except FutureTimeout as error:
                raise ConnectError(f"Request timed out: connector {name} is still restarting") from error
            if not started:
                raise ConnectError("Failed to start connector: " + name)
            return self.connector_status(name)

        def request() -> ConnectorStateInfo:
            self._check_rebalance_needed()
            self._leader.require("restart connectors and their tasks")
            self._require(name)
            planned = self._planned_restart(name, include_tasks, only_failed)
            self._leader.write(lambda: self.configs.put_restart_request(name, include_tasks, only_failed))
            return planned

        return self._submit(request, f"restarting the connector {name}")

    def _restart_connector_instance(self, name: str) -> Future[bool]:
        """On the work thread: check the connector runs here, and queue its restart on its lane."""
        self._check_rebalance_needed()
        self._require(name)
        if name not in self._work.running.connectors:
            raise self._elsewhere("connector", name)
        return self._work.restart_on_lane(name)

    def _elsewhere(self, kind: str, work: str | TaskId) -> RequestTargetError:
        """Where a restart of work this worker does not run goes: the leader knows its owner (Kafka's
        `NotAssignedException`); a follower sends it to the leader (`NotLeaderException`)."""
        message = NOT_ASSIGNED.format(kind)
        if self.is_leader():
            return NotAssignedError(message, self._listener.owners.get(work))
        return NotLeaderError(message, self.leader_url())

    def _planned_restart(self, name: str, include_tasks: bool, only_failed: bool) -> ConnectorStateInfo:
        status = self.connector_status(name)
        return self._restarting(status, *self._restart_targets(status, include_tasks, only_failed))

    def restart_task(self, name: str, task: int) -> None:
        def restart() -> None:
            self._check_rebalance_needed()
            self._require(name)
            task_id = TaskId(name, task)
            if self._work.needs_fencing_first(task_id):
                try:
                    self.configs.read_to_end(self.config.worker_sync_timeout_ms / 1000)
                except StorageError as error:
                    raise ConnectError(
                        f"Failed to read to end of config topic before restarting: {error}"
                    ) from error
                self._check_rebalance_needed()
            if not self._has_task(name, task):
                raise NotFoundError(f"Unknown task: {task_id}")
            if task_id in self._work.running.tasks:
                if self.worker.task_state(task_id) is None:
                    self._work.start_task_fenced_if_needed(task_id)
                else:
                    self.worker.restart_task(task_id)
            else:
                raise self._elsewhere("task", task_id)

        self._submit(restart, f"restarting a task of the connector {name}")

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        def alter() -> str:
            self._check_rebalance_needed()
            self._leader.require("alter connector offsets")
            self._leader.fence_before_modifying_offsets(name)
            return self._alter_offsets(name, offsets)

        return self._submit(alter, f"altering the offsets of the connector {name}")

    def reset_connector_offsets(self, name: str) -> str:
        def reset() -> str:
            self._check_rebalance_needed()
            self._leader.require("reset connector offsets")
            self._leader.fence_before_modifying_offsets(name)
            return self._reset_offsets(name)

        return self._submit(reset, f"resetting the offsets of the connector {name}")

    def _put_source_offsets(self, name: str, config: Mapping[str, str], offsets: OffsetUpdates) -> None:
        """Under exactly-once support, in one transaction as the connector's task 0."""
        if not self.config.exactly_once_source_enabled:
            super()._put_source_offsets(name, config, offsets)
            return
        with self._source_offsets(config) as store:
            write_offsets_in_transaction(store, self.config, config, name, offsets)

    # Reads: answered from this worker's view of the shared topics.

    def connectors(self) -> list[str]:
        self._check_rebalance_needed()
        return super().connectors()

    def connector_info(self, name: str) -> ConnectorInfo:
        self._check_rebalance_needed()
        return super().connector_info(name)

    def task_configs(self, name: str) -> list[TaskInfo]:
        self._check_rebalance_needed()
        return super().task_configs(name)

    def connector_status(self, name: str) -> ConnectorStateInfo:
        self.statuses.read_to_end()
        return super().connector_status(name)

    def task_status(self, name: str, task: int) -> TaskState:
        self.statuses.read_to_end()
        return super().task_status(name, task)
