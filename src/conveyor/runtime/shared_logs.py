"""Logs shared by the tasks of one process: tasks on the same log URL open it once.

A task host runs many tasks as threads of one process. Each opening its own log gave every task on Kafka
an admin client of its own: a librdkafka instance with five threads and its buffers, about a third of
what an idle sink task held. Tasks on one URL (which carries the connector's client settings) now share
one log and so one admin client; the log closes when its last task leaves it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from conveyor.log import Log, open_log


@dataclass
class _Shared:
    log: Log
    users: int = 0


class SharedLogs:
    """Open logs by URL, each with the number of tasks using it."""

    def __init__(self, opener: Callable[[str], Log] = open_log) -> None:
        self._opener = opener
        self._lock = threading.Lock()
        self._logs: dict[str, _Shared] = {}

    @contextmanager
    def open(self, url: str) -> Iterator[Log]:
        """The log `url` names, opened by the first task that asks and closed after the last one leaves."""
        with self._lock:
            shared = self._logs.get(url)
            if shared is None:
                shared = self._logs[url] = _Shared(self._opener(url))
            shared.users += 1
        try:
            yield shared.log
        finally:
            with self._lock:
                shared.users -= 1
                last = shared.users == 0
                if last:
                    del self._logs[url]
            if last:
                shared.log.close()

    def users(self, url: str) -> int:
        """How many tasks use the log `url` names now (0 when it is not open)."""
        with self._lock:
            shared = self._logs.get(url)
            return 0 if shared is None else shared.users


PROCESS_LOGS = SharedLogs()
"""The logs of this process's tasks."""
