"""What a herder is doing, so that a health check can say what it is stuck on (Kafka's `Stage`, KIP-1017).

Every change a herder makes runs as a stage with a description and a start time. A stage still running
after the health check's timeout means the herder is stuck on it; `GET /health` then names it, as
Kafka Connect does: "The worker is currently starting the connector c, which began at ...".
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

HEALTH_CHECK_TIMEOUT_S = 10.0
"""Kafka Connect's health check timeout: a stage running longer than this means the herder is stuck."""


def _instant(epoch_s: float) -> str:
    """An instant as Java's `Instant.toString()` writes it, e.g. 2024-05-01T12:00:00.123Z."""
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Stage:
    description: str
    started: float
    completed: float | None = None

    def summarize(self) -> str:
        if self.completed is not None:
            return (
                f"The last operation the worker completed was {self.description}, which began at "
                f"{_instant(self.started)} and completed at {_instant(self.completed)}."
            )
        return f"The worker is currently {self.description}, which began at {_instant(self.started)}."


class HerderStages:
    """The stages in progress (several at once: changes to different connectors run side by side) and
    the last one completed."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._running: dict[int, Stage] = {}
        self._last: Stage | None = None

    @contextmanager
    def stage(self, description: str) -> Iterator[None]:
        stage = Stage(description, self._clock())
        with self._lock:
            key = next(self._ids)
            self._running[key] = stage
        try:
            yield
        finally:
            with self._lock:
                del self._running[key]
                self._last = Stage(description, stage.started, self._clock())

    def oldest_running(self) -> Stage | None:
        with self._lock:
            return min(self._running.values(), key=lambda s: s.started, default=None)

    def running(self) -> list[Stage]:
        """Every stage in progress, oldest first."""
        with self._lock:
            return sorted(self._running.values(), key=lambda s: s.started)

    def stuck(self, timeout_s: float = HEALTH_CHECK_TIMEOUT_S) -> Stage | None:
        """The oldest stage still running after `timeout_s`, if any."""
        oldest = self.oldest_running()
        return oldest if oldest is not None and self._clock() - oldest.started > timeout_s else None

    def summary(self) -> str | None:
        """What the herder is doing now (its oldest stage), else what it did last."""
        current = self.oldest_running()
        if current is not None:
            return current.summarize()
        with self._lock:
            return self._last.summarize() if self._last is not None else None
