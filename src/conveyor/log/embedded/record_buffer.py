"""Records a producer holds for one partition until they are appended as one batch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from conveyor.log.api import Headers
from conveyor.log.embedded.codec import encode_batch
from conveyor.positions import RecordMetadata

DeliveryCallback = Callable[[RecordMetadata], None]


@dataclass(frozen=True, slots=True)
class EncodedBatch:
    """A buffer encoded for appending, with the delivery callbacks to run once it is appended."""

    topic: str
    partition: int
    payload: bytes
    record_count: int
    max_timestamp: int
    callbacks: list[tuple[int, int, DeliveryCallback]]

    def notify(self, base_offset: int) -> None:
        """Tell each waiting sender where its record landed."""
        for index, timestamp, callback in self.callbacks:
            callback(RecordMetadata(self.topic, self.partition, base_offset + index, timestamp))


class RecordBuffer:
    """Columns of not yet appended records of one partition; keys and headers appear once one is set."""

    __slots__ = ("callbacks", "headers", "keys", "size", "timestamps", "values")

    def __init__(self) -> None:
        self.values: list[bytes | None] = []
        self.keys: list[bytes | None] | None = None
        self.headers: list[Headers | None] | None = None
        self.timestamps: list[int] = []
        self.size = 0
        self.callbacks: list[tuple[int, int, DeliveryCallback]] = []

    def __len__(self) -> int:
        return len(self.values)

    def add(self, value: bytes | None, key: bytes | None, headers: Headers | None, timestamp: int) -> None:
        if key is not None:
            if self.keys is None:
                self.keys = [None] * len(self.values)
            self.size += len(key)
        if headers and self.headers is None:
            self.headers = [None] * len(self.values)
        self.values.append(value)
        if self.keys is not None:
            self.keys.append(key)
        if self.headers is not None:
            self.headers.append(headers)
        self.timestamps.append(timestamp)
        if value is not None:
            self.size += len(value)

    def extend(
        self,
        values: Sequence[bytes | None],
        keys: Sequence[bytes | None] | None,
        headers: Sequence[Headers | None] | None,
        timestamps: Sequence[int],
    ) -> None:
        count = len(values)
        if keys is not None:
            if self.keys is None:
                self.keys = [None] * len(self.values)
            self.keys.extend(keys)
            self.size += sum(len(key) for key in keys if key is not None)
        elif self.keys is not None:
            self.keys.extend([None] * count)
        if headers is not None:
            if self.headers is None:
                self.headers = [None] * len(self.values)
            self.headers.extend(headers)
        elif self.headers is not None:
            self.headers.extend([None] * count)
        self.values.extend(values)
        self.timestamps.extend(timestamps)
        if None in values:
            self.size += sum(len(value) for value in values if value is not None)
        else:
            self.size += sum(map(len, values))  # type: ignore[arg-type]

    def on_delivery(self, callback: DeliveryCallback) -> None:
        """Call ``callback`` for the record added last, once it is appended."""
        index = len(self.values) - 1
        self.callbacks.append((index, self.timestamps[index], callback))

    def encode(self, topic: str, partition: int) -> EncodedBatch:
        payload = encode_batch(self.values, self.keys, self.timestamps, self.headers)
        return EncodedBatch(topic, partition, payload, len(self.values), max(self.timestamps), self.callbacks)
