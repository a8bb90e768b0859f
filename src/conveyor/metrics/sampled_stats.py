"""Windowed statistics as Kafka's metrics library keeps them: a value is recorded into time samples, and
rates, averages, minimums and maximums are read over the samples still inside the window.

Kafka's defaults (`metrics.sample.window.ms` 30 s, `metrics.num.samples` 2) make every rate, average and
maximum cover the last 30 to 60 seconds; a task that stops recording sees its rate fall to zero and its
average become NaN (here None) once its samples age out.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]


@dataclass(frozen=True)
class MetricWindow:
    """How values are sampled: `samples` samples of `sample_s` seconds each (Kafka's defaults)."""

    sample_s: float = 30.0
    samples: int = 2


DEFAULT_WINDOW = MetricWindow()


@dataclass
class _Sample:
    start: float
    count: int = 0
    total: float = 0.0
    max: float = -math.inf
    min: float = math.inf


class SampledStat:
    """Values recorded into rolling time samples; each reading looks only at the samples still in the window.

    One store serves every reading Kafka's `Rate`, `Avg`, `Max` and `Min` give, so a loop records a value
    once per batch whatever it is read as.
    """

    def __init__(self, window: MetricWindow = DEFAULT_WINDOW, clock: Clock = time.monotonic) -> None:
        self._window = window
        self._clock = clock
        self._samples: list[_Sample] = []

    def record(self, value: float) -> None:
        now = self._clock()
        if not self._samples or now - self._samples[-1].start >= self._window.sample_s:
            self._samples.append(_Sample(now))
            del self._samples[: -self._window.samples]
        sample = self._samples[-1]
        sample.count += 1
        sample.total += value
        sample.max = max(sample.max, value)
        sample.min = min(sample.min, value)

    def _live(self, now: float) -> list[_Sample]:
        horizon = self._window.sample_s * self._window.samples
        return [sample for sample in self._samples if now - sample.start < horizon]

    def total(self) -> float:
        """The sum of the values recorded inside the window."""
        return sum(sample.total for sample in self._live(self._clock()))

    def avg(self) -> float | None:
        live = [s for s in self._live(self._clock()) if s.count]
        count = sum(s.count for s in live)
        return sum(s.total for s in live) / count if count else None

    def max(self) -> float | None:
        live = [s for s in self._live(self._clock()) if s.count]
        return max(s.max for s in live) if live else None

    def min(self) -> float | None:
        live = [s for s in self._live(self._clock()) if s.count]
        return min(s.min for s in live) if live else None

    def rate(self) -> float:
        """Per second: the values summed over the window, divided by the window's length as Kafka's `Rate`
        measures it (from the oldest live sample, and never less than all but one full sample)."""
        now = self._clock()
        live = self._live(now)
        elapsed = now - live[0].start if live else 0.0
        full_samples = int(elapsed // self._window.sample_s)
        minimum = self._window.samples - 1
        if full_samples < minimum:
            elapsed += (minimum - full_samples) * self._window.sample_s
        return sum(sample.total for sample in live) / elapsed if elapsed > 0 else 0.0


class Meter:
    """A count kept both as a running total and as a rate over the window, as Kafka's `Meter`."""

    def __init__(self, window: MetricWindow = DEFAULT_WINDOW, clock: Clock = time.monotonic) -> None:
        self.total = 0
        self._stat = SampledStat(window, clock)

    def record(self, count: int) -> None:
        self.total += count
        self._stat.record(count)

    def rate(self) -> float:
        return self._stat.rate()


class TotalRate:
    """The rate of a cumulative total that is reported from elsewhere (a task on an executor): each new
    total records its increase; a total that went down (a new task incarnation) counts from zero."""

    def __init__(self, window: MetricWindow = DEFAULT_WINDOW, clock: Clock = time.monotonic) -> None:
        self._stat = SampledStat(window, clock)
        self._last = 0.0

    def observe(self, total: float) -> None:
        increase = total - self._last if total >= self._last else total
        self._last = total
        if increase > 0:
            self._stat.record(increase)

    def rate(self) -> float:
        return self._stat.rate()
