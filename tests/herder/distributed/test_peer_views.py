"""Asking peers for their views: each at most once while its answer is fresh, a failed one left alone
for longer, and a peer that does not answer reported with why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.herder.distributed.internal_client import InternalRequestError
from conveyor.herder.distributed.peer_views import PeerViews, WorkerView
from conveyor.metrics.worker_usage import SlotUsage, WorkerUsage
from conveyor.runtime.task_spec import TaskId

URL = "http://peer:8083/"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def view_of(written: int) -> WorkerView:
    usage = WorkerUsage("peer:8083", 1 << 30, 12.5, 4, SlotUsage(2, 1, 0), "http://peer:4040")
    return WorkerView({TaskId("c", 0): {"source-record-write-total": written}}, usage, ("http://a:1/",))


class Peer:
    """A peer answering with its view, or raising `error` if set; counts the times it was asked."""

    def __init__(self) -> None:
        self.asked = 0
        self.written = 0
        self.error: Exception | None = None

    def __call__(self, url: str, timeout_s: float) -> Mapping[str, Any]:
        self.asked += 1
        if self.error is not None:
            raise self.error
        return view_of(self.written).to_json()


def test_a_view_travels_as_json_unchanged() -> None:
    assert WorkerView.from_json(view_of(5).to_json()) == view_of(5)


def test_a_fresh_answer_is_reused_and_an_old_one_asked_again() -> None:
    peer, clock = Peer(), Clock()
    views = PeerViews(peer, fresh_s=1.0, clock=clock)
    peer.written = 5
    views.view(URL)
    peer.written = 9
    assert views.view(URL).view == view_of(5)
    clock.now += 1.5
    assert views.view(URL).view == view_of(9)
    assert peer.asked == 2


def test_a_peer_that_fails_is_reported_with_why_and_asked_again_only_after_the_retry_delay() -> None:
    peer, clock = Peer(), Clock()
    views = PeerViews(peer, fresh_s=1.0, retry_s=10.0, clock=clock)
    peer.error = ConnectionRefusedError("connection refused")
    failed = views.views([URL])[URL]
    assert failed.view is None and "connection refused" in str(failed.error)
    peer.error = None
    clock.now += 5
    assert views.view(URL).view is None
    clock.now += 6
    assert views.view(URL).view == view_of(0)
    assert peer.asked == 2


def test_a_body_that_is_not_a_view_is_a_failure_naming_the_peer() -> None:
    views = PeerViews(lambda url, timeout_s: {"unexpected": True})
    answer = views.view(URL)
    assert answer.view is None and URL in str(answer.error)


def test_a_peer_without_a_worker_view_is_reported_as_a_kafka_connect_worker() -> None:
    peer = Peer()
    peer.error = InternalRequestError("HTTP 404: Not Found", 404)
    answer = PeerViews(peer).view(URL)
    assert answer.view is None
    assert (
        answer.error
        == f"{URL} serves no Conveyor worker view: a Kafka Connect worker keeps its task metrics in JMX"
    )
