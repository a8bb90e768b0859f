"""One JVM run from the cached Kafka jars, its output appended to a file; stopped cleanly or killed."""

from __future__ import annotations

import contextlib
import ctypes
import signal
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import IO

from conveyor.kafka_broker.fetch import KafkaDistribution

_PR_SET_PDEATHSIG = 1


def free_port() -> int:
    """A local TCP port no one listens on now."""
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """``count`` distinct local TCP ports no one listens on now: all held open while they are chosen, as
    ports chosen one after another can be the same one twice."""
    with contextlib.ExitStack() as probes:
        ports = []
        for _ in range(count):
            probe = probes.enter_context(socket.socket())
            probe.bind(("127.0.0.1", 0))
            ports.append(int(probe.getsockname()[1]))
        return ports


def die_with_parent() -> None:
    """Run in the child before exec: the kernel stops the JVM if the process that started it dies."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def java_command(distribution: KafkaDistribution, *options: str) -> list[str]:
    """``java`` with ``options``, Kafka's log4j configuration and the distribution's classpath."""
    return [
        "java",
        *options,
        f"-Dlog4j2.configurationFile={distribution.log4j_config}",
        "-cp",
        distribution.classpath,
    ]


class JavaProcess:
    """A JVM whose output goes to ``output_file``; it dies with the process that started it."""

    def __init__(self, distribution: KafkaDistribution, output_file: Path, heap: str) -> None:
        self._distribution = distribution
        self.output_file = output_file
        self._heap = heap
        self._process: subprocess.Popen[bytes] | None = None
        self._output: IO[bytes] | None = None

    @property
    def started(self) -> bool:
        return self._process is not None

    @property
    def pid(self) -> int | None:
        """The JVM's process id while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def exited(self) -> bool:
        """Not started, or started and ended since."""
        return self._process is None or self._process.poll() is not None

    def output_tail(self, characters: int = 4000) -> str:
        text = self.output_file.read_text(errors="replace") if self.output_file.exists() else ""
        return text[-characters:]

    def start(
        self, main_class: str, *arguments: str, ready: Callable[[], None], abandon: Callable[[], None]
    ) -> None:
        """Run ``main_class`` and return once ``ready`` does. If ``ready`` raises (or the wait is
        interrupted), ``abandon`` ends the JVM before the error goes on: a failed start leaves none
        running."""
        self._output = open(self.output_file, "ab")  # noqa: SIM115 - kept open while the JVM runs
        self._process = subprocess.Popen(
            [*java_command(self._distribution, "-Xms128m", f"-Xmx{self._heap}"), main_class, *arguments],
            stdout=self._output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
        try:
            ready()
        except BaseException:
            abandon()
            raise

    def stop(self, timeout_s: float) -> None:
        """SIGTERM (the JVM's shutdown hooks run); kill it if it is not gone within ``timeout_s``."""
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._close()

    def kill(self) -> None:
        """Stop at once, as a crash would: no shutdown hook runs."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        self._close()

    def _close(self) -> None:
        self._process = None
        if self._output is not None:
            self._output.close()
            self._output = None
