"""Plugins the worker tests name by dotted path: a failing source, a failing transform, a recording sink,
a config provider."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence, Set
from pathlib import Path
from typing import Any

from conveyor.api import (
    ConfigData,
    ConfigDef,
    ConfigProvider,
    ConfigType,
    Importance,
    PluginMetrics,
    Predicate,
    SinkConnector,
    SinkTask,
    SourceConnector,
    SourceTask,
    Task,
    TopicPartition,
    Transformation,
)
from conveyor.connectors.generator.payload import parse_header
from conveyor.data import ConnectRecord, SinkRecord, SourceRecord

FAILING_SOURCE = "tests.worker.connectors:FailingSourceConnector"
ODD_RECORD_REJECTER = "tests.worker.connectors:RejectOddRecords"
FAILURE_MESSAGE = "the failing source failed on purpose"

MEMORY_HOG = "tests.worker.connectors:MemoryHogConnector"
STUCK_MEMORY_HOG = "tests.worker.connectors:StuckMemoryHogConnector"
HOG_CHUNK_BYTES = 64 * 1024 * 1024

FAIL_AFTER_MS_CONFIG = "fail.after.ms"
FAIL_ONCE_MARKER_CONFIG = "fail.once.marker"


class FailingSourceConnector(SourceConnector):
    """One task that runs for `fail.after.ms`, producing nothing, then raises in `poll`.

    With `fail.once.marker` set to a file path, only the first incarnation fails (it creates the file);
    later ones run, producing nothing, until stopped.
    """

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return FailingSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(FAIL_AFTER_MS_CONFIG, ConfigType.LONG, default=1000, importance=Importance.LOW,
                    documentation="How long the task runs before its poll raises.")
            .define(FAIL_ONCE_MARKER_CONFIG, ConfigType.STRING, default="", importance=Importance.LOW,
                    documentation="A file whose existence means the task has failed already.")
        )  # fmt: skip


class FailingSourceTask(SourceTask):
    def __init__(self) -> None:
        self._fail_after_s = 1.0
        self._marker: Path | None = None
        self._stopping = threading.Event()

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._fail_after_s = int(props.get(FAIL_AFTER_MS_CONFIG, "1000")) / 1000
        marker = props.get(FAIL_ONCE_MARKER_CONFIG, "")
        self._marker = Path(marker) if marker else None

    def poll(self) -> list[SourceRecord] | None:
        if self._stopping.wait(self._fail_after_s):
            return None
        if self._marker is not None:
            if self._marker.exists():
                return None
            self._marker.touch()
        raise RuntimeError(FAILURE_MESSAGE)

    def stop(self) -> None:
        self._stopping.set()


class RejectOddRecords(Transformation[ConnectRecord]):
    """Raises on every generated record with an odd sequence number; passes the others unchanged."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """No settings."""

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        header = parse_header(str(record.value))
        if header is not None and header[1] % 2 == 1:
            raise ValueError(f"odd sequence number {header[1]} rejected")
        return record


COUNTING_TRANSFORM = "tests.worker.connectors:CountingTransform"
EVERY_RECORD_PREDICATE = "tests.worker.connectors:EveryRecord"


class CountingTransform(Transformation[ConnectRecord]):
    """Passes records unchanged and publishes how many it saw (a Monitorable transformation)."""

    def __init__(self) -> None:
        self.seen = 0

    def configure(self, configs: Mapping[str, Any]) -> None:
        """No settings."""

    def with_plugin_metrics(self, metrics: PluginMetrics) -> None:
        metrics.add_metric(metrics.metric_name("records-seen-total", "Records seen."), lambda: self.seen)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        self.seen += 1
        return record


class EveryRecord(Predicate[ConnectRecord]):
    """True of every record; publishes how many it tested (a Monitorable predicate)."""

    def __init__(self) -> None:
        self.tested = 0

    def configure(self, configs: Mapping[str, Any]) -> None:
        """No settings."""

    def with_plugin_metrics(self, metrics: PluginMetrics) -> None:
        metrics.add_metric(metrics.metric_name("records-tested-total"), lambda: self.tested)

    def test(self, record: ConnectRecord) -> bool:
        self.tested += 1
        return True


RECORDING_SINK = "tests.worker.connectors:RecordingSinkConnector"
EVENTS_FILE_CONFIG = "events.file"
VALUES_DIR_CONFIG = "values.dir"


class RecordingSinkConnector(SinkConnector):
    """A sink whose tasks write every value to a file of their own and log open/pre_commit/close calls."""

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return RecordingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, "recording.task": str(i)} for i in range(max_tasks)]

    def alter_offsets(
        self, connector_config: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """Log the positions asked for, as a sink that keeps positions of its own would move them."""
        entry = {"event": "alter_offsets", "offsets": {str(p): o for p, o in sorted(offsets.items())}}
        with Path(connector_config[EVENTS_FILE_CONFIG]).open("a") as events:
            events.write(json.dumps(entry) + "\n")
        return True

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(EVENTS_FILE_CONFIG, ConfigType.STRING, importance=Importance.HIGH)
            .define(VALUES_DIR_CONFIG, ConfigType.STRING, importance=Importance.HIGH)
        )


class RecordingSinkTask(SinkTask):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._task = int(props["recording.task"])
        self._events = Path(props[EVENTS_FILE_CONFIG])
        self._values = (Path(props[VALUES_DIR_CONFIG]) / f"task-{self._task}.txt").open("a")

    def _event(self, event: str, partitions: Iterable[TopicPartition], **extra: Any) -> None:
        entry = {
            "task": self._task,
            "event": event,
            "partitions": sorted(str(p) for p in partitions),
            **extra,
        }
        with self._events.open("a") as events:
            events.write(json.dumps(entry) + "\n")

    def open(self, partitions: Collection[TopicPartition]) -> None:
        self._event("open", partitions)

    def put(self, records: Sequence[SinkRecord]) -> None:
        self._values.writelines(f"{record.value}\n" for record in records)

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        self._values.flush()
        os.fsync(self._values.fileno())
        if self.context.is_closing():
            self._event("pre_commit", current_offsets, closing=True)
        return dict(current_offsets)

    def close(self, partitions: Collection[TopicPartition]) -> None:
        self._event("close", partitions)

    def stop(self) -> None:
        self._values.close()


BUFFERING_SINK = "tests.worker.connectors:BufferingFileSinkConnector"
OUTPUT_DIR_CONFIG = "output.dir"
RECORDS_PER_FILE_CONFIG = "records.per.file"
RESPECT_CLOSING_CONFIG = "respect.closing"
FAIL_ON_RECORD_CONFIG = "fail.on.record"


class BufferingFileSinkConnector(SinkConnector):
    """An archiving sink (KAFKA-6725): tasks write `records.per.file` records per file in `pre_commit`,
    commit only what they wrote, and note every record `put` in `consumed-<tasks.max>-<task>.txt` and
    every partition closed in `closed-<tasks.max>-<task>.txt`.

    With `respect.closing=true` a closing `pre_commit` writes the partial file too. With
    `fail.on.record=<partition>:<offset>` and `fail.once.marker`, the first task handed that record
    fails (its object store timing out) before taking any record of that `put`; later ones take it."""

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return BufferingFileSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, "buffering.task": f"{max_tasks}-{i}"} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(OUTPUT_DIR_CONFIG, ConfigType.STRING, importance=Importance.HIGH)
            .define(RECORDS_PER_FILE_CONFIG, ConfigType.INT, importance=Importance.HIGH)
            .define(RESPECT_CLOSING_CONFIG, ConfigType.BOOLEAN, importance=Importance.HIGH)
            .define(FAIL_ON_RECORD_CONFIG, ConfigType.STRING, default="", importance=Importance.LOW)
            .define(FAIL_ONCE_MARKER_CONFIG, ConfigType.STRING, default="", importance=Importance.LOW)
        )


class BufferingFileSinkTask(SinkTask):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._dir = Path(props[OUTPUT_DIR_CONFIG])
        self._per_file = int(props[RECORDS_PER_FILE_CONFIG])
        self._respect_closing = props[RESPECT_CLOSING_CONFIG] == "true"
        self._task = props["buffering.task"]
        self._consumed = (self._dir / f"consumed-{self._task}.txt").open("a")
        self._buffers: dict[TopicPartition, list[int]] = {}
        self._written: dict[TopicPartition, int] = {}
        self._fail_on = props.get(FAIL_ON_RECORD_CONFIG, "")
        self._fail_marker = Path(props.get(FAIL_ONCE_MARKER_CONFIG) or self._dir / "failed")

    def open(self, partitions: Collection[TopicPartition]) -> None:
        for partition in partitions:
            self._buffers[partition] = []

    def put(self, records: Sequence[SinkRecord]) -> None:
        if self._fail_on and self._fail_on in [f"{r.kafka_partition}:{r.kafka_offset}" for r in records]:
            try:
                self._fail_marker.touch(exist_ok=False)
            except FileExistsError:
                pass
            else:
                raise TimeoutError("the object store timed out")
        for record in records:
            self._buffers[TopicPartition(record.topic, record.kafka_partition)].append(record.kafka_offset)
        self._consumed.writelines(f"{r.kafka_partition}:{r.kafka_offset}\n" for r in records)
        self._consumed.flush()

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        closing = self._respect_closing and self.context.is_closing()
        for partition in current_offsets:
            buffer = self._buffers.get(partition, [])
            while len(buffer) >= self._per_file or (closing and buffer):
                chunk, buffer[:] = buffer[: self._per_file], buffer[self._per_file :]
                name = f"file-{partition.partition}-{chunk[0]}-{chunk[-1]}.txt"
                (self._dir / name).write_text("".join(f"{offset}\n" for offset in chunk))
                self._written[partition] = chunk[-1] + 1
        return {p: o for p, o in self._written.items() if p in current_offsets}

    def close(self, partitions: Collection[TopicPartition]) -> None:
        for partition in partitions:
            self._buffers.pop(partition, None)
            self._written.pop(partition, None)
        with (self._dir / f"closed-{self._task}.txt").open("a") as closed:
            closed.writelines(f"{partition.partition}\n" for partition in partitions)

    def stop(self) -> None:
        self._consumed.close()


class UpperCaseProvider(ConfigProvider):
    """A user's config provider: every key, upper-cased, with a configured suffix."""

    def configure(self, configs: Mapping[str, str]) -> None:
        self.suffix = configs.get("suffix", "")

    def get(self, path: str, keys: Set[str] | None = None) -> ConfigData:
        return ConfigData({key: key.upper() + self.suffix for key in keys or ()})


