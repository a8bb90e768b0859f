"""A `conveyor standalone` worker process with its own SparkSession, as a user would start one on a
cluster: nothing of the test suite on its Python path, so that it (and its executors) see only what is
installed and what plugin.path holds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from tests.waiting import wait_until

CONVEYOR = Path(sys.executable).parent / "conveyor"
STARTUP_S = 240.0
EXIT_S = 60.0


@dataclass
class ConveyorProcess:
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    url: str = ""

    def read_output(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.output.append(line)
            if not self.url and (match := re.search(r"REST API at (http://\S+)", line)):
                self.url = match.group(1)

    def serving(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"conveyor exited:\n{self.tail()}")
        if not self.url:
            return False
        try:
            return httpx.get(self.url + "/connectors", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def tail(self, lines: int = 60) -> str:
        return "".join(self.output[-lines:])

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60.0)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(EXIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(EXIT_S)


@contextmanager
def conveyor_standalone(directory: Path, props: dict[str, str]) -> Iterator[ConveyorProcess]:
    """Start `conveyor standalone` on ``props`` in ``directory``; stopped on the way out."""
    properties = directory / "worker.properties"
    properties.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PYSPARK", "SPARK_"))
    }
    process = subprocess.Popen(
        [str(CONVEYOR), "standalone", "--no-status", str(properties)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=directory,
        env=env,
    )
    worker = ConveyorProcess(process)
    threading.Thread(target=worker.read_output, daemon=True).start()
    try:
        wait_until(worker.serving, "conveyor standalone to serve its REST API", STARTUP_S, every_s=0.5)
        yield worker
    finally:
        worker.stop()
