"""Something started and stopped, that a ``with`` block starts on entry and closes on exit."""

from __future__ import annotations

import contextlib
import signal
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from types import TracebackType
from typing import Self, TypeVar


class Service(ABC):
    """A process or server Conveyor starts: ``with`` starts it and, whatever happens, closes it."""

    @abstractmethod
    def start(self) -> object:
        """Start, returning once it serves."""

    @abstractmethod
    def stop(self) -> None:
        """Stop; it may be started again."""

    def close(self) -> None:
        """Stop for good; by default only stop."""
        self.stop()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


S = TypeVar("S", bound=Service)


def serve_until_stopped(service: S, banner: Callable[[S], str]) -> None:
    """Start ``service``, print ``banner(service)``, and serve until SIGTERM or Ctrl-C; then close it."""
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    with service:
        print(banner(service), flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            stopping.wait()
