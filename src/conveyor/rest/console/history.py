"""The console's history: records/s and lag of every connector, sampled on the worker for the last hour.

A ring buffer of samples taken every few seconds from the connectors' statuses, so a console opened now
draws the past hour instead of starting empty. It also counts the failures it saw of each task, which
the console shows beside a failing connector with the next restart the worker's backoff schedules.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conveyor.herder.api import Herder
from conveyor.herder.entities import ConnectorStateInfo, TaskState

logger = logging.getLogger(__name__)

SAMPLE_INTERVAL_S = 5.0
WINDOW_S = 3600.0

#: The counter of records moved under the names a task's loop reports (a Spark sink counts rows).
MOVED_METRICS: Mapping[str, Sequence[str]] = {
    "source": ("records-written", "source-record-write-total"),
    "sink": ("records-put", "rows-read", "sink-record-send-total"),
}
LAG_METRICS = ("records-lag", "lag")
FAILED = "FAILED"


@dataclass(frozen=True, slots=True)
class ConnectorSample:
    """One connector at one sample: records/s since the previous one, and a sink's lag (None: a source)."""

    rate: float
    lag: float | None


@dataclass(frozen=True, slots=True)
class Sample:
    """Every connector at time `t` (ms since the epoch)."""

    t: int
    connectors: dict[str, ConnectorSample]

    def to_json(self) -> dict[str, Any]:
        return {
            "t": self.t,
            "connectors": {name: {"rate": c.rate, "lag": c.lag} for name, c in self.connectors.items()},
        }


@dataclass(slots=True)
class TaskFailures:
    """The failures the sampler saw of one task: how many, and when the last was first seen (ms)."""

    count: int = 0
    last_seen_ms: int = 0
    failed: bool = False


@dataclass(slots=True)
class _Moved:
    """The records each task had moved at `t`, of the tasks whose metrics were known then."""

    t: int
    records: dict[int, float]


def _sum(tasks: Iterable[TaskState], metric: str) -> float:
    return sum(float(task.metrics.get(metric) or 0) for task in tasks)


def _present(tasks: Sequence[TaskState], names: Sequence[str]) -> str:
    return next((name for name in names if any(name in task.metrics for task in tasks)), names[0])


def records_moved(status: ConnectorStateInfo) -> dict[int, float]:
    """Per task, the records a source's task wrote to the log or a sink's put into its system; a task
    whose metrics are unknown (its worker did not answer) is left out rather than counted as 0."""
    known = [task for task in status.tasks if task.metrics_unavailable is None]
    name = _present(known, MOVED_METRICS.get(status.type, MOVED_METRICS["source"]))
    return {task.id: float(task.metrics.get(name) or 0) for task in known}


def records_lagging(status: ConnectorStateInfo) -> float | None:
    """A sink's records past its positions in its partitions; a source's end is unknown: None."""
    if status.type != "sink":
        return None
    known = [task for task in status.tasks if task.metrics_unavailable is None]
    return _sum(known, _present(known, LAG_METRICS))


@dataclass
class ConsoleHistory:
    """Samples of every connector over the last `window_s`, one every `interval_s`, and failures seen."""

    interval_s: float = SAMPLE_INTERVAL_S
    window_s: float = WINDOW_S
    samples: deque[Sample] = field(init=False)
    failures: dict[tuple[str, int], TaskFailures] = field(default_factory=dict)
    _moved: dict[str, _Moved] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.samples = deque(maxlen=max(1, round(self.window_s / self.interval_s)))

    def record(self, t_ms: int, statuses: Mapping[str, ConnectorStateInfo]) -> Sample:
        """Add the sample of `statuses` taken at `t_ms`. The rate sums the tasks known at both samples;
        a task's counter that drops (a restart) counts 0."""
        connectors: dict[str, ConnectorSample] = {}
        with self._lock:
            for name, status in statuses.items():
                moved = records_moved(status)
                before = self._moved.get(name)
                rate = 0.0
                if before is not None and t_ms > before.t:
                    grown = sum(
                        max(0.0, records - before.records[task])
                        for task, records in moved.items()
                        if task in before.records
                    )
                    rate = grown / ((t_ms - before.t) / 1000)
                self._moved[name] = _Moved(t_ms, moved)
                connectors[name] = ConnectorSample(rate, records_lagging(status))
                self._count_failures(t_ms, name, status.tasks)
            for gone in self._moved.keys() - statuses.keys():
                del self._moved[gone]
            self.failures = {key: seen for key, seen in self.failures.items() if key[0] in statuses}
            sample = Sample(t_ms, connectors)
            self.samples.append(sample)
        return sample

    def _count_failures(self, t_ms: int, name: str, tasks: Iterable[TaskState]) -> None:
        for task in tasks:
            seen = self.failures.setdefault((name, task.id), TaskFailures())
            failed = task.state == FAILED
            if failed and not seen.failed:
                seen.count += 1
                seen.last_seen_ms = t_ms
            seen.failed = failed

    def since(self, t_ms: int = 0) -> list[Sample]:
        """The samples taken after `t_ms`, oldest first."""
        with self._lock:
            return [sample for sample in self.samples if sample.t > t_ms]

    def task_failures(self) -> dict[tuple[str, int], TaskFailures]:
        with self._lock:
            return {key: TaskFailures(v.count, v.last_seen_ms, v.failed) for key, v in self.failures.items()}


def sample_statuses(herder: Herder) -> dict[str, ConnectorStateInfo]:
    """Every connector's status; one deleted meanwhile is left out."""
    statuses: dict[str, ConnectorStateInfo] = {}
    for name in herder.connectors():
        try:
            statuses[name] = herder.cluster_status(name)
        except Exception:
            logger.debug("No status of %s for the console's history", name, exc_info=True)
    return statuses


class HistorySampler:
    """Samples `herder` into a `ConsoleHistory` on a daemon thread, until `stop` or the owner is collected."""

    def __init__(self, herder: Herder, history: ConsoleHistory) -> None:
        self.herder = herder
        self.history = history
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="console-history", daemon=True)

    def start(self, owner: object | None = None) -> None:
        """Start sampling; with `owner`, sampling ends once it is collected (an app no longer served)."""
        if owner is not None:
            weakref.finalize(owner, self._stopped.set)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def sample_once(self) -> None:
        """Take one sample; a herder that cannot answer now costs this sample, never the sampler."""
        try:
            if not self.herder.ready():
                return
            statuses = sample_statuses(self.herder)
            self.history.record(int(time.time() * 1000), statuses)
        except Exception:
            logger.debug("The console's history skipped a sample", exc_info=True)

    def _run(self) -> None:
        while not self._stopped.is_set():
            self.sample_once()
            self._stopped.wait(self.history.interval_s)
