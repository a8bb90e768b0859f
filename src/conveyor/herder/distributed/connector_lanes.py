"""Per-connector lanes: what the herder does to one connector (start, stop, ask for task configs) runs
off its work thread, in the order the herder asked for it, one thing at a time per connector; different
connectors' lanes run side by side. A lane's thread is a daemon that ends once its lane is empty."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")


class ConnectorLanes:
    """Runs each connector's actions in order on a thread of that connector's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lanes: dict[str, deque[tuple[Callable[[], Any], Future[Any]]]] = {}

    def submit(self, name: str, action: Callable[[], T]) -> Future[T]:
        """Queue `action` behind what is queued for connector `name`; its future completes with its
        result or error."""
        future: Future[T] = Future()
        with self._lock:
            lane = self._lanes.get(name)
            start = lane is None
            if lane is None:
                lane = self._lanes[name] = deque()
            lane.append((action, future))
        if start:
            threading.Thread(target=self._run, args=(name,), name=f"herder-lane-{name}", daemon=True).start()
        return future

    def _run(self, name: str) -> None:
        while True:
            with self._lock:
                lane = self._lanes[name]
                if not lane:
                    del self._lanes[name]
                    return
                action, future = lane.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(action())
            except BaseException as error:
                logger.debug("An action for connector %s failed", name, exc_info=error)
                future.set_exception(error)
