"""KIP-875 through the standalone herder: listing offsets; altering or resetting a stopped connector's."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conveyor.errors import BadRequestError
from conveyor.herder.base import OFFSETS_ALTERED, OFFSETS_RESET
from conveyor.herder.entities import ConnectorOffset
from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import Log, TopicPartition

from .conftest import Standalone
from .support import NAME, WAIT_S, file_source, recording_sink, wait_for_states

SINK_PARTITION = {"kafka_topic": "in", "kafka_partition": 0}


def wait_for_offsets(herder: StandaloneHerder) -> list[ConnectorOffset]:
    deadline = time.monotonic() + WAIT_S
    while not (offsets := herder.connector_offsets(NAME)):
        assert time.monotonic() < deadline, "the task never committed offsets"
        time.sleep(0.05)
    return offsets


def topic_values(log: Log, topic: str) -> list[bytes | None]:
    with log.consumer(None, "read_committed", **{"auto.offset.reset": "earliest"}) as consumer:
        consumer.assign([TopicPartition(topic, 0)])
        return [record.value for record in consumer.poll(timeout=0.0, max_records=1000)]


def stopped_sink(herder: StandaloneHerder, log: Log, tmp_path: Path) -> None:
    log.admin().create_topic("in", partitions=1)
    herder.put_connector_config(NAME, recording_sink(tmp_path), allow_replace=False, initial_state="STOPPED")


def test_a_source_tasks_committed_offsets_are_listed(herder: StandaloneHerder, tmp_path: Path) -> None:
    config = file_source(tmp_path)
    herder.put_connector_config(NAME, config, allow_replace=False)
    offsets = wait_for_offsets(herder)
    assert [entry.partition for entry in offsets] == [{"filename": config["file"]}]


def test_offsets_of_a_running_connector_cannot_be_altered(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    with pytest.raises(BadRequestError, match="must be in the STOPPED state"):
        herder.alter_connector_offsets(NAME, [ConnectorOffset({"filename": "x"}, {"position": 0})])


def test_an_alter_without_offsets_is_a_bad_request(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False, initial_state="STOPPED")
    with pytest.raises(BadRequestError, match="Partitions / offsets need to be provided"):
        herder.alter_connector_offsets(NAME, [])


def test_altered_source_offsets_are_where_the_task_resumes(standalone: Standalone, tmp_path: Path) -> None:
    herder = standalone.herder
    config = file_source(tmp_path)
    herder.put_connector_config(NAME, config, allow_replace=False, initial_state="STOPPED")
    after_first_line = ConnectorOffset({"filename": config["file"]}, {"position": len("first\n")})
    assert herder.alter_connector_offsets(NAME, [after_first_line]) == OFFSETS_ALTERED
    assert herder.connector_offsets(NAME) == [after_first_line]
    herder.resume_connector(NAME)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    deadline = time.monotonic() + WAIT_S
    while topic_values(standalone.log, "lines") != [b"second"]:
        assert time.monotonic() < deadline, f"got {topic_values(standalone.log, 'lines')}"
        time.sleep(0.05)


def test_reset_source_offsets_are_gone(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    wait_for_offsets(herder)
    herder.stop_connector(NAME)
    assert herder.reset_connector_offsets(NAME) == OFFSETS_RESET
    assert herder.connector_offsets(NAME) == []


def test_altered_sink_offsets_are_the_consumer_groups_committed_offsets(
    standalone: Standalone, tmp_path: Path
) -> None:
    herder = standalone.herder
    stopped_sink(herder, standalone.log, tmp_path)
    herder.alter_connector_offsets(NAME, [ConnectorOffset(SINK_PARTITION, {"kafka_offset": 5})])
    assert herder.connector_offsets(NAME) == [ConnectorOffset(SINK_PARTITION, {"kafka_offset": 5})]
    committed = standalone.log.admin().list_consumer_group_offsets(f"connect-{NAME}")
    assert {tp: meta.offset for tp, meta in committed.items()} == {TopicPartition("in", 0): 5}


def test_reset_sink_offsets_delete_the_consumer_group(standalone: Standalone, tmp_path: Path) -> None:
    herder = standalone.herder
    stopped_sink(herder, standalone.log, tmp_path)
    herder.alter_connector_offsets(NAME, [ConnectorOffset(SINK_PARTITION, {"kafka_offset": 5})])
    assert herder.reset_connector_offsets(NAME) == OFFSETS_RESET
    assert herder.connector_offsets(NAME) == []
    assert f"connect-{NAME}" not in standalone.log.admin().list_consumer_groups()


def test_a_reset_moves_a_sinks_own_positions_of_every_partition_it_reads_even_with_no_group(
    standalone: Standalone, tmp_path: Path
) -> None:
    herder = standalone.herder
    stopped_sink(herder, standalone.log, tmp_path)
    assert f"connect-{NAME}" not in standalone.log.admin().list_consumer_groups()
    assert herder.reset_connector_offsets(NAME) == OFFSETS_RESET
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert events == [{"event": "alter_offsets", "offsets": {str(TopicPartition("in", 0)): None}}]


def test_sink_offsets_without_topic_and_partition_are_a_bad_request(
    standalone: Standalone, tmp_path: Path
) -> None:
    herder = standalone.herder
    stopped_sink(herder, standalone.log, tmp_path)
    with pytest.raises(BadRequestError, match="'kafka_topic' and 'kafka_partition'"):
        herder.alter_connector_offsets(NAME, [ConnectorOffset({"filename": "x"}, {"kafka_offset": 5})])
