"""Several distributed workers in this process, one group on one embedded log, each with its REST server.

Their tasks run in threads (`ThreadTaskRunner`); everything else is as in a worker process: the group
membership, the config, offset and status topics, and the HTTP between workers (forwarding, internal
requests).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.runtime.threads import ThreadTaskRunner
from tests.waiting import wait_until

from conveyor.herder.distributed.herder import DistributedHerder
from conveyor.log import Log, open_log
from conveyor.rest import RestServer, create_app
from conveyor.settings.worker_config import WorkerConfig

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


def group_props(data_dir: Path, **overrides: str) -> dict[str, str]:
    """Worker properties for a quick test group: short timeouts, one partition per internal topic."""
    return {
        "group.id": "test-group",
        "data.dir": str(data_dir),
        "listeners": "http://127.0.0.1:0",
        "offset.flush.interval.ms": "100",
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "task.restart.enable": "false",
        "session.timeout.ms": "3000",
        "heartbeat.interval.ms": "300",
        "rebalance.timeout.ms": "10000",
        "scheduled.rebalance.max.delay.ms": "0",
        "worker.sync.timeout.ms": "5000",
        "worker.unsync.backoff.ms": "500",
        **overrides,
    }


@dataclass
class Member:
    """One worker of the test group."""

    herder: DistributedHerder
    server: RestServer
    log: Log
    runner: ThreadTaskRunner

    @property
    def url(self) -> str:
        return self.server.url

    def http(self, method: str, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        return httpx.request(method, self.url + path, json=body, timeout=60, **kwargs)

    def stop(self) -> None:
        self.herder.stop()
        self.server.stop()
        self.log.close()


def start_member(props: Mapping[str, str]) -> Member:
    config = WorkerConfig.from_props(props, standalone=False)
    log = open_log(config.log_url)
    runner = ThreadTaskRunner()
    herder = DistributedHerder(config, log, runner, "pending", url="")
    server = RestServer(create_app(herder, internal=herder), config.listeners)
    server.start()
    port = int(server.url.rsplit(":", 1)[1])
    herder.set_worker_id(f"127.0.0.1:{port}")
    herder.url = config.advertised_url(port)
    herder.start()
    return Member(herder, server, log, runner)


@contextmanager
def group(data_dir: Path, size: int, **overrides: str) -> Iterator[list[Member]]:
    """`size` workers that have all joined, each having handled its first assignment."""
    members: list[Member] = []
    try:
        for _ in range(size):
            members.append(start_member(group_props(data_dir, **overrides)))
        wait_until(lambda: settled(members), f"{size} workers settled in one generation")
        yield members
    finally:
        for member in members:
            member.stop()


def settled(members: list[Member]) -> bool:
    """Every worker is ready, at the same generation, and they agree on one leader."""
    live = [m for m in members if m.herder.ready()]
    if len(live) != len(members):
        return False
    generations = {m.herder.generation for m in members}
    leaders = {m.herder.leader_url() for m in members}
    return len(generations) == 1 and len(leaders) == 1 and sum(m.herder.is_leader() for m in members) == 1


def leader_of(members: list[Member]) -> Member:
    return next(m for m in members if m.herder.is_leader())


def followers_of(members: list[Member]) -> list[Member]:
    return [m for m in members if not m.herder.is_leader()]
