"""A task host's memory watchdog (`task.memory.limit`): over the limit, the host's task threads fail with a
`MemoryError` that names the limit and the key; a thread that will not stop has its host ended."""

from __future__ import annotations

import threading
from collections.abc import Callable

from conveyor.metrics.process_memory import resident_bytes
from conveyor.spark.memory_watchdog import MemoryWatchdog

WAIT_S = 120.0
CHUNK = 4 * 1024 * 1024


def _allocating(
    stop: threading.Event, caught: list[BaseException], swallow: bool = False
) -> threading.Thread:
    """A thread that keeps what it allocates until it raises (or, with `swallow`, until told to stop)."""

    def run() -> None:
        held: list[bytearray] = []
        while not stop.is_set():
            try:
                held.append(bytearray(CHUNK))
                stop.wait(0.01)
            except MemoryError as error:
                caught.append(error)
                held.clear()
                if not swallow:
                    return

    thread = threading.Thread(target=run, name="conveyor-task-hog-0", daemon=True)
    thread.start()
    return thread


def _watchdog(
    limit: int, threads: list[threading.Thread], end: Callable[[], None], stop_bound_s: float = WAIT_S
) -> MemoryWatchdog:
    return MemoryWatchdog(
        "h1", limit, lambda: threads, interval_s=0.05, stop_bound_s=stop_bound_s, end_process=end
    )


def _limit_above_now(megabytes: int) -> int:
    resident = resident_bytes()
    assert resident is not None
    return (resident // 1024**2 + megabytes) * 1024**2


def test_a_task_thread_of_a_host_over_its_limit_fails_with_a_memory_error_naming_the_limit_and_key() -> None:
    stop, caught, ended = threading.Event(), list[BaseException](), threading.Event()
    limit = _limit_above_now(64)
    thread = _allocating(stop, caught)
    watchdog = _watchdog(limit, [thread], ended.set)
    watchdog.start()
    try:
        thread.join(WAIT_S)
    finally:
        stop.set()
        watchdog.stop()
    assert len(caught) == 1 and isinstance(caught[0], MemoryError)
    message = str(caught[0])
    assert f"over its limit of {limit // 1024**2} MB" in message
    assert "raise task.memory.limit" in message
    assert not ended.is_set()


def test_a_task_thread_that_goes_on_after_its_memory_error_has_its_host_ended() -> None:
    stop, caught, ended = threading.Event(), list[BaseException](), threading.Event()
    thread = _allocating(stop, caught, swallow=True)
    watchdog = _watchdog(_limit_above_now(64), [thread], ended.set, stop_bound_s=1.0)
    watchdog.start()
    try:
        assert ended.wait(WAIT_S)
    finally:
        stop.set()
        watchdog.stop()
        thread.join(WAIT_S)
    assert caught and isinstance(caught[0], MemoryError)


def test_a_host_under_its_limit_leaves_its_tasks_alone() -> None:
    stop, caught, ended = threading.Event(), list[BaseException](), threading.Event()
    quiet = threading.Thread(target=stop.wait, args=(WAIT_S,), daemon=True)
    quiet.start()
    watchdog = _watchdog(_limit_above_now(512), [quiet], ended.set)
    resident = resident_bytes()
    assert resident is not None
    watchdog.check(resident)
    stop.set()
    quiet.join(WAIT_S)
    assert not watchdog.tripped and not ended.is_set() and caught == []
