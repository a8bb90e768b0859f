"""One single-node KRaft broker (broker and controller in one JVM) on free loopback ports."""

from __future__ import annotations

import base64
import socket
import subprocess
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from conveyor.errors import ConnectError
from conveyor.kafka_broker.fetch import KafkaDistribution, fetch_kafka
from conveyor.kafka_broker.jvm import JavaProcess, free_ports, java_command
from conveyor.lifecycle import Service

#: Broker settings for one node: replication factors of 1, quick first groups and transactions, no topics
#: created behind a client's back, session timeouts as short as tests need to evict a member, and no
#: time-based retention unless a topic asks for it (tests write records stamped in 1970), checked every
#: second for those that do.
BROKER_DEFAULTS: Mapping[str, str] = {
    "num.partitions": "1",
    "auto.create.topics.enable": "false",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "100",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
    "log.retention.ms": "-1",
    "log.retention.check.interval.ms": "1000",
    "log.initial.task.delay.ms": "1000",
}


class KafkaBrokerError(ConnectError):
    """The broker could not be formatted or did not become ready."""


def new_cluster_id() -> str:
    """A random cluster id as Kafka's ``Uuid.randomUuid`` makes them: never starting with ``-``, which the
    storage tool would read as an option."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cluster_id.startswith("-"):
            return cluster_id


class KafkaBroker(Service):
    """A broker that keeps its store, settings and output under ``directory``; ``start`` and ``stop`` it.

    ``bootstrap_servers`` is known once started. ``with KafkaBroker(...) as broker:`` stops it on the way out.
    """

    def __init__(
        self,
        directory: Path,
        distribution: KafkaDistribution | None = None,
        heap: str = "512m",
        overrides: Mapping[str, str] | None = None,
        port: int = 0,
        extra_listeners: Mapping[str, str] | None = None,
        scram_users: Mapping[str, str] | None = None,
    ) -> None:
        """``extra_listeners`` maps more listener names to their security protocols (their settings go in
        ``overrides``, as ``listener.name.<name>.*``); ``scram_users`` are SCRAM-SHA-256 and -512 users
        (name to password) written into the store when it is formatted."""
        self.directory = directory
        self.distribution = distribution or fetch_kafka()
        self._overrides = dict(overrides or {})
        self._requested_port = port
        self._extra_listeners = dict(extra_listeners or {})
        self._scram_users = dict(scram_users or {})
        self.listener_ports: dict[str, int] = {}
        self._jvm = JavaProcess(self.distribution, directory / "broker.out", heap)
        self.port = 0
        self._controller_port = 0

    @property
    def bootstrap_servers(self) -> str:
        if not self._jvm.started:
            raise KafkaBrokerError("The broker is not running")
        return f"127.0.0.1:{self.port}"

    def listener_address(self, name: str) -> str:
        """``host:port`` of one of the ``extra_listeners``."""
        return f"127.0.0.1:{self.listener_ports[name]}"

    @property
    def output_file(self) -> Path:
        return self._jvm.output_file

    def start(self, timeout_s: float = 120.0) -> None:
        """Format the store unless it was formatted before, start the JVM and return once a client can
        fetch metadata from it. Started again after ``stop``, it serves the same store on the same ports,
        as a broker restarted in place does."""
        self.directory.mkdir(parents=True, exist_ok=True)
        chosen = iter(free_ports(2 + len(self._extra_listeners)))
        self.port = self.port or self._requested_port or next(chosen)
        self._controller_port = self._controller_port or next(chosen)
        self.listener_ports = self.listener_ports or {name: next(chosen) for name in self._extra_listeners}
        properties = self._write_properties(controller_port=self._controller_port)
        self._format(properties)
        self._jvm.start(
            "kafka.Kafka", str(properties), ready=lambda: self._wait_until_ready(timeout_s), abandon=self.stop
        )

    def stop(self, timeout_s: float = 30.0) -> None:
        """Shut the broker down cleanly (SIGTERM runs Kafka's shutdown hook); kill it if it hangs."""
        self._jvm.stop(timeout_s)

    def _write_properties(self, controller_port: int) -> Path:
        extra = {name: f"{name}://127.0.0.1:{port}" for name, port in self.listener_ports.items()}
        protocols = ",".join(f"{name}:{protocol}" for name, protocol in self._extra_listeners.items())
        settings = {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
            "listeners": ",".join(
                [
                    f"PLAINTEXT://127.0.0.1:{self.port}",
                    f"CONTROLLER://127.0.0.1:{controller_port}",
                    *extra.values(),
                ]
            ),
            "advertised.listeners": ",".join([f"PLAINTEXT://127.0.0.1:{self.port}", *extra.values()]),
            "inter.broker.listener.name": "PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": ",".join(
                filter(None, ["CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT", protocols])
            ),
            "log.dirs": str(self.directory / "data"),
            **BROKER_DEFAULTS,
            **self._overrides,
        }
        path = self.directory / "server.properties"
        path.write_text("".join(f"{key}={value}\n" for key, value in settings.items()))
        return path

    @property
    def cluster_id(self) -> str | None:
        """The id the store was formatted with, None before it is."""
        meta = self.directory / "data" / "meta.properties"
        if not meta.exists():
            return None
        for line in meta.read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "cluster.id":
                return value.strip()
        return None

    def _format(self, properties: Path) -> None:
        """Format the store, keeping the cluster id of one formatted before (the storage tool refuses a
        store whose ``meta.properties`` names another)."""
        cluster_id = self.cluster_id or new_cluster_id()
        result = subprocess.run(
            [
                *java_command(self.distribution),
                "kafka.tools.StorageTool",
                "format",
                "-t",
                cluster_id,
                "-c",
                str(properties),
                "--ignore-formatted",
                *self._scram_arguments(),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise KafkaBrokerError(f"Formatting the broker's store failed:\n{result.stdout}{result.stderr}")

    def _scram_arguments(self) -> list[str]:
        return [
            argument
            for user, password in self._scram_users.items()
            for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512")
            for argument in ("--add-scram", f"{mechanism}=[name={user},password={password}]")
        ]

    def _wait_until_ready(self, timeout_s: float) -> None:
        from confluent_kafka.admin import AdminClient

        deadline = time.monotonic() + timeout_s
        while not self._accepts_connections():
            self._check_alive()
            if time.monotonic() > deadline:
                raise KafkaBrokerError(f"The broker did not listen within {timeout_s:.0f} s")
            time.sleep(0.05)
        admin = AdminClient({"bootstrap.servers": self.bootstrap_servers, "log_level": 0})
        while True:
            self._check_alive()
            try:
                if admin.list_topics(timeout=1).brokers:
                    return
            except Exception:  # any failure here only means "not ready yet"
                pass
            if time.monotonic() > deadline:
                raise KafkaBrokerError(f"The broker did not serve metadata within {timeout_s:.0f} s")

    def _accepts_connections(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def _check_alive(self) -> None:
        if self._jvm.exited:
            raise KafkaBrokerError(f"The broker exited during start-up:\n{self._jvm.output_tail()}")
