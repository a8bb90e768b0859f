"""A `conveyor` worker in a process of its own, as a user runs one: one place for every test folder.

Its stderr is collected as it runs; the line that announces the REST API tells where it serves, and it
counts as started once that API answers. On the way out it is stopped (SIGTERM), or killed if it will not go.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from tests.waiting import wait_until

CONVEYOR = Path(sys.executable).parent / "conveyor"
REPOSITORY = Path(__file__).resolve().parents[1]


def with_test_plugins(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment whose ``PYTHONPATH`` starts at the repository root, so that a worker started
    elsewhere (and its executors) find the test suite's plugin package, which the root declares."""
    base = dict(os.environ if env is None else env)
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPOSITORY), base.get("PYTHONPATH")]))
    return base


EXIT_S = 60.0
REST_API_LINE = re.compile(r"REST API at (http://\S+)")


@dataclass
class ConveyorProcess:
    """One `conveyor` process and the lines it has written to stderr."""

    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    url: str = ""
    """The REST API's base URL, known once the worker says where it listens."""

    @property
    def worker_id(self) -> str:
        return self.url.removeprefix("http://")

    @property
    def log(self) -> str:
        return "".join(self.output)

    def tail(self, lines: int = 60) -> str:
        return "".join(self.output[-lines:])

    def read_output(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.output.append(line)
            if not self.url and (match := REST_API_LINE.search(line)):
                self.url = match.group(1)

    def serving(self) -> bool:
        """Whether the REST API answers; fails, with the last lines written, if the process has exited."""
        if self.process.poll() is not None:
            raise AssertionError(f"conveyor {self.url} exited with {self.process.returncode}:\n{self.tail()}")
        if not self.url:
            return False
        try:
            return httpx.get(self.url + "/connectors", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60.0)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(EXIT_S)

    def freeze(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        """Terminate the process (thawing it first, should it be frozen); killed if it does not exit."""
        if self.process.poll() is None:
            self.thaw()
            self.process.terminate()
            try:
                self.process.wait(EXIT_S)
            except subprocess.TimeoutExpired:
                self.kill()


def start_conveyor(
    arguments: list[str], directory: Path, startup_s: float, env: Mapping[str, str] | None = None
) -> ConveyorProcess:
    """`conveyor *arguments` started in ``directory``, once its REST API answers; stopped if it never does."""
    process = subprocess.Popen(
        [str(CONVEYOR), *arguments],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=directory,
        env=env,
    )
    worker = ConveyorProcess(process)
    threading.Thread(target=worker.read_output, daemon=True).start()
    try:
        wait_until(worker.serving, f"conveyor {arguments[0]} to serve its REST API", startup_s, every_s=0.5)
    except BaseException:
        worker.stop()
        raise
    return worker


def start_standalone(
    directory: Path, props: Mapping[str, str], startup_s: float, env: Mapping[str, str] | None = None
) -> ConveyorProcess:
    """`conveyor standalone` on ``props``, written to ``directory``/worker.properties, once it serves."""
    properties = directory / "worker.properties"
    properties.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    return start_conveyor(["standalone", "--no-status", str(properties)], directory, startup_s, env)
