"""Spark's JVM's stderr, read by the worker: the JVM's own notes go to the worker's log, the rest through.

The JVM writes to stderr before any logging is set up: the launcher's notes on modules and access
(`WARNING: Using incubator modules: jdk.incubator.vector` at every start) and the virtual machine's
warnings. The worker reads its JVM's stderr and logs those lines in its own format, the launcher's at
DEBUG (they name nothing an operator acts on) and the virtual machine's at WARNING. Every other line
(Spark's log4j lines, already in the worker's format, its executors' Python lines, and what a JVM that
fails to start or crashes writes) goes to the worker's stderr unchanged.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Callable
from typing import BinaryIO

logger = logging.getLogger("conveyor.spark.jvm")

LAUNCHER_NOTE = "WARNING: "
"""How the launcher's and the runtime's notes start (`WARNING: Using incubator modules: ...`, `WARNING: A
terminally deprecated method in sun.misc.Unsafe has been called`, ...); the worker's own lines start
with their time (or are JSON)."""

VM_WARNING = re.compile(r"[\w() .-]+ VM warning: ")
"""`OpenJDK 64-Bit Server VM warning: ...`: the virtual machine's own warnings (a full code cache, a
failed memory commit), which may matter."""


def jvm_line_level(line: str) -> int | None:
    """The level a line of the JVM's own is logged at; None for a line that goes through unchanged."""
    if line.startswith(LAUNCHER_NOTE):
        return logging.DEBUG
    if VM_WARNING.match(line):
        return logging.WARNING
    return None


def write_all(fd: int) -> Callable[[bytes], None]:
    """A writer of whole lines to `fd` (the worker's stderr)."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    return write


def forward(stream: BinaryIO, passthrough: Callable[[bytes], None]) -> None:
    """Read the JVM's stderr to its end: log its own lines, pass every other line through. A line the
    worker's stderr does not take (closed, or a broken pipe) is dropped, and reading goes on, so that
    the JVM never waits on a full pipe."""
    for raw in stream:
        line = raw.decode(errors="replace").rstrip("\r\n")
        level = jvm_line_level(line)
        if level is not None:
            logger.log(level, "%s", line)
            continue
        with contextlib.suppress(OSError):
            passthrough(raw)


class JvmStderr:
    """A pipe for the JVM's stderr and the thread that forwards it to the worker's stderr and log.

    Give `write_fd` to the JVM's process as its stderr, then call `launched` once the process exists
    (or failed to start): the worker's copy of the pipe's write end closes, so that the thread ends with
    the JVM, having passed on what the JVM wrote as it ended.
    """

    def __init__(self, passthrough: Callable[[bytes], None] | None = None) -> None:
        read_fd, self.write_fd = os.pipe()
        self._stream = os.fdopen(read_fd, "rb")
        self._thread = threading.Thread(
            target=self._forward, args=(passthrough or write_all(2),), name="spark-jvm-stderr", daemon=True
        )
        self._thread.start()

    def _forward(self, passthrough: Callable[[bytes], None]) -> None:
        with self._stream:
            forward(self._stream, passthrough)

    def launched(self) -> None:
        os.close(self.write_fd)

    def join(self, timeout_s: float) -> None:
        """Wait for the JVM's last lines (after it exited) to be forwarded."""
        self._thread.join(timeout_s)
