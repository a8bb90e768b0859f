"""Writing config-topic records: plainly, or (the KIP-618 leader) each batch as one fencable transaction."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence

from conveyor.log.api import Log, Producer
from conveyor.log.errors import LogError, ProducerFencedError
from conveyor.storage.errors import PrivilegedWriteError, StorageError

ProducerFactory = Callable[[str | None], Producer]
KeyValue = tuple[bytes, bytes | None]


class ConfigWriter:
    """Sends batches of records to the config topic and waits until the log has them.

    Without a transactional id every write is plain. With one, privileged writes need
    ``claim_write_privileges()`` first (which fences any older leader) and each batch is one transaction;
    a failed transaction gives up the privileges and raises ``PrivilegedWriteError``.
    """

    def __init__(
        self, log: Log, topic: str, transactional_id: str | None, producer_factory: ProducerFactory | None
    ) -> None:
        self._topic = topic
        self._transactional_id = transactional_id
        self._new_producer: ProducerFactory = producer_factory or (
            lambda tid: log.producer(transactional_id=tid)
        )
        self._lock = threading.Lock()
        self._plain_producer: Producer | None = None
        self._fencable_producer: Producer | None = None

    @property
    def uses_fencable_writer(self) -> bool:
        return self._transactional_id is not None

    @property
    def has_write_privileges(self) -> bool:
        return self._fencable_producer is not None or not self.uses_fencable_writer

    def claim_write_privileges(self) -> None:
        """Create the transactional producer and fence older holders of the id (no-op without an id)."""
        with self._lock:
            if self._transactional_id is None or self._fencable_producer is not None:
                return
            producer = self._new_producer(self._transactional_id)
            try:
                producer.init_transactions()
            except LogError as error:
                producer.close()
                raise StorageError(
                    f"Could not claim write privileges on config topic {self._topic} with transactional id "
                    f"{self._transactional_id}: {error}"
                ) from error
            self._fencable_producer = producer

    def relinquish_write_privileges(self) -> None:
        with self._lock:
            self._close_fencable()

    def send_privileged(self, records: Sequence[KeyValue]) -> None:
        """Write ``records`` in order; as one transaction when this worker writes as the KIP-618 leader."""
        if self._transactional_id is None:
            self.send_plain(records)
            return
        with self._lock:
            producer = self._fencable_producer
            if producer is None:
                raise StorageError(
                    f"Cannot write to config topic {self._topic} without claiming write privileges first"
                )
            try:
                producer.begin_transaction()
                for key, value in records:
                    producer.send(self._topic, value, key=key)
                producer.commit_transaction()
            except LogError as error:
                self._close_fencable()
                fenced = isinstance(error, ProducerFencedError)
                reason = "it was fenced by a newer leader" if fenced else str(error)
                raise PrivilegedWriteError(
                    f"Failed to write to config topic {self._topic} with transactional id "
                    f"{self._transactional_id}; the worker lost its write privileges: {reason}"
                ) from error

    def send_plain(self, records: Sequence[KeyValue]) -> None:
        """Write ``records`` in order without a transaction (target states may be written by any worker)."""
        with self._lock:
            if self._plain_producer is None:
                self._plain_producer = self._new_producer(None)
            try:
                for key, value in records:
                    self._plain_producer.send(self._topic, value, key=key)
                self._plain_producer.flush()
            except LogError as error:
                raise StorageError(f"Failed to write to config topic {self._topic}: {error}") from error

    def close(self) -> None:
        with self._lock:
            self._close_fencable()
            if self._plain_producer is not None:
                self._plain_producer.close()
                self._plain_producer = None

    def _close_fencable(self) -> None:
        producer, self._fencable_producer = self._fencable_producer, None
        if producer is not None:
            with contextlib.suppress(LogError):
                producer.close()
