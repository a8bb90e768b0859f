"""How busy a task host's process keeps a core: its CPU seconds over the last seconds, as its tasks report.

Each task's heartbeat carries its host's name and the CPU seconds its process has used so far
(`time.process_time()`: every thread, librdkafka's too). The worker keeps a few of those readings per
host, at least a second apart, and tells from them the share of a core the host used over about the last
`WINDOW_S` seconds. `task.placement=cores` starts another host only while the hosts it has are busy.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field

WINDOW_S = 10.0
"""How far back a host's share of a core is measured."""
SAMPLE_EVERY_S = 1.0
"""The least time between two readings kept (a host of many tasks reports once a second per task)."""
BUSY_SHARE = 0.25
"""A host that used a quarter of a core or more is busy: a task that wants a whole core gets a quarter of
one even on a machine loaded four times over its cores, while an idle host's tasks (a few records a
second) use a few hundredths."""


@dataclass
class HostCpu:
    """The readings of one host's CPU seconds, oldest first, kept for about `WINDOW_S` seconds."""

    readings: collections.deque[tuple[float, float]] = field(default_factory=collections.deque)

    def add(self, now: float, cpu_seconds: float) -> None:
        """Keep a reading taken at monotonic time `now`, if the last kept one is a second old."""
        if self.readings and now - self.readings[-1][0] < SAMPLE_EVERY_S:
            return
        if self.readings and cpu_seconds < self.readings[-1][1]:
            self.readings.clear()
        self.readings.append((now, cpu_seconds))
        while len(self.readings) > 2 and now - self.readings[1][0] >= WINDOW_S:
            self.readings.popleft()

    def share(self) -> float | None:
        """The share of one core the host used between its oldest and newest readings; None before two."""
        if len(self.readings) < 2:
            return None
        (first, first_cpu), (last, last_cpu) = self.readings[0], self.readings[-1]
        return (last_cpu - first_cpu) / (last - first)

    def busy(self) -> bool:
        """Whether the host used `BUSY_SHARE` of a core or more; a host not measured yet is not busy."""
        share = self.share()
        return share is not None and share >= BUSY_SHARE
