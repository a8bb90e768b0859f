"""The offsets table of exactly-once sinks, and the fencing of older task incarnations.

One row per (connector, topic, partition) holds the next offset to consume and a generation. A task that
opens a partition takes the next generation (``UPDATE ... SET generation = generation + 1 RETURNING``);
every batch it writes updates its row ``WHERE generation = <its own>`` in the batch's own transaction, and
first of all, so a task whose partition was opened since by another (a zombie waking up from a pause, a
stalled executor) finds no row, rolls back and writes nothing. The row's lock also orders a batch and a
newer task's claim: the claim waits for the batch's commit, or the batch for the claim's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TypeAlias

import psycopg2.extensions
import psycopg2.extras
from psycopg2 import sql

from conveyor.api import ConnectError, TopicPartition

Connection: TypeAlias = psycopg2.extensions.connection
Cursor: TypeAlias = psycopg2.extensions.cursor


_FENCED = "conveyor: the partition was opened by a newer task"
"""The message of a ``fence`` statement's error."""


class FencedError(ConnectError):
    """Partitions were opened by a newer task since this one opened them: it must not write to them."""

    def __init__(self, connector: str, partitions: Collection[TopicPartition]) -> None:
        self.partitions = sorted(partitions)
        names = ", ".join(str(p) for p in self.partitions)
        super().__init__(
            f"Sink {connector} was fenced off {names}: a newer task opened them since this task did, so "
            "this batch was rolled back and this task stops writing to them (it was paused or cut off "
            "while its partitions moved)"
        )


@dataclass(frozen=True)
class Claim:
    """A partition as a task opened it: its generation, and the next offset to consume (None: none yet)."""

    generation: int
    next_offset: int | None