METERED_SOURCE = "tests.worker.connectors:MeteredSourceConnector"


class MeteredSourceConnector(SourceConnector):
    """One task that registers its own metrics (KIP-877): polls made, tagged with a `table`; the
    connector registers one too."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        metrics = self.context.plugin_metrics()
        metrics.add_metric(metrics.metric_name("tables-known", "Tables the connector knows."), lambda: 3)

    def task_class(self) -> type[Task]:
        return MeteredSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return ConfigDef()


class MeteredSourceTask(SourceTask):
    def __init__(self) -> None:
        self.polls = 0
        self._stopping = threading.Event()

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        metrics = self.context.plugin_metrics()
        name = metrics.metric_name("polls-total", "Polls the task made.", {"table": "orders"})
        metrics.add_metric(name, lambda: self.polls)

    def poll(self) -> list[SourceRecord] | None:
        self.polls += 1
        self._stopping.wait(0.05)
        return None

    def stop(self) -> None:
        self._stopping.set()


class MemoryHogConnector(SourceConnector):
    """One task that keeps every chunk it allocates, 64 MB a poll, without bound."""

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Nothing to keep."""

    def task_class(self) -> type[Task]:
        return MemoryHogTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{}]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return ConfigDef()


class MemoryHogTask(SourceTask):
    def __init__(self) -> None:
        self._held: list[bytearray] = []

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def poll(self) -> list[SourceRecord] | None:
        self._held.append(bytearray(b"x" * HOG_CHUNK_BYTES))
        return None

    def stop(self) -> None:
        self._held.clear()


class StuckMemoryHogConnector(MemoryHogConnector):
    """A memory hog whose task, told it holds too much, lets go of it and then never returns."""

    def task_class(self) -> type[Task]:
        return StuckMemoryHogTask


class StuckMemoryHogTask(MemoryHogTask):
    """Allocates inside one call of `poll`, so that its `MemoryError` is raised there and nowhere else."""

    def poll(self) -> list[SourceRecord] | None:
        try:
            while True:
                super().poll()
        except MemoryError:
            self._held.clear()
            threading.Event().wait()
            return None
