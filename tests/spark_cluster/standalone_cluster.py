"""A Spark standalone cluster on this machine, started from the installed pyspark's own ``spark-class``:
one master and its workers, each a JVM of its own, all killed (with their executors) on the way out."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pyspark
from tests.waiting import wait_until

from conveyor.kafka_broker.jvm import free_port

from .process_tree import descendants, kill_tree

SPARK_HOME = Path(pyspark.__file__).parent
SPARK_CLASS = SPARK_HOME / "bin" / "spark-class"
START_S = 180.0


@dataclass
class Daemon:
    """A master or worker JVM and the file its output goes to."""

    name: str
    process: subprocess.Popen[bytes]
    output: Path

    def says(self, text: str) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"Spark {self.name} exited:\n{self.tail()}")
        return text in self.output.read_text(errors="replace")

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.output.read_text(errors="replace").splitlines()[-lines:])

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> list[int]:
        """kill -9 the daemon and every process under it (executor JVMs, their Python workers)."""
        victims = kill_tree(self.process.pid)
        self.process.wait(30)
        return victims


@dataclass
class StandaloneCluster:
    directory: Path
    master_url: str = ""
    master: Daemon | None = None
    workers: list[Daemon] = field(default_factory=list)

    def _start(self, name: str, *arguments: str) -> Daemon:
        output = self.directory / f"{name}.log"
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("PYTHON", "PYSPARK", "SPARK_"))
        }
        env |= {"SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": "256m"}
        with output.open("wb") as sink:
            process = subprocess.Popen(
                [str(SPARK_CLASS), *arguments],
                stdout=sink,
                stderr=subprocess.STDOUT,
                cwd=self.directory,
                env=env,
                start_new_session=True,
            )
        return Daemon(name, process, output)

    def start_master(self) -> None:
        port = free_port()
        self.master_url = f"spark://127.0.0.1:{port}"
        self.master = self._start(
            "master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
            "--webui-port", str(free_port()),
        )  # fmt: skip
        master = self.master
        wait_until(
            lambda: master.says("I have been elected leader"), "the Spark master to lead", START_S, 0.5
        )

    def add_worker(self, cores: int, memory: str) -> Daemon:
        index = len(self.workers)
        work_dir = self.directory / f"worker-{index}"
        work_dir.mkdir()
        worker = self._start(
            f"worker-{index}", "org.apache.spark.deploy.worker.Worker", self.master_url,
            "--host", "127.0.0.1", "--cores", str(cores), "--memory", memory,
            "--webui-port", str(free_port()), "--work-dir", str(work_dir),
        )  # fmt: skip
        self.workers.append(worker)
        wait_until(
            lambda: worker.says("Successfully registered with master"),
            f"{worker.name} to register",
            START_S,
            0.5,
        )
        return worker

    def worker_running(self, pid: int) -> Daemon:
        """The live worker that process ``pid`` runs under (in one of its executors)."""
        (worker,) = [w for w in self.workers if w.alive and pid in descendants(w.process.pid)]
        return worker

    def stop(self) -> None:
        for daemon in [*self.workers, *([self.master] if self.master else [])]:
            if daemon.alive:
                daemon.kill()


@contextmanager
def standalone_cluster(directory: Path, workers: int, cores: int, memory: str) -> Iterator[StandaloneCluster]:
    """A master and ``workers`` workers of ``cores`` cores and ``memory`` each; torn down even on failure."""
    cluster = StandaloneCluster(directory)
    try:
        cluster.start_master()
        for _ in range(workers):
            cluster.add_worker(cores, memory)
        yield cluster
    finally:
        cluster.stop()
