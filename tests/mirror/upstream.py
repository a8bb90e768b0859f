"""A writer that keeps appending numbered, transactional records to the source cluster while a test runs."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Self

from conveyor.log import Log

from .replication import produce


class UpstreamWriter:
    """Appends ``per_round`` records to each partition every ``every_s``, until stopped."""

    def __init__(
        self, log: Log, topic: str, partitions: int, per_round: int = 20, every_s: float = 0.05
    ) -> None:
        self.log, self.topic, self.partitions = log, topic, partitions
        self.per_round, self.every_s = per_round, every_s
        self.written_per_partition = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="upstream-writer", daemon=True)

    def _run(self) -> None:
        while not self._stopping.wait(self.every_s):
            produce(
                self.log, self.topic, self.partitions, self.written_per_partition, self.per_round, "upstream"
            )
            self.written_per_partition += self.per_round

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> int:
        """Stop writing; the number of records written in all."""
        self._stopping.set()
        self._thread.join()
        return self.written_per_partition * self.partitions

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
