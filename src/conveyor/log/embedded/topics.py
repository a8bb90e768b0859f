"""Topic metadata in the database: creation, deletion, lookup and validation of names and settings."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.log.api import TopicDescription
from conveyor.log.errors import (
    InvalidConfigError,
    TopicExistsError,
    UnknownTopicOrPartitionError,
)
from conveyor.positions import TopicPartition

DEFAULT_TOPIC_CONFIG: Mapping[str, str] = {
    "cleanup.policy": "delete",
    "retention.ms": str(7 * 24 * 3600 * 1000),
    "delete.retention.ms": str(24 * 3600 * 1000),
}
_NUMERIC_SETTINGS = ("retention.ms", "delete.retention.ms")


@dataclass(frozen=True, slots=True)
class TopicInfo:
    """What writers and readers need to know about a topic."""

    name: str
    partitions: int
    config: Mapping[str, str]

    @property
    def compacted(self) -> bool:
        return "compact" in self.config["cleanup.policy"].split(",")

    def describe(self) -> TopicDescription:
        return TopicDescription(self.name, self.partitions, dict(self.config))


def topic_config(name: str, config: Mapping[str, str | int] | None) -> dict[str, str]:
    """Complete a topic's settings with defaults and check the numeric ones the cleaner acts on."""
    merged = dict(DEFAULT_TOPIC_CONFIG)
    merged.update({key: str(value) for key, value in (config or {}).items()})
    for setting in _NUMERIC_SETTINGS:
        try:
            int(merged[setting])
        except ValueError:
            raise InvalidConfigError(
                f"Topic {name}: {setting}={merged[setting]!r} is not an integer"
            ) from None
    return merged


def create_topic(
    conn: sqlite3.Connection, name: str, partitions: int, config: Mapping[str, str], exist_ok: bool
) -> None:
    """Insert a topic and its empty partitions (inside the caller's write transaction)."""
    if find_topic(conn, name) is not None:
        if exist_ok:
            return
        raise TopicExistsError(f"Topic {name} already exists")
    conn.execute("INSERT INTO topics VALUES (?, ?, ?)", (name, partitions, json.dumps(dict(config))))
    conn.executemany(
        "INSERT INTO partitions VALUES (?, ?, 0, 0)", [(name, partition) for partition in range(partitions)]
    )


def delete_topic(conn: sqlite3.Connection, name: str) -> None:
    """Remove a topic with its records and its place in open transactions."""
    require_topic(conn, name)
    conn.execute("DELETE FROM topics WHERE name = ?", (name,))
    for table in ("partitions", "batches", "txn_partitions"):
        conn.execute(f"DELETE FROM {table} WHERE topic = ?", (name,))


def find_topic(conn: sqlite3.Connection, name: str) -> TopicInfo | None:
    row = conn.execute("SELECT partitions, config FROM topics WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None
    return TopicInfo(name, row[0], json.loads(row[1]))


def require_topic(conn: sqlite3.Connection, name: str) -> TopicInfo:
    info = find_topic(conn, name)
    if info is None:
        raise UnknownTopicOrPartitionError(f"Topic {name} does not exist")
    return info


def require_partition(conn: sqlite3.Connection, partition: TopicPartition) -> TopicInfo:
    info = require_topic(conn, partition.topic)
    if not 0 <= partition.partition < info.partitions:
        raise UnknownTopicOrPartitionError(
            f"Partition {partition} does not exist: topic {partition.topic} has {info.partitions} partitions"
        )
    return info


def list_topic_names(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT name FROM topics ORDER BY name")]
