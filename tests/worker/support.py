"""Starting standalone workers for the behaviour tests, driving them over REST and reading their topics."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx

import waiting
from conveyor.cli.worker_process import StandaloneWorker
from conveyor.log import Log, TopicPartition
from conveyor.runtime.task_spec import TaskId
from conveyor.settings.worker_config import WorkerConfig

T = TypeVar("T")

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
WAIT_S = 60.0


def exactly_once(enabled: bool) -> dict[str, str]:
    """The worker setting for KIP-618's exactly-once source support, on or off."""
    return {"exactly.once.source.support": "enabled" if enabled else "disabled"}


def worker_config(data_dir: Path, **overrides: str) -> WorkerConfig:
    """A standalone worker on its own data dir, flushing offsets often, with string converters."""
    props = {
        "data.dir": str(data_dir),
        "listeners": "http://127.0.0.1:0",
        "offset.flush.interval.ms": "200",
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "task.restart.backoff.initial.ms": "200",
        "task.shutdown.graceful.timeout.ms": "5000",
    }
    return WorkerConfig.from_props(props | overrides)


@contextmanager
def running_worker(
    data_dir: Path, log_url: str | None = None, **overrides: str
) -> Iterator[StandaloneWorker]:
    """A started worker (on `log_url`, else the embedded log in its data dir), stopped (tasks committing
    what they may) on the way out."""
    log = {"log.url": log_url} if log_url else {}
    worker = StandaloneWorker(worker_config(data_dir, **log, **overrides))
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()


@contextmanager
def rest_client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=worker.url, timeout=60.0) as client:
        yield client


def delete_all_connectors(client: httpx.Client) -> None:
    for name in client.get("/connectors").json():
        client.delete(f"/connectors/{name}")


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_connector(client: httpx.Client, name: str, config: dict[str, str]) -> None:
    response = client.post("/connectors", json={"name": name, "config": config})
    assert response.status_code == 201, response.text


def generator_config(topic: str, **settings: str) -> dict[str, str]:
    return {"connector.class": "GeneratorSourceConnector", "topic": topic, "tasks.max": "1", **settings}


def wait_until(
    condition: Callable[[], T | None], what: str, timeout_s: float = WAIT_S, every_s: float = 0.1
) -> T:
    """`waiting.wait_until` with this folder's deadline."""
    return waiting.wait_until(condition, what, timeout_s, every_s)


def status(client: httpx.Client, name: str) -> dict[str, Any]:
    response = client.get(f"/connectors/{name}/status")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def states(client: httpx.Client, name: str) -> tuple[str, list[str]]:
    """The connector's state and its tasks' states, in task order."""
    body = status(client, name)
    return body["connector"]["state"], [task["state"] for task in body["tasks"]]


def wait_for_partitions_held(client: httpx.Client, name: str, tasks: int, timeout_s: float = WAIT_S) -> None:
    """Wait until each of the sink's `tasks` tasks holds partitions (its `partition-count`): a task reports
    RUNNING once its `start()` returns, as Kafka's do, before its consumer has joined the group."""

    def held() -> bool:
        counts = [task.get("metrics", {}).get("partition-count") for task in status(client, name)["tasks"]]
        return len(counts) == tasks and all(count for count in counts)

    wait_until(held, f"each of the {tasks} tasks of {name} holding partitions", timeout_s)


def wait_for_states(
    client: httpx.Client, name: str, connector: str, tasks: list[str], timeout_s: float = WAIT_S
) -> None:
    last: list[tuple[str, list[str]]] = []

    def reached() -> bool:
        last[:] = [states(client, name)]
        return last[0] == (connector, tasks)

    try:
        wait_until(reached, f"{name} to be {connector} {tasks}", timeout_s)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last seen {last}") from None


def task_metrics(worker: StandaloneWorker, name: str, task: int = 0) -> dict[str, Any]:
    return worker.runner.metrics(TaskId(name, task))


def task_pid(worker: StandaloneWorker, name: str, task: int = 0) -> int:
    """The pid of the Python process running the task on its Spark executor, once it reports one."""
    pid: int = wait_until(lambda: task_metrics(worker, name, task).get("pid"), f"the pid of {name}-{task}")
    return pid


def end_offset(log: Log, topic: str) -> int:
    """The sum of the high watermarks of the topic's partitions (0 while it does not exist)."""
    admin = log.admin()
    if topic not in admin.list_topics():
        return 0
    partitions = admin.describe_topics([topic])[topic].topic_partitions()
    return sum(offsets.latest for offsets in admin.list_offsets(partitions).values())


def read_topic(log: Log, topic: str, isolation_level: str = "read_committed") -> list[Any]:
    """Every record a fresh consumer reads from the start of `topic` to its end."""
    admin = log.admin()
    if topic not in admin.list_topics():
        return []
    partitions = [TopicPartition(topic, p) for p in range(admin.describe_topics([topic])[topic].partitions)]
    consumer = log.consumer(None, isolation_level, **{"auto.offset.reset": "earliest"})  # type: ignore[arg-type]
    try:
        consumer.assign(partitions)
        consumer.seek_to_beginning(partitions)
        records: list[Any] = []
        while batch := consumer.poll(timeout=0.0, max_records=50_000):
            records.extend(batch)
        return records
    finally:
        consumer.close()


def read_values(log: Log, topic: str, isolation_level: str = "read_committed") -> list[bytes | None]:
    return [record.value for record in read_topic(log, topic, isolation_level)]


def file_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []
