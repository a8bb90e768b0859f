"""A worker's status writes that outlive a status topic out of reach: kept, and written again once it answers.

A write that fails (the log down longer than its clients retry) would otherwise be lost, and the status
topic would go on saying what was true before, e.g. RUNNING for a task that failed meanwhile. Only the
latest status of each connector or task is kept; a newer write, or forgetting it (its work stopped on this
worker, so that a status of a deleted or moved connector never comes back), drops one still waiting.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from conveyor.log.errors import LogError
from conveyor.storage import Status, StatusStore
from conveyor.storage.errors import StorageError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class StatusKey:
    """A connector's status (``task`` None) or one of its tasks'."""

    connector: str
    task: int | None = None

    def __str__(self) -> str:
        return self.connector if self.task is None else f"{self.connector}-{self.task}"


class StatusWrites:
    """Writes statuses safely (never over a newer generation's) and keeps those that failed for `retry`."""

    def __init__(self, store: StatusStore) -> None:
        self._store = store
        self._unwritten: dict[StatusKey, Status] = {}
        self._lock = threading.Lock()
        """Held across each write, so that a retried status never lands after a newer one."""

    def put(self, key: StatusKey, status: Status) -> None:
        with self._lock:
            self._unwritten.pop(key, None)
            self._write(key, status)

    def keep(self, key: StatusKey, status: Status) -> None:
        """Keep a status another writer could not write, for `retry` (unless a newer one is kept)."""
        with self._lock:
            self._unwritten.setdefault(key, status)

    def forget(self, key: StatusKey) -> None:
        """Drop the status of `key` that waits to be written: its work stopped here."""
        with self._lock:
            self._unwritten.pop(key, None)

    def unwritten(self) -> dict[StatusKey, Status]:
        with self._lock:
            return dict(self._unwritten)

    def retry(self) -> None:
        """Write again each status whose write failed, until one fails again (the topic is still away)."""
        with self._lock:
            for key, status in list(self._unwritten.items()):
                if not self._write(key, status):
                    return
                logger.info("Wrote the status of %s (%s) that could not be written before", key, status.state)

    def _write(self, key: StatusKey, status: Status) -> bool:
        try:
            if key.task is None:
                self._store.put_connector(key.connector, status, safe=True)
            else:
                self._store.put_task(key.connector, key.task, status, safe=True)
        except (StorageError, LogError) as error:
            if key not in self._unwritten:
                logger.warning(
                    "Could not write the status of %s (%s); it is written again once the status topic "
                    "answers: %s",
                    key,
                    status.state,
                    error,
                )
            self._unwritten[key] = status
            return False
        self._unwritten.pop(key, None)
        return True
