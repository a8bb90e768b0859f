"""A task host's memory limit (`task.memory.limit`): one thread that watches the host's resident memory.

A host's resident size is sampled twice a second (`/proc/self/statm`, as `memory-rss-bytes` is measured);
nothing runs per record. Once it is over the limit, each of the host's task threads gets a `MemoryError`
raised in it (`PyThreadState_SetAsyncExc`), so that each task ends FAILED with the reason in its trace and
is restarted with backoff. A task still running a bounded time after (a thread blocked in C code, or one
that swallowed the error) ends the whole host process instead: Spark runs the host again in a new process
(or, out of attempts, fails its job, and the worker restarts its tasks).
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable

from conveyor.errors import ConnectError
from conveyor.metrics.process_memory import resident_bytes
from conveyor.settings.worker_config import TASK_MEMORY_LIMIT_CONFIG as LIMIT_KEY

logger = logging.getLogger(__name__)

SAMPLE_INTERVAL_S = 0.5
STOP_BOUND_S = 30.0
"""How long a task has to end after its `MemoryError` before its host process is ended."""


class TaskMemoryError(MemoryError, ConnectError):
    """Raised in a task's thread when its host holds more resident memory than `task.memory.limit`."""

    message = ""

    def __init__(self, *args: object) -> None:
        super().__init__(*(args or (type(self).message,)))


def _error_class(message: str) -> type[TaskMemoryError]:
    """An async exception is raised from its class alone: a subclass carries the message."""
    return type("TaskMemoryError", (TaskMemoryError,), {"message": message, "__module__": __name__})


def raise_in_thread(thread: threading.Thread, error: type[BaseException]) -> bool:
    """Have `thread` raise `error` at its next Python instruction; False if it has ended."""
    if thread.ident is None:
        return False
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(error))
    return bool(done == 1)


def release_free_memory() -> None:
    """Collect, then have the C allocator give free pages back, so that the resident size drops."""
    gc.collect()
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is not None:
        trim(0)


def _mb(size: int) -> str:
    return f"{size / 1024**2:.0f} MB"


def over_limit_message(host: str, resident: int, limit: int) -> str:
    return (
        f"Task host {host} holds {_mb(resident)} of resident memory, over its limit of {_mb(limit)} "
        f"({LIMIT_KEY}, shared by the tasks it runs): a task keeps more memory than it should; fix the "
        f"task, or raise {LIMIT_KEY} in the worker's properties"
    )


class MemoryWatchdog:
    """Fails the tasks of one host with `MemoryError` when the host holds more than `limit_bytes`."""

    def __init__(
        self,
        host: str,
        limit_bytes: int,
        task_threads: Callable[[], Iterable[threading.Thread]],
        interval_s: float = SAMPLE_INTERVAL_S,
        stop_bound_s: float = STOP_BOUND_S,
        end_process: Callable[[], None] = lambda: os._exit(1),
    ) -> None:
        self._host = host
        self.limit_bytes = limit_bytes
        self._task_threads = task_threads
        self._interval_s = interval_s
        self._stop_bound_s = stop_bound_s
        self._end_process = end_process
        self._raised: dict[threading.Thread, float] = {}
        self.tripped = False
        """Whether the host has been over its limit: its memory is released when its tasks end."""
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"conveyor-memory-{host}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.ident is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stopped.wait(self._interval_s):
            resident = resident_bytes()
            if resident is None:
                logger.warning("task host %s cannot read its memory: no %s", self._host, LIMIT_KEY)
                return
            self.check(resident)

    def check(self, resident: int) -> None:
        """Act on one sample: fail the tasks of a host over its limit, end one whose tasks do not stop."""
        for thread in [t for t in self._raised if not t.is_alive()]:
            del self._raised[thread]
        if resident > self.limit_bytes:
            self._fail_tasks(resident)
        now = time.monotonic()
        if any(now - raised > self._stop_bound_s for raised in self._raised.values()):
            stuck = ", ".join(thread.name for thread in self._raised)
            logger.error(
                "task host %s: %s did not stop within %.0f s of its MemoryError; ending the host process: "
                "its tasks run again in a new one",
                self._host, stuck, self._stop_bound_s,
            )  # fmt: skip
            self._raised.clear()
            self._end_process()

    def _fail_tasks(self, resident: int) -> None:
        running = [t for t in self._task_threads() if t.is_alive() and t not in self._raised]
        if not running:
            return
        message = over_limit_message(self._host, resident, self.limit_bytes)
        logger.error("%s; failing its tasks with MemoryError", message)
        self.tripped = True
        error = _error_class(message)
        for thread in running:
            if raise_in_thread(thread, error):
                self._raised[thread] = time.monotonic()

    def held_over_limit(self) -> int | None:
        """After the tasks of a tripped host have ended: what the host still holds over its limit once
        its free memory is given back (then its process must not host tasks again); None if under it."""
        if not self.tripped:
            return None
        release_free_memory()
        resident = resident_bytes()
        return resident if resident is not None and resident > self.limit_bytes else None
