"""Holding a producer to a steady rate measured from its first record."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

_ROUNDING_SLACK = 1e-9


class RatePacer:
    """Grants records at ``rate`` per second on average since the first grant.

    A producer that fell behind (because the runtime was busy) may catch up in a burst, so that the
    average over the run is the configured rate.
    """

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0:
            raise ValueError(f"rate must be positive, not {rate}")
        self._rate = rate
        self._clock = clock
        self._started: float | None = None
        self._granted = 0

    def seconds_until_due(self) -> float:
        """How long until the next record may be produced; 0 when it may be produced now."""
        if self._started is None:
            return 0.0
        due_at = self._started + self._granted / self._rate
        return max(0.0, due_at - self._clock())

    def grant(self, wanted: int) -> int:
        """How many of ``wanted`` records may be produced now (possibly 0); they count as produced."""
        now = self._clock()
        if self._started is None:
            self._started = now
        allowed = math.floor((now - self._started) * self._rate + _ROUNDING_SLACK) + 1 - self._granted
        granted = max(0, min(wanted, allowed))
        self._granted += granted
        return granted
