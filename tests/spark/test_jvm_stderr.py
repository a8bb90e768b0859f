"""Spark's JVM's stderr: the JVM's own notes reach the worker's log in its format, every other line the
worker's stderr unchanged."""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Callable

import pytest

from conveyor.spark.jvm_stderr import JvmStderr

INCUBATOR = "WARNING: Using incubator modules: jdk.incubator.vector"
SPARK_LINE = "[2026-11-27 04:00:00,000] WARNING Spark's own line (org.apache.spark.SparkContext)"
CRASH = 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space'


def forwarded(*lines: str, passthrough: Callable[[bytes], None] | None = None) -> list[bytes]:
    """What a process writing `lines` to its stderr has passed through, once it has ended."""
    passed: list[bytes] = []
    stderr = JvmStderr(passthrough or passed.append)
    script = "import sys\nfor line in sys.argv[1:]: print(line, file=sys.stderr)"
    subprocess.run(["python3", "-c", script, *lines], stderr=stderr.write_fd, check=True)
    stderr.launched()
    stderr.join(30.0)
    return passed


def test_the_launchers_incubator_note_is_logged_at_debug_not_passed_through(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger="conveyor.spark.jvm"):
        passed = forwarded(INCUBATOR)

    assert passed == []
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("conveyor.spark.jvm", logging.DEBUG, INCUBATOR)
    ]


def test_a_virtual_machine_warning_is_logged_at_warning(caplog: pytest.LogCaptureFixture) -> None:
    warning = "OpenJDK 64-Bit Server VM warning: CodeCache is full. Compiler has been disabled."
    with caplog.at_level(logging.DEBUG, logger="conveyor.spark.jvm"):
        passed = forwarded(warning)

    assert passed == []
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [(logging.WARNING, warning)]


def test_spark_log_lines_and_a_crash_message_pass_through_unchanged() -> None:
    assert forwarded(SPARK_LINE, CRASH, "\tat java.base/java.util.Arrays.copyOf(Arrays.java:3512)") == [
        f"{SPARK_LINE}\n".encode(),
        f"{CRASH}\n".encode(),
        b"\tat java.base/java.util.Arrays.copyOf(Arrays.java:3512)\n",
    ]


def test_lines_the_workers_stderr_refuses_are_dropped_and_reading_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(_: bytes) -> None:
        raise BrokenPipeError("the worker's stderr is gone")

    with caplog.at_level(logging.DEBUG, logger="conveyor.spark.jvm"):
        forwarded(SPARK_LINE, INCUBATOR, passthrough=broken)

    assert [r.getMessage() for r in caplog.records] == [INCUBATOR]
