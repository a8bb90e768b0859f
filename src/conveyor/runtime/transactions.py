"""Connector-defined transaction boundaries: the runtime's side of `TransactionContext` (KIP-618)."""

from __future__ import annotations

import logging

from conveyor.api import TransactionContext
from conveyor.data import ConnectError, SourceRecord

logger = logging.getLogger(__name__)


class TransactionRequests(TransactionContext):
    """Collects the task's commit and abort requests, for the batch and for single records."""

    def __init__(self) -> None:
        self._commit_batch = False
        self._abort_batch = False
        self._commit_records: set[int] = set()
        self._abort_records: set[int] = set()

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        if record is None:
            self._commit_batch = True
        else:
            self._commit_records.add(id(record))

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        if record is None:
            self._abort_batch = True
        else:
            self._abort_records.add(id(record))

    @property
    def has_record_requests(self) -> bool:
        return bool(self._commit_records or self._abort_records)

    def should_abort_on(self, record: SourceRecord) -> bool:
        key = id(record)
        if key in self._abort_records and key in self._commit_records:
            raise ConnectError(
                "Connector requested both commit and abort of same record against topic/partition "
                f"{record.topic}/{record.kafka_partition}"
            )
        if key in self._abort_records:
            self._abort_records.discard(key)
            return True
        return False

    def should_commit_on(self, record: SourceRecord) -> bool:
        key = id(record)
        if key in self._commit_records:
            self._commit_records.discard(key)
            return True
        return False

    def take_batch_request(self) -> str | None:
        """'abort', 'commit' or None for the batch just processed; both flags reset once read."""
        commit, abort = self._commit_batch, self._abort_batch
        self._commit_batch = self._abort_batch = False
        if commit and abort:
            raise ConnectError("Connector requested both commit and abort of same transaction")
        if abort:
            return "abort"
        return "commit" if commit else None
