"""Apache Kafka Connect itself, one distributed worker run from the cached Kafka jars.

It is what users move to Conveyor from: tests run it beside Conveyor workers on one broker (same group,
same internal topics), and benchmarks run it as the baseline. ``connect-file`` is its plugin path.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from conveyor.errors import ConnectError
from conveyor.kafka_broker.fetch import KafkaDistribution, fetch_kafka
from conveyor.kafka_broker.jvm import JavaProcess, free_port
from conveyor.lifecycle import Service

#: Kafka's ``config/connect-distributed.properties`` for one broker: replication factors of 1, one
#: partition per internal topic, and offsets flushed every second rather than every minute.
CONNECT_DEFAULTS: Mapping[str, str] = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "config.storage.replication.factor": "1",
    "offset.storage.replication.factor": "1",
    "status.storage.replication.factor": "1",
    "offset.storage.partitions": "1",
    "status.storage.partitions": "1",
    "offset.flush.interval.ms": "1000",
    "plugin.discovery": "only_scan",
}


def group_settings(bootstrap_servers: str, name: str) -> dict[str, str]:
    """A Connect group of its own on the brokers: group ``name`` and internal topics named after it, so
    that workers beside others on one broker (Kafka Connect's or Conveyor's) never share their state."""
    return {
        "bootstrap.servers": bootstrap_servers,
        "group.id": name,
        "config.storage.topic": f"{name}-configs",
        "offset.storage.topic": f"{name}-offsets",
        "status.storage.topic": f"{name}-status",
    }


class KafkaConnectError(ConnectError):
    """Kafka Connect exited during start-up or did not become ready."""


class KafkaConnect(Service):
    """``org.apache.kafka.connect.cli.ConnectDistributed`` with ``settings`` (``bootstrap.servers``,
    ``group.id``, the internal topics, ...), its REST API on a free loopback port.

    Its properties and output are kept under ``directory``. ``stop`` shuts it down cleanly, ``kill``
    does not (``kill -9``); ``with KafkaConnect(...) as connect:`` stops it on the way out.
    """

    def __init__(
        self,
        directory: Path,
        settings: Mapping[str, str],
        distribution: KafkaDistribution | None = None,
        heap: str = "512m",
    ) -> None:
        self.directory = directory
        self.settings = dict(settings)
        self.distribution = distribution or fetch_kafka()
        self._jvm = JavaProcess(self.distribution, directory / "connect.out", heap)
        self.port = 0

    @property
    def url(self) -> str:
        """The REST API's base URL, e.g. ``http://127.0.0.1:40123``."""
        if not self._jvm.started:
            raise KafkaConnectError("Kafka Connect is not running")
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """The JVM's process id while it runs."""
        return self._jvm.pid

    @property
    def worker_id(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def output_file(self) -> Path:
        return self._jvm.output_file

    @property
    def output(self) -> str:
        return self.output_file.read_text(errors="replace") if self.output_file.exists() else ""

    def start(self, timeout_s: float = 180.0) -> None:
        """Start the JVM and return once ``GET /health`` says the worker has joined and read its topics."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        properties = self._write_properties()
        self._jvm.start(
            "org.apache.kafka.connect.cli.ConnectDistributed",
            str(properties),
            ready=lambda: self._wait_until_healthy(timeout_s),
            abandon=self.kill,
        )

    def stop(self, timeout_s: float = 60.0) -> None:
        """Shut down cleanly (SIGTERM runs Connect's shutdown hook: tasks stop, commit); kill if it hangs."""
        self._jvm.stop(timeout_s)

    def kill(self) -> None:
        """Stop at once, as a crash would: nothing is committed or closed on the way out."""
        self._jvm.kill()

    def _write_properties(self) -> Path:
        settings = {
            **CONNECT_DEFAULTS,
            "plugin.path": str(self.distribution.connect_file_plugin),
            **self.settings,
            "listeners": f"http://127.0.0.1:{self.port}",
            "rest.advertised.host.name": "127.0.0.1",
            "rest.advertised.port": str(self.port),
        }
        path = self.directory / "connect-distributed.properties"
        path.write_text("".join(f"{key}={value}\n" for key, value in settings.items()))
        return path

    def _wait_until_healthy(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self._jvm.exited:
                raise KafkaConnectError(f"Kafka Connect exited during start-up:\n{self.output[-4000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise KafkaConnectError(f"Kafka Connect was not healthy within {timeout_s:.0f} s")
            time.sleep(0.25)
