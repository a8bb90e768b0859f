"""`task.class` names Kafka's Java task class where Conveyor's task has one, so that Kafka Connect and
Conveyor run each other's task configs; either name loads Conveyor's task."""

from __future__ import annotations

import pytest

from conveyor.connectors.file.sink import FileStreamSinkTask
from conveyor.connectors.file.source import FileStreamSourceTask
from conveyor.connectors.mirror.checkpoint import MirrorCheckpointTask
from conveyor.connectors.mirror.heartbeat import MirrorHeartbeatTask
from conveyor.connectors.mirror.sink import MirrorSinkTask
from conveyor.connectors.mirror.source import MirrorSourceTask
from conveyor.plugins.task_classes import load_task_class, task_class_name

KAFKA_TASKS = [
    (FileStreamSourceTask, "org.apache.kafka.connect.file.FileStreamSourceTask"),
    (FileStreamSinkTask, "org.apache.kafka.connect.file.FileStreamSinkTask"),
    (MirrorSourceTask, "org.apache.kafka.connect.mirror.MirrorSourceTask"),
    (MirrorCheckpointTask, "org.apache.kafka.connect.mirror.MirrorCheckpointTask"),
    (MirrorHeartbeatTask, "org.apache.kafka.connect.mirror.MirrorHeartbeatTask"),
]


@pytest.mark.parametrize(("task_class", "java_name"), KAFKA_TASKS)
def test_a_task_with_a_kafka_counterpart_is_written_under_kafkas_java_name(
    task_class: type, java_name: str
) -> None:
    assert task_class_name(task_class) == java_name


@pytest.mark.parametrize(("task_class", "java_name"), KAFKA_TASKS)
def test_kafkas_java_name_loads_conveyors_task(task_class: type, java_name: str) -> None:
    assert load_task_class(java_name) is task_class


@pytest.mark.parametrize("task_class", [task_class for task_class, _ in KAFKA_TASKS])
def test_the_python_path_of_a_task_with_a_kafka_counterpart_still_loads(task_class: type) -> None:
    assert load_task_class(f"{task_class.__module__}:{task_class.__qualname__}") is task_class


def test_a_task_without_a_kafka_counterpart_is_written_as_its_python_path() -> None:
    name = task_class_name(MirrorSinkTask)
    assert name == "conveyor.connectors.mirror.sink:MirrorSinkTask"
    assert load_task_class(name) is MirrorSinkTask
