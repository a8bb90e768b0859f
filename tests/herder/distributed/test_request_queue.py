"""The herder thread's queue: requests run by due time, then in the order they came."""

from __future__ import annotations

import time

import pytest

from conveyor.errors import ConnectError
from conveyor.herder.distributed.request_queue import RequestQueue


def test_requests_due_at_once_come_out_in_the_order_they_were_added() -> None:
    queue = RequestQueue()
    for name in ("a", "b", "c"):
        queue.add(lambda name=name: name)
    now = time.monotonic()
    taken = [queue.pop_due(now), queue.pop_due(now), queue.pop_due(now)]
    assert [request.action() for request in taken if request is not None] == ["a", "b", "c"]


def test_a_delayed_request_waits_behind_later_ones_that_are_due() -> None:
    queue = RequestQueue()
    queue.add(lambda: "later", delay_s=60)
    queue.add(lambda: "now")
    request = queue.pop_due(time.monotonic())
    assert request is not None and request.action() == "now"
    assert queue.pop_due(time.monotonic()) is None


def test_adding_a_request_says_whether_it_is_now_the_first_due() -> None:
    queue = RequestQueue()
    _, first = queue.add(lambda: None, delay_s=60)
    _, sooner = queue.add(lambda: None)
    _, behind = queue.add(lambda: None, delay_s=30)
    assert (first, sooner, behind) == (True, True, False)


def test_the_wait_is_until_the_next_request_is_due_and_never_longer_than_asked() -> None:
    queue = RequestQueue()
    now = time.monotonic()
    assert queue.wait_s(now, 1.0) == 1.0
    queue.add(lambda: None, delay_s=60)
    assert queue.wait_s(now, 1.0) == 1.0
    queue.add(lambda: None)
    assert queue.wait_s(time.monotonic(), 1.0) == 0.0


def test_failing_all_requests_completes_each_future_with_the_error() -> None:
    queue = RequestQueue()
    request, _ = queue.add(lambda: None)
    queue.fail_all(ConnectError("Worker is shutting down"))
    with pytest.raises(ConnectError, match="shutting down"):
        request.future.result(0)
