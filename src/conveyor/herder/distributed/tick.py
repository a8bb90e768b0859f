"""The distributed herder's tick: one round of its work thread, as Kafka's `DistributedHerder.tick`.

Everything that changes the herder's state happens in a tick, in this order: catch up with the config
topic if it could not before; take part in the group's rebalance (join, and for the leader, assign);
once an assignment is settled, start what it gives this worker; run the REST requests that are due;
apply config changes read from the config topic; then wait in the group member's `poll` until the next
request is due, a change arrives or a rebalance begins.

It owns the config changes collected for the work thread (`ConfigChanges`, Kafka's config update
listener), whether this worker could catch up with the config topic and the backoffs it takes when it
cannot, and the follow-up rebalance a cooperative leader scheduled.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from conveyor.herder.distributed.protocol import ConnectProtocolCompatibility
from conveyor.metrics.status import State
from conveyor.runtime.control import TargetState
from conveyor.storage.config_listener import ConfigUpdateListener
from conveyor.storage.config_records import RestartRequest, SessionKey
from conveyor.storage.errors import StorageError

if TYPE_CHECKING:
    from conveyor.herder.distributed.herder import DistributedHerder

logger = logging.getLogger(__name__)

LONGEST_POLL_S = 1.0
BACKOFF_RETRIES = 5
"""Under cooperative rebalancing, the backoffs a worker that cannot catch up with the config topic takes
before it stops its work (Kafka's `BACKOFF_RETRIES`)."""


class ConfigChanges(ConfigUpdateListener):
    """Collects what the config topic says for the herder thread, and wakes it (Kafka's listener)."""

    def __init__(self, herder: DistributedHerder) -> None:
        self._herder = herder
        self.lock = threading.Lock()
        self.needs_rebalance = False
        self.connector_updates: set[str] = set()
        self.target_changes: set[str] = set()
        self.restarts: dict[str, RestartRequest] = {}
        self.task_config_updates: set[str] = set()

    def on_connector_config_update(self, connector: str) -> None:
        with self.lock:
            if connector not in self._herder.known_connectors:
                self.needs_rebalance = True
            self.connector_updates.add(connector)
        self._herder.wakeup()

    def on_connector_config_remove(self, connector: str) -> None:
        with self.lock:
            self.needs_rebalance = True
            self.connector_updates.add(connector)
        self._herder.wakeup()

    def on_task_configs_committed(self, connector: str, tasks: list[int]) -> None:
        with self.lock:
            self.needs_rebalance = True
            self.task_config_updates.add(connector)
        self._herder.wakeup()

    def on_target_state_change(self, connector: str) -> None:
        with self.lock:
            self.target_changes.add(connector)
        self._herder.wakeup()

    def on_restart_request(self, request: RestartRequest) -> None:
        with self.lock:
            self.restarts[request.connector] = request
        self._herder.wakeup()

    def on_session_key_update(self, session_key: SessionKey) -> None:
        self._herder.wakeup()


class Tick:
    """One worker's tick, run over and over by its herder's work thread."""

    def __init__(self, herder: DistributedHerder) -> None:
        self._herder = herder
        self.changes = ConfigChanges(herder)
        self._can_read_configs = True
        self._backoff_retries = BACKOFF_RETRIES
        self._scheduled_rebalance: float | None = None

    def run(self) -> None:
        """One round of the work thread (Kafka's `tick`), in the order the module's docstring gives."""
        if not self._can_read_configs and not self._read_config_to_end():
            return
        with self._herder._stages.stage("ensuring membership in the cluster"):
            active = self._herder._member.ensure_active()
        if not active or not self._handle_rebalance_completed():
            return
        if self._herder.is_leader():
            self._herder._leader.rotate_session_key()
        self._herder._serving.set()
        while (request := self._herder._requests.pop_due(time.monotonic())) is not None:
            with self._herder._stages.stage(request.description):
                self._run_request(request.action, request.future)
        if self._take_config_changes():
            return
        if self._scheduled_rebalance_due():
            return
        wait = self._herder._requests.wait_s(time.monotonic(), LONGEST_POLL_S)
        if self._scheduled_rebalance is not None:
            wait = min(wait, max(0.0, self._scheduled_rebalance - time.monotonic()))
        if self._herder._member.poll(wait):
            self._handle_rebalance_completed()

    def _scheduled_rebalance_due(self) -> bool:
        """The cooperative leader asked for a follow-up rebalance after a delay (for work held back
        for a departed worker); True once that time has come and a rejoin is requested."""
        if self._scheduled_rebalance is None or self._scheduled_rebalance > time.monotonic():
            return False
        self._scheduled_rebalance = None
        self._herder._member.request_rejoin()
        return True

    @staticmethod
    def _run_request(action: Callable[[], Any], future: Future[Any]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(action())
        except BaseException as error:
            future.set_exception(error)

    def _take_config_changes(self) -> bool:
        """Apply what the config listener collected; True if a rebalance must come first. Under eager
        rebalancing the rebalance restarts everything, so the rest waits; under cooperative rebalancing
        connector updates and target changes are applied first, as Kafka's herder does."""
        rebalance = False
        with self.changes.lock:
            if self.changes.needs_rebalance:
                self.changes.needs_rebalance = False
                self._herder._config_state = self._herder.configs.snapshot()
                reconfigured, self.changes.task_config_updates = self.changes.task_config_updates, set()
                stopped = self._herder._work.stop_reconfigured_tasks(reconfigured)
                rebalance = stopped or not self._assignment_covers_config()
                if rebalance and self._herder._protocol is ConnectProtocolCompatibility.EAGER:
                    self.changes.connector_updates.clear()
                    self.changes.target_changes.clear()
                    self._herder._member.request_rejoin()
                    return True
            if self.changes.connector_updates or self.changes.target_changes or self.changes.restarts:
                self._herder._config_state = self._herder.configs.snapshot()
                self._herder._known_connectors = frozenset(self._herder._config_state.connectors())
            updates, self.changes.connector_updates = self.changes.connector_updates, set()
            targets, self.changes.target_changes = self.changes.target_changes, set()
            restarts, self.changes.restarts = self.changes.restarts, {}
        for name in sorted(updates):
            self._process_connector_update(name)
        for name in sorted(targets):
            self._process_target_change(name)
        for request in restarts.values():
            self._process_restart_request(request)
        if rebalance:
            self._herder._member.request_rejoin()
        return rebalance

    def _assignment_covers_config(self) -> bool:
        """Whether the assignment in force was made from this worker's config or a later one: then the
        changes just read are in it already, and rejoining would only stop work under eager rebalancing.
        Called only once the assignment is in force, so it is neither missing nor failed."""
        assignment = self._herder._assignment
        return assignment is not None and assignment.config_offset >= self._herder._config_state.offset

    def _read_config_to_end(self) -> bool:
        """Catch up with the config topic within `worker.sync.timeout.ms`; on failure leave the group and
        back off (Kafka's `readConfigToEnd`)."""
        try:
            self._herder.configs.read_to_end(self._herder.config.worker_sync_timeout_ms / 1000)
            self._herder._config_state = self._herder.configs.snapshot()
            self._can_read_configs = True
            self._backoff_retries = BACKOFF_RETRIES
            return True
        except StorageError as error:
            logger.warning("Didn't reach end of config log quickly enough (%s); leaving the group", error)
            self._herder._member.leave()
            self._can_read_configs = False
            self._unsync_backoff()
            return False

    def _unsync_backoff(self) -> None:
        """Under eager rebalancing this worker runs nothing once it has rejoined, and waits
        `worker.unsync.backoff.ms`. Under cooperative rebalancing it still runs its work, which the leader
        holds for it up to `scheduled.rebalance.max.delay.ms`: it waits growing fractions of that delay,
        and once `BACKOFF_RETRIES` waits have passed stops its work, before the group may hand it to
        others (Kafka's `backoff`)."""
        if self._herder._protocol is ConnectProtocolCompatibility.EAGER:
            self._herder._stopping.wait(self._herder.config.worker_unsync_backoff_ms / 1000)
            return
        if self._backoff_retries > 0:
            delay_ms = self._herder.config.scheduled_rebalance_max_delay_ms / 10 / self._backoff_retries
            self._backoff_retries -= 1
            logger.info("Backing off %.0f ms before reading the config topic again", delay_ms)
            self._herder._stopping.wait(delay_ms / 1000)
            return
        logger.warning(
            "Stopping connectors %s and tasks %s: after %d retries this worker has not caught up with the "
            "config topic",
            sorted(self._herder._work.running.connectors),
            [str(t) for t in self._herder._work.running.tasks],
            BACKOFF_RETRIES,
        )
        self._herder._work.give_up_all()
        self._herder._assignment = None
        self._backoff_retries = BACKOFF_RETRIES

    def _handle_rebalance_completed(self) -> bool:
        """Start the settled assignment's work, or rejoin if it cannot be used (Kafka's method of the
        same name); True once the assignment is in force."""
        if self._herder._rebalance_resolved:
            return True
        assignment = self._herder._assignment
        assert assignment is not None
        needs_rejoin = False
        needs_read = self._herder._config_state.offset < assignment.config_offset
        if assignment.failed:
            needs_rejoin = True
            needs_read = needs_read or self._herder.is_leader()
            logger.warning(
                "Joined the group but the assignment failed; reading the config topic and rejoining"
            )
        if needs_read and not self._read_config_to_end():
            needs_rejoin = True
        if needs_rejoin:
            self._herder._member.request_rejoin()
            return False
        if self._herder._config_state.offset != assignment.config_offset:
            logger.info(
                "Current config state offset %d does not match group assignment %d; forcing a rebalance",
                self._herder._config_state.offset,
                assignment.config_offset,
            )
            self._herder._member.request_rejoin()
            return False
        with self._herder._stages.stage("starting connectors and tasks"):
            self._herder._known_connectors = frozenset(self._herder._config_state.connectors())
            self._herder._work.start()
        self._herder._rebalance_resolved = True
        self._herder._listener.history.completed()
        self._scheduled_rebalance = None
        if assignment.delay_ms > 0:
            self._scheduled_rebalance = time.monotonic() + assignment.delay_ms / 1000
        self._herder._ready.set()
        return True

    # Config changes read from the config topic.

    def _process_connector_update(self, name: str) -> None:
        if name not in self._herder._work.running.connectors:
            return
        remains = self._herder.configs.snapshot().contains(name)
        logger.info(
            "Handling connector-only config update by %s connector %s",
            "restarting" if remains else "stopping",
            name,
        )
        self._herder._work.restart_on_lane(name, start=remains)

    def _process_target_change(self, name: str) -> None:
        snapshot = self._herder.configs.snapshot()
        if not snapshot.contains(name):
            return
        target = TargetState(snapshot.target_state(name))
        if name in self._herder._work.running.connectors:
            if target is TargetState.STOPPED:
                config = snapshot.connector_config(name) or {}
                self._herder.worker.supersede(name)
                self._herder._work.lanes.submit(
                    name,
                    functools.partial(self._herder.worker.start_connector, name, config, TargetState.STOPPED),
                )
            elif not self._herder.worker.is_running(name):
                self._herder._work.lanes.submit(
                    name, functools.partial(self._herder._work.start_connector_logged, name)
                )
            else:
                self._herder.worker.set_connector_target(name, target)
                if target is TargetState.STARTED:
                    self._herder._requests.add(lambda: self._herder._reconfigure_with_retry(name))
        else:
            self._herder.worker.set_connector_target(name, target)

    def _process_restart_request(self, request: RestartRequest) -> None:
        """KIP-745: restart what of the connector runs here, as the request says."""
        name = request.connector
        if not self._herder.configs.snapshot().contains(name):
            return
        if name in self._herder._work.running.connectors:
            status = self._herder.statuses.connector(name)
            if not request.only_failed or (status is not None and status.state == State.FAILED.value):
                self._herder._work.restart_on_lane(name)
        if not request.include_tasks:
            return
        for task in [t for t in self._herder._work.running.tasks if t.connector == name]:
            status = self._herder.statuses.task(name, task.task)
            if request.only_failed and (status is None or status.state != State.FAILED.value):
                continue
            if self._herder.worker.task_state(task) is None:
                self._herder._work.start_task_fenced_if_needed(task)
            else:
                self._herder._work.pool.submit(self._herder.worker.restart_task, task)
