"""A preloaded Python process on the driver that forks the planning processes of Python streaming sources.

Spark starts a new Python process (``pyspark.sql.streaming.python_streaming_source_runner``) for every
streaming query over a Python data source, to plan its micro-batches, and the query's first batch waits
for it: its interpreter, pyspark, numpy and pyarrow take 0.3-0.6 s to load. The driver starts this server
once; Spark's Python launcher (``python_exec``) hands such a start to it through ``planner_client``, with
the launch's standard streams, environment, directory and arguments, and the server forks a child that has
those modules loaded already and runs the module as Spark asked. A launch the server cannot serve as it
was asked (another module, another ``PYTHONPATH``) is refused, and the client starts the interpreter
itself. No module it loads starts a Python thread; the one other thread, the background thread of
pyarrow's jemalloc, is handled across the fork by jemalloc's own fork handlers.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Final, NoReturn

from conveyor.spark.host_preload import freeze

SOCKET_ENV: Final = "CONVEYOR_PLANNER_SOCKET"
"""The environment variable naming the server's socket, which Spark's JVM and its launches inherit."""

STREAMING_SOURCE_RUNNER: Final = "pyspark.sql.streaming.python_streaming_source_runner"
PLANNED_MODULES: Final = (STREAMING_SOURCE_RUNNER,)
"""The modules Spark runs (``python -m``) that the server runs for it: one process per streaming query."""

PRELOADED: Final = (
    "conveyor.spark.datasource.source",
    "conveyor.spark.datasource.stream_reader",
    "conveyor.log.embedded",
    "conveyor.log.kafka",
)
"""Imported besides the planned modules' own imports: what planning the ``conveyor`` source loads."""

_LENGTH: Final = struct.Struct("!I")
_STREAMS: Final = 3
_MAX_REQUEST: Final = 16 << 20


def starting_marker(path: str) -> str:
    """The file that holds the pid of a server still loading for the socket ``path``: a launch waits for
    that server rather than loading an interpreter of its own beside it."""
    return f"{path}.starting"


def socket_path() -> Path:
    """Where this driver's server listens: in the owner's private directory of Spark's launchers."""
    from conveyor.spark.python_exec import private_directory

    return private_directory() / f"planner-{os.getpid()}.sock"


def serve(path: str, modules: tuple[str, ...]) -> None:
    """Load what ``modules`` import, then fork a child for each launch of one of them until stdin closes."""
    for module in (*modules, *PRELOADED):
        importlib.import_module(module)
    for module in modules:  # run afresh as __main__ in each child, from its cached imports
        sys.modules.pop(module, None)
    freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pythonpath = os.environ.get("PYTHONPATH", "")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staged = f"{path}.{os.getpid()}"
    listener.bind(staged)
    listener.listen(16)
    os.replace(staged, path)  # appears only once it serves
    Path(starting_marker(path)).unlink(missing_ok=True)
    try:
        while True:
            ready, _, _ = select.select([listener, sys.stdin.fileno()], [], [])
            if sys.stdin.fileno() in ready and not os.read(sys.stdin.fileno(), 4096):
                return
            if listener in ready:
                connection, _ = listener.accept()
                if os.fork() == 0:
                    listener.close()
                    _child(connection, modules, pythonpath)
                connection.close()
    finally:
        listener.close()
        Path(path).unlink(missing_ok=True)
        Path(starting_marker(path)).unlink(missing_ok=True)


def _receive(connection: socket.socket) -> tuple[dict[str, object], list[int]]:
    header, fds, _, _ = socket.recv_fds(connection, _LENGTH.size, _STREAMS)
    (length,) = _LENGTH.unpack(header)
    if length > _MAX_REQUEST:
        raise ValueError(f"request of {length} bytes")
    payload = bytearray()
    while len(payload) < length:
        chunk = connection.recv(length - len(payload))
        if not chunk:
            raise EOFError("launch request cut short")
        payload += chunk
    request: dict[str, object] = json.loads(payload)
    return request, fds


def refusal(request: dict[str, object], modules: tuple[str, ...], pythonpath: str) -> str | None:
    """Why the server cannot run ``request`` as a fresh interpreter would, or None if it can."""
    argv = request.get("argv")
    if not isinstance(argv, list) or len(argv) < 2 or argv[0] != "-m" or argv[1] not in modules:
        return f"not a planned module: {argv!r}"
    env = request.get("env")
    if not isinstance(env, dict) or env.get("PYTHONPATH", "") != pythonpath:
        return "another PYTHONPATH"
    return None


def _child(connection: socket.socket, modules: tuple[str, ...], pythonpath: str) -> NoReturn:
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        request, fds = _receive(connection)
        reason = refusal(request, modules, pythonpath) if len(fds) == _STREAMS else "no standard streams"
        if reason is not None:
            connection.sendall(f"refused {reason}\n".encode())
            os._exit(0)
        connection.sendall(f"pid {os.getpid()}\n".encode())
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        env, argv = request["env"], request["argv"]
        assert isinstance(env, dict) and isinstance(argv, list)
        os.chdir(str(request["cwd"]))
        sys.path[0] = os.getcwd()  # where ``python -m`` looks first
        os.environ.clear()
        os.environ.update(env)
        code = _run(argv[1], argv[2:])
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        with contextlib.suppress(OSError):
            connection.sendall(f"exit {code}\n".encode())
        os._exit(code & 0xFF)


def _run(module: str, arguments: list[str]) -> int:
    """Run ``module`` as ``python -m`` would; its exit status."""
    sys.argv = [module, *arguments]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            return exit_.code or 0
        print(exit_.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


class PlannerServer:
    """The driver's server process: started once, ended when the driver closes its stdin (or exits)."""

    _lock: Final = threading.Lock()
    _running: PlannerServer | None = None

    def __init__(self, process: subprocess.Popen[bytes], path: Path) -> None:
        self.process = process
        self.path = path

    @classmethod
    def ensure_started(cls) -> PlannerServer | None:
        """The process's server, started now if it was not; None where Spark's launches cannot reach it
        (the launcher is not Conveyor's, or no socket path was given to Spark's JVM)."""
        from conveyor.spark.python_exec import python_for_spark

        path = os.environ.get(SOCKET_ENV)
        python = python_for_spark()
        if not path or python == sys.executable:
            return None
        with cls._lock:
            running = cls._running
            if running is None or running.process.poll() is not None:
                Path(path).unlink(missing_ok=True)
                marker = Path(starting_marker(path))
                process = subprocess.Popen(
                    [python, "-m", __name__, path, *PLANNED_MODULES],
                    stdin=subprocess.PIPE,
                    env=os.environ | {"PYTHONUNBUFFERED": "1"},
                    start_new_session=True,
                )
                staged = marker.with_name(f"{marker.name}.{os.getpid()}")
                staged.write_text(str(process.pid))
                os.replace(staged, marker)
                running = cls._running = PlannerServer(process, Path(path))
            return running

    def close(self) -> None:
        """End the server (its children, planning running queries, go on until their queries stop)."""
        stdin = self.process.stdin
        if stdin is not None:
            stdin.close()
        self.process.wait(30)


if __name__ == "__main__":
    serve(sys.argv[1], tuple(sys.argv[2:]))
