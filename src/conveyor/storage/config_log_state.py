"""Applying config-topic records one by one, as Kafka's KafkaConfigBackingStore does when it reads them."""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from conveyor.storage import config_records as records
from conveyor.storage.cluster_config_state import ClusterConfigState
from conveyor.storage.config_listener import Notification
from conveyor.storage.config_records import PAUSED, STARTED, STOPPED, RestartRequest, SessionKey, TargetState

logger = logging.getLogger(__name__)


class ConfigLogState:
    """The mutable state behind the config store; ``apply`` says which listener callback a record earns."""

    def __init__(self) -> None:
        self.offset = -1
        self._connector_configs: dict[str, Mapping[str, str]] = {}
        self._target_states: dict[str, TargetState] = {}
        self._task_counts: dict[str, int] = {}
        self._task_configs: dict[tuple[str, int], Mapping[str, str]] = {}
        self._deferred_task_configs: dict[str, dict[int, Mapping[str, str]]] = {}
        self._task_config_generations: dict[str, int] = {}
        self._task_count_records: dict[str, int] = {}
        self._pending_fencing: set[str] = set()
        self._inconsistent: set[str] = set()
        self._session_key: SessionKey | None = None

    def snapshot(self) -> ClusterConfigState:
        return ClusterConfigState(
            offset=self.offset,
            connector_configs=MappingProxyType(dict(self._connector_configs)),
            target_states=MappingProxyType(dict(self._target_states)),
            task_counts=MappingProxyType(dict(self._task_counts)),
            committed_task_configs=MappingProxyType(dict(self._task_configs)),
            task_config_generations=MappingProxyType(dict(self._task_config_generations)),
            task_count_records=MappingProxyType(dict(self._task_count_records)),
            connectors_pending_fencing=frozenset(self._pending_fencing),
            inconsistent_connectors=frozenset(self._inconsistent),
            session_key=self._session_key,
        )

    def apply(self, offset: int, key: str, value: Any) -> Notification | None:
        """Apply the record at ``offset``; ``value`` is its parsed JSON (None for a tombstone)."""
        self.offset = offset + 1
        if key.startswith(records.TARGET_STATE_PREFIX):
            return self._apply_target_state(key[len(records.TARGET_STATE_PREFIX) :], value)
        if key.startswith(records.CONNECTOR_PREFIX):
            return self._apply_connector_config(key[len(records.CONNECTOR_PREFIX) :], value)
        if key.startswith(records.TASK_PREFIX):
            return self._apply_task_config(key, value)
        if key.startswith(records.COMMIT_TASKS_PREFIX):
            return self._apply_commit(key[len(records.COMMIT_TASKS_PREFIX) :], value)
        if key.startswith(records.RESTART_PREFIX):
            return self._restart_request(key[len(records.RESTART_PREFIX) :], value)
        if key.startswith(records.TASK_COUNT_RECORD_PREFIX):
            return self._apply_task_count_record(key[len(records.TASK_COUNT_RECORD_PREFIX) :], value)
        if key == records.SESSION_KEY_KEY:
            return self._apply_session_key(value)
        logger.debug("Ignoring config record with a key Conveyor does not use: %s", key)
        return None

    def _apply_connector_config(self, connector: str, value: Any) -> Notification | None:
        if value is None:
            self._connector_configs.pop(connector, None)
            self._task_counts.pop(connector, None)
            self._deferred_task_configs.pop(connector, None)
            for task_id in [task_id for task_id in self._task_configs if task_id[0] == connector]:
                del self._task_configs[task_id]
            return lambda listener: listener.on_connector_config_remove(connector)
        properties = _properties(value)
        if properties is None:
            logger.error("Ignoring config of connector %s: malformed value %r", connector, value)
            return None
        self._connector_configs[connector] = properties
        self._target_states.setdefault(connector, STARTED)
        return lambda listener: listener.on_connector_config_update(connector)

    def _apply_target_state(self, connector: str, value: Any) -> Notification | None:
        if value is None:
            self._target_states.pop(connector, None)
            if connector in self._connector_configs:
                self._target_states[connector] = STARTED
            return None
        state = _target_state(value)
        if state is None:
            logger.error("Ignoring target state of connector %s: malformed value %r", connector, value)
            return None
        previous = self._target_states.get(connector)
        self._target_states[connector] = state
        if state == previous or connector not in self._connector_configs:
            return None
        return lambda listener: listener.on_target_state_change(connector)

    def _apply_task_config(self, key: str, value: Any) -> Notification | None:
        task_id = records.parse_task_key(key)
        properties = None if value is None else _properties(value)
        if task_id is None or properties is None:
            logger.error("Ignoring task config record %s: malformed key or value %r", key, value)
            return None
        connector, task = task_id
        self._deferred_task_configs.setdefault(connector, {})[task] = properties
        return None

    def _apply_commit(self, connector: str, value: Any) -> Notification | None:
        task_count = _int_field(value, "tasks")
        if task_count is None:
            logger.error("Ignoring task commit of connector %s: malformed value %r", connector, value)
            return None
        deferred = self._deferred_task_configs.get(connector)
        applied: list[int] = []
        if all(deferred is not None and task in deferred for task in range(task_count)):
            if deferred is not None:
                for task, properties in deferred.items():
                    self._task_configs[(connector, task)] = properties
                applied = sorted(deferred)
                generation = self._task_config_generations.get(connector)
                self._task_config_generations[connector] = 0 if generation is None else generation + 1
            self._inconsistent.discard(connector)
        else:
            logger.warning("Incomplete task configs committed for connector %s (compacted log?)", connector)
            self._inconsistent.add(connector)
        if deferred is not None:
            deferred.clear()
        self._task_counts[connector] = task_count
        self._pending_fencing.add(connector)
        return lambda listener: listener.on_task_configs_committed(connector, applied)

    def _apply_task_count_record(self, connector: str, value: Any) -> Notification | None:
        task_count = _int_field(value, "task-count")
        if task_count is None:
            logger.error("Ignoring task count record of connector %s: malformed value %r", connector, value)
            return None
        self._pending_fencing.discard(connector)
        self._task_count_records[connector] = task_count
        return None

    def _apply_session_key(self, value: Any) -> Notification | None:
        session_key = _session_key(value)
        if session_key is None:
            logger.error("Ignoring session key record: malformed value")
            return None
        self._session_key = session_key
        return lambda listener: listener.on_session_key_update(session_key)

    @staticmethod
    def _restart_request(connector: str, value: Any) -> Notification | None:
        if not isinstance(value, dict):
            logger.error("Ignoring restart request for connector %s: malformed value %r", connector, value)
            return None
        include_tasks = value.get("include-tasks")
        only_failed = value.get("only-failed")
        request = RestartRequest(
            connector,
            include_tasks=include_tasks if isinstance(include_tasks, bool) else False,
            only_failed=only_failed if isinstance(only_failed, bool) else False,
        )
        return lambda listener: listener.on_restart_request(request)


def _properties(value: Any) -> Mapping[str, str] | None:
    properties = value.get("properties") if isinstance(value, dict) else None
    return MappingProxyType(properties) if isinstance(properties, dict) else None


def _target_state(value: Any) -> TargetState | None:
    if not isinstance(value, dict):
        return None
    state = value.get("state.v2")
    if not isinstance(state, str):
        state = value.get("state")
    for known in (STARTED, PAUSED, STOPPED):
        if state == known:
            return known
    return None


def _int_field(value: Any, name: str) -> int | None:
    number = value.get(name) if isinstance(value, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _session_key(value: Any) -> SessionKey | None:
    """The session key in Kafka's ``SESSION_KEY_V0`` JSON, or None if any field is missing or mistyped."""
    if not isinstance(value, dict):
        return None
    encoded, algorithm = value.get("key"), value.get("algorithm")
    creation_timestamp = _int_field(value, "creation-timestamp")
    if not isinstance(encoded, str) or not isinstance(algorithm, str) or creation_timestamp is None:
        return None
    try:
        key = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        return None
    return SessionKey(key, algorithm, creation_timestamp)
