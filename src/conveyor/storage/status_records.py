"""Status topic records as Kafka's KafkaStatusBackingStore writes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from conveyor.storage.json_values import to_json_bytes

CONNECTOR_STATUS_PREFIX: Final = "status-connector-"
TASK_STATUS_PREFIX: Final = "status-task-"
TOPIC_STATUS_PREFIX: Final = "status-topic-"
TOPIC_STATUS_SEPARATOR: Final = ":connector-"


@dataclass(frozen=True, slots=True)
class Status:
    """A connector's or task's state (RUNNING, PAUSED, FAILED, ...) as last reported by a worker."""

    state: str
    worker_id: str
    trace: str | None = None
    generation: int = 0
    version: str | None = None
    """The connector's or task's plugin version (Kafka 4.1+); None when unknown or not recorded."""


def connector_status_key(connector: str) -> bytes:
    return (CONNECTOR_STATUS_PREFIX + connector).encode()


def task_status_key(connector: str, task: int) -> bytes:
    return f"{TASK_STATUS_PREFIX}{connector}-{task}".encode()


def status_value(status: Status) -> bytes:
    """``{"state":..,"trace":..,"worker_id":..,"generation":n,"version":..}``, fields in the order of
    Kafka's status schema (``version`` optional, written as null when unknown)."""
    return to_json_bytes(
        {
            "state": status.state,
            "trace": status.trace,
            "worker_id": status.worker_id,
            "generation": status.generation,
            "version": status.version,
        }
    )


def parse_status(value: Any) -> Status | None:
    """A status from parsed JSON, or None if a required field is missing or of the wrong type; a record
    without ``version`` (written before Kafka 4.1) has none."""
    if not isinstance(value, dict):
        return None
    state, worker_id = value.get("state"), value.get("worker_id")
    trace, generation = value.get("trace"), value.get("generation", 0)
    version = value.get("version")
    if not isinstance(state, str) or not isinstance(worker_id, str):
        return None
    if any(optional is not None and not isinstance(optional, str) for optional in (trace, version)):
        return None
    if not isinstance(generation, int) or isinstance(generation, bool):
        return None
    return Status(state, worker_id, trace, generation, version)


def parse_task_status_key(rest: str) -> tuple[str, int] | None:
    """``<connector>-<n>`` (what follows ``status-task-``) as (connector, n), or None."""
    connector, dash, number = rest.rpartition("-")
    if not dash or not connector or not number.isdigit():
        return None
    return connector, int(number)


@dataclass(frozen=True, slots=True)
class TopicStatus:
    """A topic a connector's task produced to or consumed from, and when it was first seen (KIP-558)."""

    topic: str
    connector: str
    task: int
    discover_timestamp_ms: int


def topic_status_key(connector: str, topic: str) -> bytes:
    """``status-topic-<topic>:connector-<connector>``, as Kafka's KafkaStatusBackingStore keys it."""
    return f"{TOPIC_STATUS_PREFIX}{topic}{TOPIC_STATUS_SEPARATOR}{connector}".encode()


def parse_topic_status_key(rest: str) -> tuple[str, str] | None:
    """``<topic>:connector-<connector>`` (what follows ``status-topic-``) as (topic, connector), or None."""
    topic, separator, connector = rest.partition(TOPIC_STATUS_SEPARATOR)
    if not separator or not topic or not connector:
        return None
    return topic, connector


def topic_status_value(status: TopicStatus) -> bytes:
    """``{"topic":{"name":..,"connector":..,"task":n,"discoverTimestamp":ms}}``, Kafka's topic status."""
    return to_json_bytes(
        {
            "topic": {
                "name": status.topic,
                "connector": status.connector,
                "task": status.task,
                "discoverTimestamp": status.discover_timestamp_ms,
            }
        }
    )


def parse_topic_status(value: Any) -> TopicStatus | None:
    """A topic status from parsed JSON, or None if it is not one."""
    topic = value.get("topic") if isinstance(value, dict) else None
    if not isinstance(topic, dict):
        return None
    name, connector, task, discovered = (
        topic.get(k) for k in ("name", "connector", "task", "discoverTimestamp")
    )
    if not isinstance(name, str) or not isinstance(connector, str):
        return None
    if not isinstance(task, int) or not isinstance(discovered, int):
        return None
    return TopicStatus(name, connector, task, discovered)
