"""The config topic's record keys and values, byte for byte as Kafka's KafkaConfigBackingStore writes them."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from conveyor.storage.json_values import to_json_bytes

TargetState = Literal["STARTED", "PAUSED", "STOPPED"]
STARTED: Final = "STARTED"
PAUSED: Final = "PAUSED"
STOPPED: Final = "STOPPED"
TARGET_STATES: Final[frozenset[str]] = frozenset({STARTED, PAUSED, STOPPED})

CONNECTOR_PREFIX: Final = "connector-"
TASK_PREFIX: Final = "task-"
COMMIT_TASKS_PREFIX: Final = "commit-"
TARGET_STATE_PREFIX: Final = "target-state-"
TASK_COUNT_RECORD_PREFIX: Final = "tasks-fencing-"
RESTART_PREFIX: Final = "restart-connector-"
SESSION_KEY_KEY: Final = "session-key"


@dataclass(frozen=True, slots=True)
class RestartRequest:
    """A request to restart a connector and maybe its tasks (KIP-745), read from the config topic."""

    connector: str
    include_tasks: bool = False
    only_failed: bool = False


@dataclass(frozen=True, slots=True)
class SessionKey:
    """The cluster's KIP-507 secret for signing internal requests, and when (epoch ms) the leader made it.

    ``algorithm`` is the key's own algorithm (``inter.worker.key.generation.algorithm``), as Kafka's
    ``SecretKey`` carries it. The key bytes are kept out of ``repr`` so that they never reach a log.
    """

    key: bytes = field(repr=False)
    algorithm: str
    creation_timestamp: int


def connector_key(connector: str) -> bytes:
    return (CONNECTOR_PREFIX + connector).encode()


def task_key(connector: str, task: int) -> bytes:
    return f"{TASK_PREFIX}{connector}-{task}".encode()


def commit_key(connector: str) -> bytes:
    return (COMMIT_TASKS_PREFIX + connector).encode()


def target_state_key(connector: str) -> bytes:
    return (TARGET_STATE_PREFIX + connector).encode()


def task_count_record_key(connector: str) -> bytes:
    return (TASK_COUNT_RECORD_PREFIX + connector).encode()


def restart_key(connector: str) -> bytes:
    return (RESTART_PREFIX + connector).encode()


def properties_value(properties: Mapping[str, str]) -> bytes:
    """``{"properties":{...}}``: a connector's or a task's config."""
    return to_json_bytes({"properties": dict(properties)})


def commit_value(task_count: int) -> bytes:
    return to_json_bytes({"tasks": task_count})


def target_state_value(state: TargetState) -> bytes:
    """``state`` for workers that predate STOPPED (which they read as PAUSED), ``state.v2`` for the rest."""
    if state not in TARGET_STATES:
        raise ValueError(f"Unknown target state {state!r}: expected one of {sorted(TARGET_STATES)}")
    legacy = PAUSED if state == STOPPED else state
    return to_json_bytes({"state": legacy, "state.v2": state})


def task_count_record_value(task_count: int) -> bytes:
    return to_json_bytes({"task-count": task_count})


def restart_value(include_tasks: bool, only_failed: bool) -> bytes:
    return to_json_bytes({"include-tasks": include_tasks, "only-failed": only_failed})


def session_key_value(session_key: SessionKey) -> bytes:
    """``{"key": <base64>, "algorithm": ..., "creation-timestamp": ...}``, Kafka's ``SESSION_KEY_V0``."""
    return to_json_bytes(
        {
            "key": base64.b64encode(session_key.key).decode("ascii"),
            "algorithm": session_key.algorithm,
            "creation-timestamp": session_key.creation_timestamp,
        }
    )


def parse_task_key(key: str) -> tuple[str, int] | None:
    """``task-<connector>-<n>`` as (connector, n); None when the key is not of that form."""
    connector, dash, number = key[len(TASK_PREFIX) :].rpartition("-")
    if not dash or not connector or not number.isdigit():
        return None
    return connector, int(number)
