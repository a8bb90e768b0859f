"""librdkafka's log lines, through Python logging, each kind of line at most once a minute.

Every client of a worker retries a broker it cannot reach, and librdkafka logs each failed attempt: with
the broker down a worker wrote thousands of identical "Connect to ... failed" lines a minute. Here a line
that repeats one written less than ``REPEAT_INTERVAL_S`` ago (whichever client wrote it) is held back, and
the next one let through says how many were.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Mapping

REPEAT_INTERVAL_S = 60.0
_MAX_KINDS = 1_000
_VARYING = re.compile(r"\d+ms\b|#(?:producer|consumer)-\d+")
"""What differs between two lines about the same thing: the time an attempt took, the client's number."""


class RepeatedLines(logging.Filter):
    """Lets one line of a kind through per ``interval_s``; the next one let through counts the rest."""

    def __init__(self, interval_s: float = REPEAT_INTERVAL_S, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self._interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._kinds: dict[tuple[int, str], tuple[float, int]] = {}
        """Per kind of line: when one was last let through, and how many were held back since."""

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.levelno, _VARYING.sub("#", record.getMessage()))
        now = self._clock()
        with self._lock:
            shown, held = self._kinds.get(kind, (None, 0))
            if shown is not None and now - shown < self._interval_s:
                self._kinds[kind] = (shown, held + 1)
                return False
            if len(self._kinds) >= _MAX_KINDS:
                self._forget_older_than(now - self._interval_s)
            self._kinds[kind] = (now, 0)
        if held:
            record.msg = f"{record.getMessage()} ({held} more like this in the last {self._interval_s:.0f} s)"
            record.args = ()
        return True

    def _forget_older_than(self, instant: float) -> None:
        self._kinds = {kind: seen for kind, seen in self._kinds.items() if seen[0] >= instant}


CLIENT_LOGGER = logging.getLogger("conveyor.log.kafka.librdkafka")
CLIENT_LOGGER.addFilter(RepeatedLines())


def with_client_logger(config: Mapping[str, object]) -> dict[str, object]:
    """A client's librdkafka settings with its log lines sent to ``CLIENT_LOGGER`` (not to stderr)."""
    return {**config, "logger": CLIENT_LOGGER}
