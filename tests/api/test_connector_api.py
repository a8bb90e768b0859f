"""The connector and task bases: their defaults and the declarations the runtime relies on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from conveyor.api import (
    ConfigDef,
    ConfigType,
    ConnectError,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    Importance,
    OffsetStorageReader,
    SinkConnector,
    SinkTask,
    SourceConnector,
    SourceTask,
    Task,
    TopicPartition,
    TransactionBoundary,
)
from conveyor.data import SinkRecord, SourceRecord


class LinesTask(SourceTask):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None: ...


class LinesSource(SourceConnector):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return LinesTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None: ...

    def config(self) -> ConfigDef:
        return ConfigDef().define("topic", ConfigType.STRING, importance=Importance.HIGH)


class BufferingTask(SinkTask):
    def __init__(self) -> None:
        self.flushed: list[dict[TopicPartition, int]] = []

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None: ...

    def put(self, records: Sequence[SinkRecord]) -> None: ...

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        self.flushed.append(dict(current_offsets))

    def stop(self) -> None: ...


def test_a_source_connector_does_not_declare_exactly_once_support_by_default() -> None:
    assert LinesSource().exactly_once_support({"topic": "t"}) is None


def test_a_source_connector_cannot_define_transaction_boundaries_by_default() -> None:
    assert LinesSource().can_define_transaction_boundaries({}) is ConnectorTransactionBoundaries.UNSUPPORTED


def test_exactly_once_declarations_use_kafkas_enum_names() -> None:
    assert [m.value for m in ExactlyOnceSupport] == ["SUPPORTED", "UNSUPPORTED"]
    assert [m.value for m in ConnectorTransactionBoundaries] == ["SUPPORTED", "UNSUPPORTED"]


def test_connector_validate_checks_the_config_against_its_definition() -> None:
    values = {value.name: value for value in LinesSource().validate({})}
    assert values["topic"].errors == ['Missing required configuration "topic" which has no default value.']


def test_reconfigure_restarts_with_the_new_config() -> None:
    connector = LinesSource()
    connector.start({"topic": "a"})
    connector.reconfigure({"topic": "b"})
    assert connector.task_configs(1) == [{"topic": "b"}]


def test_altering_offsets_is_not_handled_externally_by_default() -> None:
    assert LinesSource().alter_offsets({}, [({"file": "f"}, None)]) is False


def test_using_a_context_before_initialize_is_a_clear_error() -> None:
    with pytest.raises(ConnectError, match="LinesTask has not been initialized"):
        _ = LinesTask().context


def test_sink_pre_commit_flushes_and_returns_the_current_offsets() -> None:
    task = BufferingTask()
    offsets = {TopicPartition("t", 0): 10, TopicPartition("t", 1): 3}
    assert task.pre_commit(offsets) == offsets
    assert task.flushed == [offsets]


def test_topic_partitions_print_as_kafka_does_and_are_hashable() -> None:
    partition = TopicPartition("orders", 3)
    assert str(partition) == "orders-3"
    assert {partition: 1}[TopicPartition("orders", 3)] == 1


def test_transaction_boundary_parses_the_setting_in_any_case() -> None:
    assert TransactionBoundary.from_property(" Connector ") is TransactionBoundary.CONNECTOR


class DictOffsetReader(OffsetStorageReader):
    def __init__(self, stored: dict[str, dict[str, Any]]) -> None:
        self.stored = stored

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self.stored.get(partition["file"])


def test_offset_reader_pairs_each_partition_with_its_offset_in_order() -> None:
    reader = DictOffsetReader({"a": {"line": 4}})
    assert reader.offsets([{"file": "b"}, {"file": "a"}]) == [
        ({"file": "b"}, None),
        ({"file": "a"}, {"line": 4}),
    ]


def test_sink_connectors_name_kafkas_topic_keys() -> None:
    assert (SinkConnector.TOPICS_CONFIG, SinkConnector.TOPICS_REGEX_CONFIG) == ("topics", "topics.regex")
