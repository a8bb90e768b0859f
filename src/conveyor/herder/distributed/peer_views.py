"""What a worker learns of its peers: the metrics of the tasks they run, and their machine usage.

A task's counters live on the worker running it. To answer any status with every task's counters, a
worker asks each peer that runs one for its view (`GET /conveyor/internal/worker`, signed as every
internal request). A view is kept `fresh_s` so that a page of statuses costs one request per peer, and
a peer is waited for at most `timeout_s`: one that does not answer shows its tasks' metrics as unknown,
and is asked again only after `retry_s`, so a dead or frozen peer costs one bounded wait, not one per
request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from conveyor.herder.distributed.internal_client import InternalRequestError
from conveyor.metrics.worker_usage import WorkerUsage
from conveyor.runtime.task_spec import TaskId

NOT_FOUND = 404
KAFKA_CONNECT_PEER = "serves no Conveyor worker view: a Kafka Connect worker keeps its task metrics in JMX"
"""Why a member of a group shared with Kafka Connect has no view: it answers 404 to the request."""

PEER_TIMEOUT_S = 2.0
FRESH_S = 1.0
RETRY_S = 10.0
FETCH_THREADS = 8


@dataclass(frozen=True)
class WorkerView:
    """What one worker tells its peers of itself: its tasks' metrics, its usage, and (the leader) the
    URLs of the group's members."""

    tasks: dict[TaskId, dict[str, Any]]
    usage: WorkerUsage
    members: tuple[str, ...] = ()

    @property
    def worker_id(self) -> str:
        return self.usage.worker_id

    def to_json(self) -> dict[str, Any]:
        return {
            "worker_id": self.worker_id,
            "tasks": [
                {"connector": task.connector, "task": task.task, "metrics": metrics}
                for task, metrics in self.tasks.items()
            ],
            "usage": self.usage.to_json(),
            "members": list(self.members),
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> WorkerView:
        """A peer's view (raises KeyError, TypeError or ValueError if the body is not one)."""
        tasks = {
            TaskId(str(entry["connector"]), int(entry["task"])): dict(entry["metrics"])
            for entry in body["tasks"]
        }
        return cls(tasks, WorkerUsage.from_json(body["usage"]), tuple(str(url) for url in body["members"]))


@dataclass(frozen=True)
class PeerAnswer:
    """A peer's view, or why there is none, as of `at` (monotonic seconds)."""

    view: WorkerView | None
    error: str | None
    at: float


class PeerViews:
    """Asks peers for their views in parallel, each at most once per `fresh_s` (`retry_s` after a failure)."""

    def __init__(
        self,
        fetch: Callable[[str, float], Mapping[str, Any]],
        timeout_s: float = PEER_TIMEOUT_S,
        fresh_s: float = FRESH_S,
        retry_s: float = RETRY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`fetch(url, timeout_s)` is the body of the peer's view at `url`, or raises why not."""
        self._fetch = fetch
        self.timeout_s = timeout_s
        self.fresh_s = fresh_s
        self.retry_s = retry_s
        self._clock = clock
        self._answers: dict[str, PeerAnswer] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(FETCH_THREADS, thread_name_prefix="peer-views")

    def views(self, urls: Iterable[str]) -> dict[str, PeerAnswer]:
        """Each peer's answer, asking those whose last answer is too old, all at once."""
        pending = {url: self._pool.submit(self.view, url) for url in set(urls)}
        return {url: future.result() for url, future in pending.items()}

    def view(self, url: str) -> PeerAnswer:
        """The peer's last answer if recent enough, else a new one; one request at a time per peer."""
        with self._lock:
            lock = self._locks.setdefault(url, threading.Lock())
        with lock:
            answer = self._answers.get(url)
            if answer is not None and self._clock() - answer.at < (
                self.fresh_s if answer.view is not None else self.retry_s
            ):
                return answer
            answer = self._ask(url)
            with self._lock:
                self._answers[url] = answer
            return answer

    def _ask(self, url: str) -> PeerAnswer:
        try:
            view = WorkerView.from_json(self._fetch(url, self.timeout_s))
        except (KeyError, TypeError, ValueError) as error:
            return PeerAnswer(None, f"{url} sent no worker view: {error!r}", self._clock())
        except InternalRequestError as error:
            if error.status != NOT_FOUND:
                return PeerAnswer(None, str(error), self._clock())
            return PeerAnswer(None, f"{url} {KAFKA_CONNECT_PEER}", self._clock())
        except Exception as error:
            return PeerAnswer(None, str(error), self._clock())
        return PeerAnswer(view, None, self._clock())

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