class OffsetsTable:
    """The offsets rows of one connector in ``table`` (created on first use)."""

    def __init__(self, table: str, connector: str) -> None:
        schema, dot, name = table.partition(".")
        self._table = sql.Identifier(schema, name) if dot else sql.Identifier(table)
        self._connector = connector
        self._advance_one: str | None = None

    def create(self, connection: Connection) -> None:
        """Create the table if it does not exist yet (once, however many tasks race to)."""
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext('conveyor-sink-offsets'))")
            cursor.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (connector text NOT NULL, topic text NOT NULL, "
                    "kafka_partition integer NOT NULL, next_offset bigint, "
                    "generation bigint NOT NULL DEFAULT 0, "
                    "updated_at timestamptz NOT NULL DEFAULT now(), "
                    "PRIMARY KEY (connector, topic, kafka_partition))"
                ).format(self._table)
            )
        connection.commit()

    def claim(
        self, connection: Connection, partitions: Collection[TopicPartition]
    ) -> dict[TopicPartition, Claim]:
        """Take the next generation of each partition (fencing whoever held it) and read its offset."""
        rows = [(self._connector, p.topic, p.partition) for p in partitions]
        with connection.cursor() as cursor:
            psycopg2.extras.execute_values(
                cursor,
                sql.SQL("INSERT INTO {} (connector, topic, kafka_partition) VALUES %s ON CONFLICT DO NOTHING")
                .format(self._table)
                .as_string(cursor),
                rows,
            )
            claimed = psycopg2.extras.execute_values(
                cursor,
                sql.SQL(
                    "UPDATE {} AS o SET generation = o.generation + 1, updated_at = now() "
                    "FROM (VALUES %s) AS p (connector, topic, kafka_partition) "
                    "WHERE o.connector = p.connector AND o.topic = p.topic "
                    "AND o.kafka_partition = p.kafka_partition "
                    "RETURNING o.topic, o.kafka_partition, o.generation, o.next_offset"
                )
                .format(self._table)
                .as_string(cursor),
                rows,
                fetch=True,
            )
        connection.commit()
        return {
            TopicPartition(topic, partition): Claim(generation, offset)
            for topic, partition, generation, offset in claimed
        }

    def read(
        self, connection: Connection, partitions: Collection[TopicPartition]
    ) -> dict[TopicPartition, Claim]:
        """The rows of these partitions as they are now (read in a transaction of its own)."""
        with connection.cursor() as cursor:
            cursor.execute(
                sql.SQL(
                    "SELECT topic, kafka_partition, generation, next_offset FROM {} WHERE connector = %s"
                ).format(self._table),
                (self._connector,),
            )
            rows = cursor.fetchall()
        connection.commit()
        wanted = set(partitions)
        return {
            tp: Claim(generation, offset)
            for topic, partition, generation, offset in rows
            if (tp := TopicPartition(topic, partition)) in wanted
        }

    def advance(self, cursor: Cursor, offsets: Mapping[TopicPartition, tuple[int, int]]) -> None:
        """In the caller's transaction, move each partition to its next offset if it still holds its
        generation (``offsets``: partition to (next offset, generation)); raise :class:`FencedError` for the
        partitions it no longer holds, leaving the caller to roll back."""
        rows = [
            (self._connector, p.topic, p.partition, offset, generation)
            for p, (offset, generation) in offsets.items()
        ]
        updated = psycopg2.extras.execute_values(
            cursor,
            sql.SQL(
                "UPDATE {} AS o SET next_offset = v.next_offset, updated_at = now() "
                "FROM (VALUES %s) AS v (connector, topic, kafka_partition, next_offset, generation) "
                "WHERE o.connector = v.connector AND o.topic = v.topic "
                "AND o.kafka_partition = v.kafka_partition "
                "AND o.generation = v.generation RETURNING o.topic, o.kafka_partition"
            )
            .format(self._table)
            .as_string(cursor),
            rows,
            fetch=True,
        )
        held = {TopicPartition(topic, partition) for topic, partition in updated}
        fenced = set(offsets) - held
        if fenced:
            raise FencedError(self._connector, fenced)

    def fence(self, cursor: Cursor, partition: TopicPartition, offset: int, generation: int) -> str:
        """``advance`` of one partition as a statement to send ahead of the batch's rows in one query
        string: a ``DO`` block that raises (see ``fenced``) when the partition is no longer this task's."""
        statement = self._advance_one
        if statement is None:
            statement = self._advance_one = (
                sql.SQL(
                    "UPDATE {} SET next_offset = %s, updated_at = now() WHERE connector = %s AND topic = %s "
                    "AND kafka_partition = %s AND generation = %s"
                )
                .format(self._table)
                .as_string(cursor)
            )
        codec = psycopg2.extensions.encodings[cursor.connection.encoding]
        update = cursor.mogrify(
            statement, (offset, self._connector, partition.topic, partition.partition, generation)
        ).decode(codec)
        body = f"BEGIN {update}; IF NOT FOUND THEN RAISE EXCEPTION '{_FENCED}'; END IF; END"
        return str(cursor.mogrify("DO %s", (body,)).decode(codec))

    def fenced(self, error: psycopg2.Error, partitions: Collection[TopicPartition]) -> FencedError | None:
        """The :class:`FencedError` a ``fence`` statement's failure stands for, or None for another error."""
        diag = getattr(error, "diag", None)
        if diag is None or diag.message_primary != _FENCED:
            return None
        return FencedError(self._connector, partitions)

    def move(self, connection: Connection, offsets: Mapping[TopicPartition, int | None]) -> None:
        """Set partitions' next offsets (None: forget it, so the task resumes from the consumer group's),
        as an alteration or reset of the connector's offsets asks."""
        with connection.cursor() as cursor:
            for partition, offset in offsets.items():
                cursor.execute(
                    sql.SQL(
                        "INSERT INTO {} AS o (connector, topic, kafka_partition, next_offset) "
                        "VALUES (%s, %s, %s, %s) ON CONFLICT (connector, topic, kafka_partition) "
                        "DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = now()"
                    ).format(self._table),
                    (self._connector, partition.topic, partition.partition, offset),
                )
        connection.commit()
