"""Running a task loop in a thread of this test, waiting for what it does, and reading the log back."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

import waiting
from conveyor.data import SourceRecord
from conveyor.log import ConsumerRecord, Log, TopicPartition
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import OffsetStore

T = TypeVar("T")

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
OFFSETS_TOPIC = "connect-offsets"
CONNECTOR = "conn"
WAIT_S = 30.0
#: Longer than any test: offsets are committed only when a test makes the loop commit.
NEVER_MS = "3600000"


def worker_props(log_url: str, **overrides: str) -> dict[str, str]:
    """What a worker ships to its tasks: the log, string converters, a one-partition offsets topic."""
    props = {
        "log.url": log_url,
        "group.id": "tests",
        "offset.storage.topic": OFFSETS_TOPIC,
        "offset.storage.partitions": "1",
        "offset.flush.interval.ms": NEVER_MS,
        "exactly.once.source.support": "disabled",
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "header.converter": HEADER_CONVERTER,
    }
    return props | overrides


def task_spec(
    connector_config: Mapping[str, str], worker: Mapping[str, str], kind: str = "source"
) -> TaskSpec:
    config = {"name": CONNECTOR, **connector_config}
    return TaskSpec(
        TaskId(CONNECTOR, 0), TaskKind(kind), config, dict(config), WorkerConfig.from_props(worker)
    )


def source_record(topic: str, position: int, *, file: str = "input") -> SourceRecord:
    """A string record read at `position` of a source `file`; its offset is the next position."""
    return SourceRecord(
        topic=topic,
        source_partition={"file": file},
        source_offset={"position": position + 1},
        value=f"{file}-{position}",
    )


def wait_until(condition: Callable[[], T | None], what: str, timeout_s: float = WAIT_S) -> T:
    """`waiting.wait_until` with this folder's deadline."""
    return waiting.wait_until(condition, what, timeout_s)


class Runnable(Protocol):
    def run(self) -> None: ...


class RunningLoop:
    """A task loop running in a thread; `error` is what it raised, once it has ended."""

    def __init__(self, loop: Runnable, control: LocalTaskControl) -> None:
        self.control = control
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(loop,), daemon=True)
        self._thread.start()

    def _run(self, loop: Runnable) -> None:
        try:
            loop.run()
        except BaseException as exc:
            self.error = exc

    def set_target(self, state: TargetState) -> None:
        self.control.set_target_state(state)

    def metric(self, name: str) -> Any:
        return self.control.metrics.get(name)

    def wait_for_state(self, state: str) -> None:
        wait_until(lambda: self.metric("state") == state, f"the task to report {state}")

    def join(self) -> BaseException | None:
        """Wait for the loop to end; the error it raised, if any."""
        self._thread.join(WAIT_S)
        assert not self._thread.is_alive(), "the task loop did not end"
        return self.error

    def stop(self) -> None:
        """Ask the loop to stop, and fail the test if it raised."""
        self.set_target(TargetState.STOPPED)
        error = self.join()
        if error is not None:
            raise AssertionError("the task loop failed") from error


@contextmanager
def running(loop: Runnable, control: LocalTaskControl) -> Iterator[RunningLoop]:
    """Run `loop` while the block runs; it is stopped on the way out (a failure is the test's)."""
    handle = RunningLoop(loop, control)
    try:
        yield handle
    finally:
        handle.set_target(TargetState.STOPPED)
        handle.join()


def read_topic(log: Log, topic: str, isolation_level: str = "read_committed") -> list[ConsumerRecord]:
    """Every record a fresh consumer reads from the start of `topic` (none while it does not exist)."""
    admin = log.admin()
    if topic not in admin.list_topics():
        return []
    partitions = admin.describe_topics([topic])[topic].topic_partitions()
    consumer = log.consumer(None, isolation_level, **{"auto.offset.reset": "earliest"})  # type: ignore[arg-type]
    try:
        consumer.assign(partitions)
        consumer.seek_to_beginning(partitions)
        records: list[ConsumerRecord] = []
        while batch := consumer.poll(timeout=0.0, max_records=10_000):
            records.extend(batch)
        return sorted(records, key=lambda record: (record.partition, record.offset))
    finally:
        consumer.close()


def read_values(log: Log, topic: str, isolation_level: str = "read_committed") -> list[str | None]:
    return [
        None if record.value is None else record.value.decode()
        for record in read_topic(log, topic, isolation_level)
    ]


def committed_source_offsets(log: Log, connector: str = CONNECTOR) -> dict[str, dict[str, Any]]:
    """The committed offset of each source file of `connector`, read from the offsets topic."""
    store = OffsetStore(log, OFFSETS_TOPIC, partitions=1)
    store.start()
    try:
        return {
            str(entry.partition["file"]): dict(entry.offset) for entry in store.offsets(connector).values()
        }
    finally:
        store.stop()


def produce(log: Log, topic: str, values: list[bytes], partitions: int = 1) -> None:
    """Create `topic` if needed and append `values` to its partition 0."""
    admin = log.admin()
    if topic not in admin.list_topics():
        admin.create_topic(topic, partitions=partitions)
    with log.producer() as producer:
        for value in values:
            producer.send(topic, value, partition=0)
        producer.flush()


def committed_group_offsets(log: Log, group: str) -> dict[TopicPartition, int]:
    return {tp: meta.offset for tp, meta in log.admin().list_consumer_group_offsets(group).items()}
