"""One lock per connector name, so a slow change to one connector never holds up another's."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager


class _ConnectorLock:
    """A re-entrant lock that a weak-valued map can hold (a bare `RLock` takes no weak reference)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()


class ConnectorLocks:
    """Serializes the changes to each connector; a lock lives while anyone holds or waits on it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: weakref.WeakValueDictionary[str, _ConnectorLock] = weakref.WeakValueDictionary()

    @contextmanager
    def holding(self, name: str, timeout_s: float = -1) -> Iterator[None]:
        """Hold the connector's lock; `TimeoutError` if it is not free within `timeout_s` (when given)."""
        with self._guard:
            entry = self._locks.get(name)
            if entry is None:
                entry = _ConnectorLock()
                self._locks[name] = entry
        if not entry.lock.acquire(timeout=timeout_s):
            raise TimeoutError(f"The lock of connector {name} was not free within {timeout_s} s")
        try:
            yield
        finally:
            entry.lock.release()
