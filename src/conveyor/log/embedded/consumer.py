"""The embedded backend's consumer: reads assigned partitions batch by batch from the database.

Under ``read_committed`` it stops at each partition's last stable offset and skips batches of aborted
transactions; under ``read_uncommitted`` it reads up to the high watermark. Waiting in ``poll`` is a
short sleep-and-retry, since writers may be other processes.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping

from conveyor.log.api import Consumer as ConsumerInterface
from conveyor.log.api import (
    IsolationLevel,
    OffsetAndMetadata,
    OffsetsToCommit,
    RebalanceListener,
    RecordBatch,
)
from conveyor.log.arguments import ConsumerSettings, check_isolation_level
from conveyor.log.assignment_strategy import assignors_from_config
from conveyor.log.embedded import group_offsets
from conveyor.log.embedded.batch_slicing import PositionedBatch, joined
from conveyor.log.embedded.codec import DecodedBatch, decode_batch
from conveyor.log.embedded.database import Database
from conveyor.log.embedded.partition_log import PartitionBounds, partition_bounds, read_batches
from conveyor.log.embedded.subscription import GroupSubscription
from conveyor.log.embedded.topics import require_partition
from conveyor.log.embedded.visibility import abort_expired_if_any
from conveyor.log.errors import (
    IllegalStateError,
    NoOffsetForPartitionError,
    OffsetOutOfRangeError,
)
from conveyor.positions import TopicPartition

_ROWS_PER_QUERY = 4
_MAX_WAIT_STEP_S = 0.05


class EmbeddedConsumer(ConsumerInterface):
    """A consumer reading from an embedded log's database."""

    def __init__(
        self,
        database: Database,
        group_id: str | None,
        isolation_level: IsolationLevel,
        config: Mapping[str, object],
    ) -> None:
        check_isolation_level(isolation_level)
        settings = ConsumerSettings.read(config)
        self._database = database
        self._group_id = group_id
        self._read_committed = isolation_level == "read_committed"
        self._auto_offset_reset = settings.auto_offset_reset
        self._max_poll_records = settings.max_poll_records
        assignors_from_config(config)  # a wrong partition.assignment.strategy fails here, as in Kafka
        self._positions: dict[TopicPartition, int | None] = {}
        self._order: list[TopicPartition] = []
        self._next_first = 0
        self._decoded: dict[TopicPartition, PositionedBatch] = {}
        self._config = config
        self._paused: set[TopicPartition] = set()
        self._subscription: GroupSubscription | None = None
        self._closed = False

    @property
    def group_id(self) -> str | None:
        return self._group_id

    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        self._ensure_open()
        if self._subscription is not None:
            raise IllegalStateError(
                f"Consumer of group {self._group_id} is subscribed: assign() is not allowed"
            )
        self._assign(partitions)

    def subscribe(self, topics: Iterable[str], listener: RebalanceListener | None = None) -> None:
        self._ensure_open()
        group_id = group_offsets.require_group_id(self._group_id)
        if self._subscription is not None:
            self.unsubscribe()
        elif self._order:
            raise IllegalStateError(f"Consumer of group {group_id} has assigned partitions: cannot subscribe")
        self._subscription = GroupSubscription(
            self._database, group_id, topics, listener or RebalanceListener(), self._assign, self._config
        )

    def unsubscribe(self) -> None:
        if self._subscription is not None:
            subscription, self._subscription = self._subscription, None
            subscription.close()
        self._assign([])

    def enforce_rebalance(self) -> None:
        if self._subscription is not None:
            self._subscription.request_rejoin()

    def _assign(self, partitions: Iterable[TopicPartition]) -> None:
        wanted = sorted(set(partitions))
        with self._database.read() as conn:
            for partition in wanted:
                require_partition(conn, partition)
        self._positions = {tp: self._positions.get(tp) for tp in wanted}
        self._order = wanted
        self._paused &= set(wanted)
        self._decoded = {tp: batch for tp, batch in self._decoded.items() if tp in self._positions}

    def assignment(self) -> set[TopicPartition]:
        return set(self._order)

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        chosen = list(partitions)
        for partition in chosen:
            self._require_assigned(partition)
        self._paused.update(chosen)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        chosen = list(partitions)
        for partition in chosen:
            self._require_assigned(partition)
        self._paused.difference_update(chosen)

    def paused(self) -> set[TopicPartition]:
        return set(self._paused)

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self._require_assigned(partition)
        if offset < 0:
            raise ValueError(f"Cannot seek {partition} to negative offset {offset}")
        self._positions[partition] = offset

    def seek_to_beginning(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        chosen = self._chosen(partitions)
        bounds = self._bounds(chosen)
        for partition in chosen:
            self._positions[partition] = bounds[partition].log_start_offset

    def seek_to_end(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        chosen = self._chosen(partitions)
        bounds = self._bounds(chosen)
        for partition in chosen:
            self._positions[partition] = self._end_of(bounds[partition])

    def position(self, partition: TopicPartition) -> int:
        self._require_assigned(partition)
        self._resolve_positions()
        position = self._positions[partition]
        assert position is not None
        return position

    def poll_batch(self, timeout: float = 0.0, max_records: int | None = None) -> list[RecordBatch]:
        self._ensure_open()
        if not self._order and self._subscription is None:
            raise IllegalStateError("Consumer is not assigned any partitions")
        limit = self._max_poll_records if max_records is None else max_records
        deadline = time.monotonic() + timeout
        wait = 0.001
        while True:
            if self._subscription is not None:
                self._subscription.ensure_active()
            batches = self._fetch(limit) if self._order else []
            remaining = deadline - time.monotonic()
            if batches or remaining <= 0:
                return batches
            time.sleep(min(wait, remaining))
            wait = min(wait * 2, _MAX_WAIT_STEP_S)

    def commit(self, offsets: OffsetsToCommit | None = None) -> None:
        self._ensure_open()
        group_id = group_offsets.require_group_id(self._group_id)
        if offsets is None:
            self._resolve_positions()
            to_commit = {tp: OffsetAndMetadata(pos) for tp, pos in self._positions.items() if pos is not None}
        else:
            to_commit = group_offsets.normalize_offsets(offsets)
        with self._database.write() as conn:
            group_offsets.write_offsets(conn, group_id, to_commit)

    def committed(
        self, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, OffsetAndMetadata | None]:
        self._ensure_open()
        group_id = group_offsets.require_group_id(self._group_id)
        wanted = list(partitions)
        with self._database.read() as conn:
            found = group_offsets.read_offsets(conn, group_id, wanted)
        return {tp: found.get(tp) for tp in wanted}

    def beginning_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return {tp: bounds.log_start_offset for tp, bounds in self._bounds(list(partitions)).items()}

    def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return {tp: self._end_of(bounds) for tp, bounds in self._bounds(list(partitions)).items()}

    def high_watermarks(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return {tp: bounds.high_watermark for tp, bounds in self._bounds(list(partitions)).items()}

    def close(self) -> None:
        if self._closed:
            return
        self.unsubscribe()
        self._closed = True
        self._decoded.clear()

    def _fetch(self, limit: int) -> list[RecordBatch]:
        self._resolve_positions()
        if self._read_committed:
            abort_expired_if_any(self._database)
        order = self._order[self._next_first :] + self._order[: self._next_first]
        self._next_first = (self._next_first + 1) % len(self._order)
        fetched: list[RecordBatch] = []
        with self._database.read() as conn:
            for partition in order:
                if limit <= 0:
                    break
                if partition in self._paused:
                    continue
                bounds = partition_bounds(conn, partition)
                position = self._checked_position(partition, bounds)
                end = self._end_of(bounds)
                slices: list[RecordBatch] = []
                while limit > 0 and position < end:
                    progressed = False
                    for batch in self._batches_at(conn, partition, position, end):
                        progressed = True
                        if batch.last_offset < position:
                            continue
                        sliced = batch.slice_from(partition, position, limit)
                        position = sliced.next_offset
                        if len(sliced):
                            slices.append(sliced)
                            limit -= len(sliced)
                        if position <= batch.last_offset:
                            self._decoded[partition] = batch
                        if limit <= 0:
                            break
                    if not progressed:
                        break
                if slices:
                    fetched.append(joined(slices))
                self._positions[partition] = position
        return fetched

    def _batches_at(
        self, conn: sqlite3.Connection, partition: TopicPartition, position: int, end: int
    ) -> Iterator[PositionedBatch]:
        """The batches from ``position`` on, each decoded only when the caller gets to it."""
        cached = self._decoded.pop(partition, None)
        if cached is not None and cached.base_offset <= position <= cached.last_offset:
            yield cached
            return
        for row in read_batches(conn, partition, position, end, _ROWS_PER_QUERY):
            if row.aborted and self._read_committed:
                yield PositionedBatch(row.base_offset, row.last_offset, DecodedBatch([], [], [], [], None))
            else:
                yield PositionedBatch(row.base_offset, row.last_offset, decode_batch(row.payload))

    def _checked_position(self, partition: TopicPartition, bounds: PartitionBounds) -> int:
        position = self._positions[partition]
        assert position is not None
        if bounds.log_start_offset <= position <= bounds.high_watermark:
            return position
        if self._auto_offset_reset == "none":
            raise OffsetOutOfRangeError(
                f"Offset {position} of {partition} is outside "
                f"[{bounds.log_start_offset}, {bounds.high_watermark}] and auto.offset.reset=none"
            )
        reset = bounds.log_start_offset if self._auto_offset_reset == "earliest" else self._end_of(bounds)
        self._positions[partition] = reset
        return reset

    def _resolve_positions(self) -> None:
        missing = [tp for tp, position in self._positions.items() if position is None]
        if not missing:
            return
        committed: dict[TopicPartition, OffsetAndMetadata] = {}
        with self._database.read() as conn:
            if self._group_id:
                committed = group_offsets.read_offsets(conn, self._group_id, missing)
            bounds = {tp: partition_bounds(conn, tp) for tp in missing}
        for partition in missing:
            if partition in committed:
                self._positions[partition] = committed[partition].offset
            elif self._auto_offset_reset == "earliest":
                self._positions[partition] = bounds[partition].log_start_offset
            elif self._auto_offset_reset == "latest":
                self._positions[partition] = self._end_of(bounds[partition])
            else:
                raise NoOffsetForPartitionError(
                    f"No committed offset for {partition} in group {self._group_id} "
                    "and auto.offset.reset=none"
                )

    def _end_of(self, bounds: PartitionBounds) -> int:
        return bounds.last_stable_offset if self._read_committed else bounds.high_watermark

    def _bounds(self, partitions: list[TopicPartition]) -> dict[TopicPartition, PartitionBounds]:
        self._ensure_open()
        if self._read_committed:
            abort_expired_if_any(self._database)
        with self._database.read() as conn:
            return {tp: partition_bounds(conn, tp) for tp in partitions}

    def _chosen(self, partitions: Iterable[TopicPartition] | None) -> list[TopicPartition]:
        chosen = list(self._order) if partitions is None else list(partitions)
        for partition in chosen:
            self._require_assigned(partition)
        return chosen

    def _require_assigned(self, partition: TopicPartition) -> None:
        self._ensure_open()
        if partition not in self._positions:
            raise IllegalStateError(f"Partition {partition} is not assigned to this consumer")

    def _ensure_open(self) -> None:
        if self._closed:
            raise IllegalStateError("Consumer is closed")
