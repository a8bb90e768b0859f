"""The writes only the group's leader makes, as Kafka's `DistributedHerder` makes them through its
`ConfigBackingStore`: connector configs, task configs, task count records after zombie fencing, restart
requests and session keys, and the clean-up of deleted connectors' statuses.

It owns what being the writer takes: under KIP-618 whether this worker holds the config topic's
transactional writer (claimed when it is elected, given up when it is not, claimed again before a write
if it was fenced), and the rotation of the session key. A follower asked for one of these writes gets
`NotLeaderError` with the leader's URL, and the REST layer forwards the request there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from conveyor.errors import BadRequestError, ConnectError, NotFoundError
from conveyor.herder.api import ConfigWrite
from conveyor.herder.base import BaseHerder
from conveyor.herder.distributed.errors import ConflictError, NotLeaderError
from conveyor.herder.distributed.protocol import ConnectProtocolCompatibility
from conveyor.herder.distributed.session_keys import SessionKeyRotation
from conveyor.herder.entities import ConnectorInfo
from conveyor.runtime.worker import ConnectorType
from conveyor.storage.errors import PrivilegedWriteError, StorageError

if TYPE_CHECKING:
    from conveyor.herder.distributed.herder import DistributedHerder

logger = logging.getLogger(__name__)

FENCED_LEADER = (
    "Failed to write to config topic; this may be due to a transient error and the request can be safely "
    "retried"
)


class LeaderWrites:
    """The leader's writes to the config and status topics; each runs on the herder's work thread."""

    def __init__(self, herder: DistributedHerder) -> None:
        self._herder = herder
        self._config = herder.config
        self._configs = herder.configs
        self._keys = SessionKeyRotation.for_worker(herder.config)
        self._fenced_from_config_topic = True

    def require(self, what: str) -> None:
        """Raise `NotLeaderError` (with the leader's URL) unless this worker leads the group."""
        if not self._herder.is_leader():
            raise NotLeaderError(f"Only the leader can {what}.", self._herder.leader_url())

    # The config topic's writer (KIP-618).

    def claim_config_topic(self) -> None:
        """KIP-618: a worker elected leader takes over the config topic's transactional id at once, fencing
        any previous leader's writer; if that fails, its first write tries again (Kafka's `onAssigned`)."""
        if not self._config.transactional_leader_enabled:
            return
        try:
            self._configs.claim_write_privileges()
            self._fenced_from_config_topic = False
        except StorageError as error:
            self._fenced_from_config_topic = True
            logger.error(
                "Unable to claim write privileges for config topic after being elected leader during "
                "rebalance: %s",
                error,
            )

    def give_up_config_topic(self) -> None:
        """A worker that is no longer leader closes its transactional config writer."""
        self._fenced_from_config_topic = True
        if self._config.transactional_leader_enabled:
            self._configs.relinquish_write_privileges()

    def write(self, write: Callable[[], None]) -> None:
        """A config topic write by the leader; under KIP-618 it claims write privileges first and, once
        fenced by a newer leader, rejoins (Kafka's `writeToConfigTopicAsLeader`)."""
        if self._config.transactional_leader_enabled and self._fenced_from_config_topic:
            self._configs.claim_write_privileges()
            self._fenced_from_config_topic = False
        try:
            write()
        except PrivilegedWriteError as error:
            self._fenced_from_config_topic = True
            self._herder._member.request_rejoin()
            raise ConnectError(FENCED_LEADER) from error

    # What the leader writes.

    def rotate_session_key(self) -> None:
        """Under the sessioned protocol (KIP-507), write a new session key once the current one is due."""
        if self._herder._protocol is not ConnectProtocolCompatibility.SESSIONED:
            return
        current = self._configs.snapshot().session_key
        if self._keys.rotation_due(current):
            logger.info("Distributing a new session key")
            try:
                self.write(lambda: self._configs.put_session_key(self._keys.new_key()))
            except ConnectError as error:
                logger.warning("Could not write a new session key: %s", error)

    def put_connector_config(self, write: ConfigWrite) -> tuple[bool, ConnectorInfo]:
        """Create or replace a connector's config (a new one's offsets set up first); (created, info)."""
        herder = self._herder
        self.require("create or reconfigure connectors")
        exists, target = herder._prepare_config_write(write)
        self.write(
            lambda: self._configs.put_connector_config(
                write.name, write.config, None if target is None else target.value
            )
        )
        return not exists, BaseHerder.connector_info(herder, write.name)

    def delete_connector(self, name: str) -> None:
        self.require("delete connectors")
        self._herder._require(name)
        self.write(lambda: self._configs.remove_connector_config(name))

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        """Task configs a follower's connector generated, sent to the leader (internal REST)."""
        self.require("write task configurations")
        self._herder._require(name)
        self.write(lambda: self._configs.put_task_configs(name, configs))

    def fence_zombies(self, name: str) -> None:
        """Fence the producers of the connector's previous task generation, then write the task count
        record, as Kafka's `doFenceZombieSourceTasks`."""
        herder = self._herder
        self.require("fence zombie tasks")
        try:
            self._configs.read_to_end(self._config.worker_sync_timeout_ms / 1000)
        except StorageError as error:
            raise ConnectError(f"Failed to read to end of config topic before fencing: {error}") from error
        snapshot = self._configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        if herder._type_of(config) is not ConnectorType.SOURCE:
            raise BadRequestError(f"Connector {name} is not a source connector")
        if not snapshot.pending_fencing(name):
            return
        task_count = snapshot.task_count(name)
        previous = snapshot.task_count_record(name)
        generation = snapshot.task_config_generation(name)
        if herder._fence_previous_generation(name, previous, task_count):
            self._configs.read_to_end(self._config.worker_sync_timeout_ms / 1000)
            if self._configs.snapshot().task_config_generation(name) != generation:
                raise ConflictError(
                    "Fencing failed because new task configurations were generated for the connector"
                )
        self.write(lambda: self._configs.put_task_count_record(name, task_count))

    def fence_before_modifying_offsets(self, name: str) -> None:
        """KIP-875 under KIP-618: a stopped exactly-once source's zombie tasks are fenced before its
        offsets change, so none of them can commit offsets over the new ones (Kafka's
        `modifyConnectorOffsets`)."""
        config = self._herder._require_stopped(name)
        if self._config.exactly_once_source_enabled and self._herder._type_of(config) is ConnectorType.SOURCE:
            self.fence_zombies(name)

    def delete_removed_connector_statuses(self) -> None:
        """Delete the statuses of connectors deleted before this rebalance. A status topic that cannot be
        read or written now (the log coming back after an outage) leaves them to the next rebalance: a
        clean-up is no reason to stop the herder."""
        statuses = self._herder.statuses
        connectors = set(self._configs.snapshot().connectors())
        try:
            statuses.read_to_end()
            for name in statuses.connectors():
                if name not in connectors:
                    logger.debug("Cleaning status information for connector %s", name)
                    statuses.delete_connector(name)
        except StorageError as error:
            logger.warning(
                "Could not clean up the statuses of deleted connectors; retrying at the next rebalance: %s",
                error,
            )
