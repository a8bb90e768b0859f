"""FileStreamSinkConnector and FileStreamSinkTask append one line per record and make it durable on flush."""

from __future__ import annotations

from pathlib import Path

import pytest
from connector_contexts import DictSinkTaskContext

from conveyor.api import ConnectError, TopicPartition
from conveyor.connectors.file import FileStreamSinkConnector, FileStreamSinkTask
from conveyor.data import STRING_SCHEMA, SinkColumns, SinkRecord


def started_task(props: dict[str, str]) -> FileStreamSinkTask:
    task = FileStreamSinkTask()
    task.initialize(DictSinkTaskContext(props))
    task.start(props)
    return task


def record(value: object, offset: int = 0) -> SinkRecord:
    return SinkRecord(
        "lines", kafka_partition=0, value_schema=STRING_SCHEMA, value=value, kafka_offset=offset
    )


def test_each_value_is_written_as_one_line(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    task = started_task({"file": str(output)})

    task.put([record("alpha"), record("beta")])
    task.flush({TopicPartition("lines", 0): 2})

    assert output.read_text() == "alpha\nbeta\n"


def test_put_lines_are_in_the_file_before_any_flush(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    task = started_task({"file": str(output)})

    task.put([record("alpha"), record("beta")])

    assert output.read_text() == "alpha\nbeta\n"


def test_values_that_are_not_strings_are_written_as_their_str(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    task = started_task({"file": str(output)})

    task.put([record(42), record(None)])
    task.flush({})

    assert output.read_text() == "42\nnull\n"


def test_writes_append_to_an_existing_file(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    output.write_text("earlier\n")
    task = started_task({"file": str(output)})

    task.put([record("later")])
    task.flush({})

    assert output.read_text() == "earlier\nlater\n"


def test_pre_commit_flushes_and_returns_the_offsets(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    task = started_task({"file": str(output)})
    task.put([record("alpha")])

    committed = task.pre_commit({TopicPartition("lines", 0): 1})

    assert committed == {TopicPartition("lines", 0): 1}
    assert output.read_text() == "alpha\n"


def test_stop_writes_out_what_was_put(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    task = started_task({"file": str(output)})
    task.put([record("alpha")])

    task.stop()

    assert output.read_text() == "alpha\n"


def test_without_a_file_the_values_go_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    task = started_task({})
    task.put([record("to the console")])
    task.flush({})
    assert capsys.readouterr().out == "to the console\n"


def test_an_unwritable_file_fails_start_with_its_name(tmp_path: Path) -> None:
    missing_dir_file = tmp_path / "no-such-dir" / "out.txt"
    with pytest.raises(ConnectError, match="no-such-dir"):
        started_task({"file": str(missing_dir_file)})


def test_the_connector_gives_every_task_the_same_config() -> None:
    connector = FileStreamSinkConnector()
    props = {"file": "out.txt", "topics": "lines"}
    connector.start(props)
    assert connector.task_configs(3) == [props, props, props]
    assert connector.task_class() is FileStreamSinkTask


def test_the_connector_accepts_any_offsets_alteration() -> None:
    altered = FileStreamSinkConnector().alter_offsets({"topics": "lines"}, {TopicPartition("lines", 0): 5})
    assert altered is True


def test_converted_columns_are_written_as_the_same_lines_as_records(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    task = started_task({"file": str(output)})
    values = ["alpha", 42, None]
    columns = SinkColumns(
        "lines", 0, [0, 1, 2], [None] * 3, [None] * 3, [None] * 3, values, [0] * 3, next_offset=3
    )

    task.put_columns(columns)
    task.put([record(value) for value in values])
    task.flush({})

    assert output.read_text() == "alpha\n42\nnull\n" * 2
    assert values == ["alpha", 42, None]
