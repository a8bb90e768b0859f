"""The embedded backend's admin client."""

from __future__ import annotations

import base64
import sqlite3
import uuid
from collections.abc import Iterable

from conveyor.log.api import (
    Admin,
    CleanerResult,
    OffsetAndMetadata,
    OffsetsToCommit,
    PartitionOffsets,
    TopicDescription,
)
from conveyor.log.embedded import group_offsets, transactions
from conveyor.log.embedded import topics as topic_store
from conveyor.log.embedded.cleaner import clean_topic
from conveyor.log.embedded.database import Database, now_ms
from conveyor.log.embedded.partition_log import partition_bounds
from conveyor.log.embedded.visibility import abort_expired_if_any
from conveyor.log.errors import GroupIdNotFoundError, NonEmptyGroupError
from conveyor.log.new_topic import NewTopic
from conveyor.positions import TopicPartition


class EmbeddedAdmin(Admin):
    """Admin operations on an embedded log's database."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def cluster_id(self) -> str:
        with self._database.write() as conn:
            row = conn.execute("SELECT id FROM cluster").fetchone()
            if row is not None:
                return str(row[0])
            made = new_cluster_id()
            conn.execute("INSERT INTO cluster(id) VALUES (?)", (made,))
            return made

    def _create_topic(self, topic: NewTopic, exist_ok: bool) -> None:
        complete_config = topic_store.topic_config(topic.name, topic.config)
        with self._database.write() as conn:
            topic_store.create_topic(conn, topic.name, topic.partitions, complete_config, exist_ok)

    def delete_topic(self, name: str) -> None:
        with self._database.write() as conn:
            topic_store.delete_topic(conn, name)

    def list_topics(self) -> list[str]:
        with self._database.read() as conn:
            return topic_store.list_topic_names(conn)

    def describe_topics(self, names: Iterable[str]) -> dict[str, TopicDescription]:
        with self._database.read() as conn:
            return {name: topic_store.require_topic(conn, name).describe() for name in names}

    def list_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, PartitionOffsets]:
        abort_expired_if_any(self._database)
        result = {}
        with self._database.read() as conn:
            for partition in partitions:
                topic_store.require_partition(conn, partition)
                bounds = partition_bounds(conn, partition)
                result[partition] = PartitionOffsets(
                    bounds.log_start_offset, bounds.high_watermark, bounds.last_stable_offset
                )
        return result

    def fence_producers(self, transactional_ids: Iterable[str]) -> None:
        with self._database.write() as conn:
            for transactional_id in transactional_ids:
                transactions.claim_transactional_id(conn, transactional_id)

    def list_consumer_groups(self) -> list[str]:
        with self._database.read() as conn:
            rows = conn.execute(
                "SELECT group_id FROM group_offsets UNION SELECT group_id FROM group_members ORDER BY 1"
            ).fetchall()
        return [row[0] for row in rows]

    def list_consumer_group_offsets(self, group_id: str) -> dict[TopicPartition, OffsetAndMetadata]:
        group_offsets.require_group_id(group_id)
        with self._database.read() as conn:
            return group_offsets.read_offsets(conn, group_id)

    def alter_consumer_group_offsets(self, group_id: str, offsets: OffsetsToCommit) -> None:
        group_offsets.require_group_id(group_id)
        normalized = group_offsets.normalize_offsets(offsets)
        with self._database.write() as conn:
            self._require_no_members(conn, group_id)
            for partition in normalized:
                topic_store.require_partition(conn, partition)
            group_offsets.write_offsets(conn, group_id, normalized)

    def delete_consumer_group(self, group_id: str) -> None:
        group_offsets.require_group_id(group_id)
        with self._database.write() as conn:
            self._require_no_members(conn, group_id)
            deleted = group_offsets.delete_offsets(conn, group_id)
            deleted += conn.execute("DELETE FROM groups WHERE group_id = ?", (group_id,)).rowcount
            if not deleted:
                raise GroupIdNotFoundError(f"Consumer group {group_id} does not exist")

    def run_cleaner(self, topics: Iterable[str] | None = None) -> CleanerResult:
        records = batches = 0
        with self._database.write() as conn:
            now = now_ms()
            transactions.abort_expired_transactions(conn, now)
            names = topic_store.list_topic_names(conn) if topics is None else list(topics)
            for name in names:
                result = clean_topic(conn, topic_store.require_topic(conn, name), now)
                records += result.records_removed
                batches += result.batches_removed
            transactions.forget_aborted_without_batches(conn)
        return CleanerResult(records, batches)

    @staticmethod
    def _require_no_members(conn: sqlite3.Connection, group_id: str) -> None:
        row = conn.execute("SELECT count(*) FROM group_members WHERE group_id = ?", (group_id,)).fetchone()
        if row[0]:
            raise NonEmptyGroupError(f"Consumer group {group_id} still has {row[0]} active members")


def new_cluster_id() -> str:
    """A random id in the form of Kafka's cluster ids (``Uuid.randomUuid``: 22 URL-safe base64 characters,
    never starting with ``-``)."""
    while True:
        made = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not made.startswith("-"):
            return made
