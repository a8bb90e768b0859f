"""Minimal task contexts over plain dicts: the connector contract as a runtime presents it, nothing more."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import (
    OffsetStorageReader,
    SinkTaskContext,
    SourceTaskContext,
    TopicPartition,
    TransactionContext,
)
from conveyor.data import SourceRecord


def _frozen(partition: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(partition.items()))


class DictOffsetStorageReader(OffsetStorageReader):
    """Committed source offsets kept in a dict, keyed by source partition."""

    def __init__(self) -> None:
        self._offsets: dict[tuple[tuple[str, Any], ...], Mapping[str, Any]] = {}

    def commit(self, partition: Mapping[str, Any], offset: Mapping[str, Any]) -> None:
        self._offsets[_frozen(partition)] = dict(offset)

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self._offsets.get(_frozen(partition))


class RecordingTransactionContext(TransactionContext):
    """Remembers the records after which the task asked to commit or abort."""

    def __init__(self) -> None:
        self.commit_requests: list[SourceRecord | None] = []
        self.abort_requests: list[SourceRecord | None] = []

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        self.commit_requests.append(record)

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        self.abort_requests.append(record)


class DictSourceTaskContext(SourceTaskContext):
    def __init__(
        self,
        configs: Mapping[str, str],
        offsets: DictOffsetStorageReader | None = None,
        transactions: TransactionContext | None = None,
        json_unchanged: bool = False,
    ) -> None:
        self._configs = dict(configs)
        self.offsets = offsets or DictOffsetStorageReader()
        self._transactions = transactions
        self._json_unchanged = json_unchanged

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self.offsets

    def transaction_context(self) -> TransactionContext | None:
        return self._transactions

    def writes_json_unchanged(self) -> bool:
        return self._json_unchanged


class DictSinkTaskContext(SinkTaskContext):
    def __init__(self, configs: Mapping[str, str], assignment: set[TopicPartition] | None = None) -> None:
        self._configs = dict(configs)
        self._assignment = set(assignment or ())
        self.paused: set[TopicPartition] = set()
        self.commit_requested = False

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        pass

    def timeout(self, timeout_ms: int) -> None:
        pass

    def assignment(self) -> set[TopicPartition]:
        return set(self._assignment)

    def pause(self, *partitions: TopicPartition) -> None:
        self.paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self.paused.difference_update(partitions)

    def request_commit(self) -> None:
        self.commit_requested = True

    def is_closing(self) -> bool:
        return False
