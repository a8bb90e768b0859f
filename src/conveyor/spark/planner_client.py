"""Runs a Python launch of Spark's in the driver's planner server (``conveyor.spark.planner_server``).

Spark's Python launcher runs this file by path with ``python -I -S`` (the standard library alone, no site
packages: it starts in about ten milliseconds) and the launch's arguments. It hands the server its
standard streams, environment, directory and arguments, then stands for the forked child: signals it gets
go to the child, and it exits with the child's status. A server still loading is waited for rather than
loading a second interpreter beside it; where the server is not there or refuses, it runs the launch with
this interpreter instead, as Spark would have.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import struct
import sys
import time

SOCKET_ENV = "CONVEYOR_PLANNER_SOCKET"
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
STARTING_WAIT_S = 5.0
"""How long a launch waits at most for a server still loading (its ``.starting`` file names its pid), well
within the 10 s Spark gives a launched process to connect back."""


def _wait_for_starting_server(path: str) -> None:
    """Return once ``path`` serves, or the server that is loading for it is gone or late."""
    deadline = time.monotonic() + STARTING_WAIT_S
    while not os.path.exists(path) and time.monotonic() < deadline:
        try:
            with open(f"{path}.starting") as marker:
                os.kill(int(marker.read()), 0)
        except (OSError, ValueError):
            return
        time.sleep(0.01)


def _hand_over(path: str, argv: list[str]) -> tuple[int, io.BufferedReader] | None:
    """The forked child's pid and the connection that reports its exit; None if the server did not take it."""
    _wait_for_starting_server(path)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        request = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
        socket.send_fds(connection, [struct.pack("!I", len(request))], [0, 1, 2])
        connection.sendall(request)
        replies = connection.makefile("rb")
        reply = replies.readline().split()
    except OSError:
        connection.close()
        return None
    if len(reply) != 2 or reply[0] != b"pid":
        connection.close()
        return None
    return int(reply[1]), replies


class _Forward:
    """A signal handler passing the signal on to the child."""

    def __init__(self, child: int) -> None:
        self.child = child

    def __call__(self, signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.child, signum)


def main(argv: list[str]) -> int:
    path = os.environ.get(SOCKET_ENV, "")
    handed = _hand_over(path, argv) if path else None
    if handed is None:
        os.execv(sys.executable, [sys.executable, *argv])
    child, replies = handed
    for signum in FORWARDED:
        signal.signal(signum, _Forward(child))
    for line in replies:
        if line.startswith(b"exit "):
            return int(line.split()[1]) & 0xFF
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
