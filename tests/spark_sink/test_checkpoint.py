"""Moving a stopped query's checkpoint to other offsets, in each state a stop can leave it in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conveyor.connectors.spark_sink.checkpoint import CheckpointError, local_directory, move_checkpoint
from conveyor.log import TopicPartition

METADATA = '{"batchWatermarkMs":0,"batchTimestampMs":1,"conf":{}}'
ORDERS_0 = TopicPartition("orders", 0)


def planned(checkpoint: Path, batch: int, ends: dict[str, dict[str, int]]) -> None:
    (checkpoint / "offsets").mkdir(parents=True, exist_ok=True)
    (checkpoint / "offsets" / str(batch)).write_text(f"v1\n{METADATA}\n{json.dumps(ends)}")
    (checkpoint / "offsets" / f".{batch}.crc").write_bytes(b"crc")


def committed(checkpoint: Path, batch: int) -> None:
    (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
    (checkpoint / "commits" / str(batch)).write_text('v1\n{"nextBatchWatermarkMs":0}')


def written(sink_log: Path, batch: int) -> None:
    sink_log.mkdir(parents=True, exist_ok=True)
    (sink_log / str(batch)).write_text("v1")


def ends_of(checkpoint: Path, batch: int) -> dict[str, dict[str, int]]:
    lines = (checkpoint / "offsets" / str(batch)).read_text().splitlines()
    assert lines[:2] == ["v1", METADATA]
    ends: dict[str, dict[str, int]] = json.loads(lines[2])
    return ends


def test_the_last_committed_batch_gets_the_new_end_offsets(tmp_path: Path) -> None:
    checkpoint, sink_log = tmp_path / "checkpoint", tmp_path / "_spark_metadata"
    planned(checkpoint, 0, {"orders": {"0": 10, "1": 7}})
    committed(checkpoint, 0)
    written(sink_log, 0)
    assert move_checkpoint(checkpoint, sink_log, {ORDERS_0: 4})
    assert ends_of(checkpoint, 0) == {"orders": {"0": 4, "1": 7}}
    assert not (checkpoint / "offsets" / ".0.crc").exists()


def test_a_reset_partition_resumes_from_its_earliest_offset(tmp_path: Path) -> None:
    checkpoint, sink_log = tmp_path / "checkpoint", tmp_path / "_spark_metadata"
    planned(checkpoint, 3, {"orders": {"0": 10}})
    committed(checkpoint, 3)
    assert move_checkpoint(checkpoint, sink_log, {ORDERS_0: None, TopicPartition("orders", 1): None})
    assert ends_of(checkpoint, 3) == {"orders": {"0": 0, "1": 0}}


def test_a_batch_the_sink_wrote_but_the_checkpoint_did_not_commit_is_committed(tmp_path: Path) -> None:
    checkpoint, sink_log = tmp_path / "checkpoint", tmp_path / "_spark_metadata"
    planned(checkpoint, 0, {"orders": {"0": 5}})
    planned(checkpoint, 1, {"orders": {"0": 10}})
    committed(checkpoint, 0)
    written(sink_log, 1)
    assert move_checkpoint(checkpoint, sink_log, {ORDERS_0: 2})
    assert (checkpoint / "commits" / "1").exists()
    assert ends_of(checkpoint, 1) == {"orders": {"0": 2}}


def test_a_batch_cut_short_before_the_sink_wrote_it_is_dropped(tmp_path: Path) -> None:
    checkpoint, sink_log = tmp_path / "checkpoint", tmp_path / "_spark_metadata"
    planned(checkpoint, 0, {"orders": {"0": 5}})
    planned(checkpoint, 1, {"orders": {"0": 10}})
    committed(checkpoint, 0)
    written(sink_log, 0)
    assert move_checkpoint(checkpoint, sink_log, {ORDERS_0: 2})
    assert not (checkpoint / "offsets" / "1").exists()
    assert not (checkpoint / "offsets" / ".1.crc").exists()
    assert ends_of(checkpoint, 0) == {"orders": {"0": 2}}


def test_without_a_checkpoint_there_is_nothing_to_move(tmp_path: Path) -> None:
    assert not move_checkpoint(tmp_path / "checkpoint", tmp_path / "_spark_metadata", {ORDERS_0: 1})


def test_a_checkpoint_on_a_remote_file_system_cannot_be_moved() -> None:
    assert local_directory("file:///data/out") == Path("/data/out")
    with pytest.raises(CheckpointError, match="only local"):
        local_directory("s3a://bucket/out/_checkpoint")


def test_a_table_sinks_checkpoint_moves_when_its_last_batch_committed(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoint"
    planned(checkpoint, 0, {"orders": {"0": 10}})
    committed(checkpoint, 0)
    assert move_checkpoint(checkpoint, None, {ORDERS_0: 4})
    assert ends_of(checkpoint, 0) == {"orders": {"0": 4}}


def test_a_table_sinks_checkpoint_with_an_unfinished_batch_is_not_moved(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoint"
    planned(checkpoint, 0, {"orders": {"0": 10}})
    committed(checkpoint, 0)
    planned(checkpoint, 1, {"orders": {"0": 20}})
    with pytest.raises(CheckpointError, match="last batch 1 did not finish"):
        move_checkpoint(checkpoint, None, {ORDERS_0: 4})
    assert ends_of(checkpoint, 1) == {"orders": {"0": 20}}
