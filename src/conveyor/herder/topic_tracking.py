"""Topic tracking (KIP-558): the topics each connector's tasks produce to or consume from, kept in the
status topic so that `GET /connectors/{c}/topics` answers the same on every worker.

Tasks run on executors and report the topics they used with their metrics; the worker records a topic
status the first time one of its tasks reports a topic, as Kafka's `WorkerTask.recordActiveTopic` does
from the task's own thread.
"""

from __future__ import annotations

import logging
import threading
import time

from conveyor.errors import ConnectError
from conveyor.metrics.task_metrics import ACTIVE_TOPICS_METRIC
from conveyor.runtime.worker import Worker
from conveyor.storage.status_records import TopicStatus
from conveyor.storage.status_store import StatusStore

logger = logging.getLogger(__name__)

#: How often the worker looks at its tasks' reports for topics it has not recorded yet.
TRACKING_INTERVAL_S = 1.0


class TopicTracker:
    """Records the topics this worker's tasks report, each once per connector, until stopped."""

    def __init__(
        self, statuses: StatusStore, worker: Worker, interval_s: float = TRACKING_INTERVAL_S
    ) -> None:
        self._statuses = statuses
        self._worker = worker
        self._interval_s = interval_s
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="topic-tracker", daemon=True)
        self._recorded: set[tuple[str, int, str]] = set()
        """What each task here has had recorded, as Kafka's task keeps its active topics: a topic reset
        while the task runs stays reset until the task starts again."""

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()

    def record_reported_topics(self) -> None:
        """Write a topic status for each topic a task here reported that it has not had recorded yet."""
        reported = {
            (task.connector, task.task, topic)
            for task in self._worker.connect_metrics().tasks
            for topic in task.values.get(ACTIVE_TOPICS_METRIC, ())
        }
        for connector, task, topic in sorted(reported - self._recorded):
            self._statuses.put_topic(TopicStatus(topic, connector, task, int(time.time() * 1000)))
            self._recorded.add((connector, task, topic))
        self._recorded &= reported

    def _run(self) -> None:
        while not self._stopping.wait(self._interval_s):
            try:
                self.record_reported_topics()
            except ConnectError as error:
                logger.warning("Could not record the topics tasks used: %s", error)
