"""The snapshot's batches built ahead in a thread of their own: the task reads PostgreSQL's next page and
builds the next batch's records while the runtime writes and commits the batch ``poll`` returned, instead
of waiting for that commit first. Nothing reaches the runtime other than through ``poll``, in order, so
the records and their offsets are those of reading in ``poll``."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from conveyor.errors import ConnectError

T = TypeVar("T")

AHEAD: Final = 1
"""Batches kept ready beyond the one being built."""
_WAKE_S: Final = 0.1
"""How often a blocked side looks whether the other has stopped."""
_JOIN_S: Final = 30.0
"""How long closing waits for the reading thread to leave its current page."""


class SnapshotStopped(ConnectError):
    """The snapshot's reading was closed (the task stopping) while ``poll`` waited for its next batch."""


@dataclass(frozen=True)
class _End:
    error: BaseException | None = None


class Prefetched(Generic[T]):
    """The items of ``source``, produced in a daemon thread that starts at the first ``next`` and stays
    :data:`AHEAD` items ahead; an error raised by ``source`` is raised by the ``next`` that reaches it."""

    def __init__(self, source: Iterator[T], name: str) -> None:
        self._source = source
        self._name = name
        self._items: queue.Queue[T | _End] = queue.Queue(maxsize=AHEAD)
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._ended = False

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        if self._ended:
            raise StopIteration
        if self._stopped.is_set():
            raise SnapshotStopped("The snapshot's reading was stopped")
        if self._thread is None:
            self._thread = threading.Thread(target=self._produce, name=self._name, daemon=True)
            self._thread.start()
        while True:
            try:
                item = self._items.get(timeout=_WAKE_S)
                break
            except queue.Empty:
                if self._stopped.is_set():
                    raise SnapshotStopped("The snapshot's reading was stopped") from None
        if isinstance(item, _End):
            self._ended = True
            self._thread.join(_JOIN_S)
            if item.error is not None:
                raise item.error
            raise StopIteration
        return item

    def close(self) -> None:
        """Stop producing and wait for the thread to leave ``source`` (closed in that thread); a ``next``
        waiting meanwhile raises :class:`SnapshotStopped`."""
        self._stopped.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_S)

    def _produce(self) -> None:
        try:
            for item in self._source:
                if not self._put(item):
                    return
            self._put(_End())
        except BaseException as error:
            self._put(_End(error))
        finally:
            close = getattr(self._source, "close", None)
            if close is not None:
                close()

    def _put(self, item: T | _End) -> bool:
        """Hand ``item`` over once there is room; False when closed first."""
        while not self._stopped.is_set():
            try:
                self._items.put(item, timeout=_WAKE_S)
                return True
            except queue.Full:
                continue
        return False
