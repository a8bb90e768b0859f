"""FileStreamSourceConnector and FileStreamSourceTask behave as Kafka's file source does."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from connector_contexts import DictOffsetStorageReader, DictSourceTaskContext

from conveyor.api import ConnectError, ExactlyOnceSupport
from conveyor.connectors.file import FileStreamSourceConnector, FileStreamSourceTask
from conveyor.data import STRING_SCHEMA, SourceRecord


def started_task(
    props: dict[str, str], offsets: DictOffsetStorageReader | None = None
) -> FileStreamSourceTask:
    task = FileStreamSourceTask()
    task.idle_wait_seconds = 0.01
    task.initialize(DictSourceTaskContext(props, offsets))
    task.start(props)
    return task


def poll_values(task: FileStreamSourceTask) -> list[str]:
    return [record.value for record in task.poll() or []]


@pytest.fixture
def input_file(tmp_path: Path) -> Path:
    return tmp_path / "input.txt"


def test_each_line_becomes_a_string_record_with_its_file_and_byte_position(input_file: Path) -> None:
    input_file.write_text("alpha\nbeta\n")
    task = started_task({"file": str(input_file), "topic": "lines"})

    records = task.poll()

    assert records is not None
    assert [(r.topic, r.value_schema, r.value) for r in records] == [
        ("lines", STRING_SCHEMA, "alpha"),
        ("lines", STRING_SCHEMA, "beta"),
    ]
    assert [r.source_partition for r in records] == [{"filename": str(input_file)}] * 2
    assert [r.source_offset for r in records] == [{"position": 6}, {"position": 11}]


def test_records_carry_no_key(input_file: Path) -> None:
    input_file.write_text("alpha\n")
    record = (started_task({"file": str(input_file), "topic": "lines"}).poll() or [])[0]
    assert (record.key_schema, record.key) == (None, None)


def test_poll_returns_at_most_batch_size_records(input_file: Path) -> None:
    input_file.write_text("".join(f"line {n}\n" for n in range(5)))
    task = started_task({"file": str(input_file), "topic": "lines", "batch.size": "2"})

    batches = [poll_values(task) for _ in range(3)]

    assert batches == [["line 0", "line 1"], ["line 2", "line 3"], ["line 4"]]


def test_start_resumes_after_the_committed_position(input_file: Path) -> None:
    input_file.write_text("first\nsecond\nthird\n")
    offsets = DictOffsetStorageReader()
    offsets.commit({"filename": str(input_file)}, {"position": len("first\n")})

    records = started_task({"file": str(input_file), "topic": "lines"}, offsets).poll() or []

    assert [r.value for r in records] == ["second", "third"]
    assert records[-1].source_offset == {"position": len("first\nsecond\nthird\n")}


def test_restart_from_the_last_record_offset_neither_skips_nor_repeats(input_file: Path) -> None:
    input_file.write_text("a\nb\nc\nd\n")
    props = {"file": str(input_file), "topic": "lines", "batch.size": "2"}
    offsets = DictOffsetStorageReader()
    first_task = started_task(props, offsets)
    last: SourceRecord = (first_task.poll() or [])[-1]
    first_task.stop()
    offsets.commit(last.source_partition or {}, last.source_offset or {})

    resumed = started_task(props, offsets)

    assert poll_values(resumed) == ["c", "d"]


def test_lines_appended_after_the_end_are_picked_up(input_file: Path) -> None:
    input_file.write_text("old\n")
    task = started_task({"file": str(input_file), "topic": "lines"})
    assert poll_values(task) == ["old"]

    with input_file.open("a") as appender:
        appender.write("new\n")

    records = task.poll() or []
    assert [r.value for r in records] == ["new"]
    assert records[0].source_offset == {"position": len("old\nnew\n")}


def test_poll_at_the_end_of_the_file_returns_none(input_file: Path) -> None:
    input_file.write_text("only\n")
    task = started_task({"file": str(input_file), "topic": "lines"})
    task.poll()
    assert task.poll() is None


def test_a_partly_written_line_is_not_emitted_until_its_newline_arrives(input_file: Path) -> None:
    input_file.write_text("half")
    task = started_task({"file": str(input_file), "topic": "lines"})
    assert task.poll() is None
    with input_file.open("a") as appender:
        appender.write(" done\n")
    assert poll_values(task) == ["half done"]


def test_a_missing_file_is_waited_for(input_file: Path) -> None:
    task = started_task({"file": str(input_file), "topic": "lines"})
    assert task.poll() is None
    input_file.write_text("created\n")
    assert poll_values(task) == ["created"]


def test_a_committed_position_of_the_wrong_type_fails_the_task(input_file: Path) -> None:
    input_file.write_text("x\n")
    offsets = DictOffsetStorageReader()
    offsets.commit({"filename": str(input_file)}, {"position": "6"})
    task = started_task({"file": str(input_file), "topic": "lines"}, offsets)
    with pytest.raises(ConnectError, match="incorrect type"):
        task.poll()


def test_stop_cuts_a_waiting_poll_short(input_file: Path) -> None:
    input_file.write_text("")
    task = started_task({"file": str(input_file), "topic": "lines"})
    task.idle_wait_seconds = 30.0
    poller = threading.Thread(target=task.poll)
    poller.start()
    task.stop()
    poller.join(timeout=5)
    assert not poller.is_alive()


def test_the_connector_runs_one_task_with_its_own_config() -> None:
    connector = FileStreamSourceConnector()
    props = {"file": "in.txt", "topic": "lines"}
    connector.start(props)
    assert connector.task_configs(4) == [props]
    assert connector.task_class() is FileStreamSourceTask


def test_exactly_once_is_supported_when_reading_a_file() -> None:
    support = FileStreamSourceConnector().exactly_once_support({"file": "in.txt", "topic": "lines"})
    assert support is ExactlyOnceSupport.SUPPORTED


def test_exactly_once_is_unsupported_when_reading_stdin() -> None:
    support = FileStreamSourceConnector().exactly_once_support({"topic": "lines"})
    assert support is ExactlyOnceSupport.UNSUPPORTED


def test_validate_names_a_missing_topic() -> None:
    errors = _errors_by_key(FileStreamSourceConnector(), {"file": "in.txt"})
    assert errors["topic"] == ['Missing required configuration "topic" which has no default value.']


def test_validate_names_a_batch_size_that_is_not_a_number() -> None:
    errors = _errors_by_key(FileStreamSourceConnector(), {"topic": "t", "batch.size": "many"})
    assert any("batch.size" in error for error in errors["batch.size"])


def test_validate_names_a_batch_size_below_one() -> None:
    errors = _errors_by_key(FileStreamSourceConnector(), {"topic": "t", "batch.size": "0"})
    assert errors["batch.size"] == ["Invalid value 0 for configuration batch.size: Value must be at least 1"]


def test_validate_accepts_a_complete_config() -> None:
    errors = _errors_by_key(FileStreamSourceConnector(), {"file": "in.txt", "topic": "t", "batch.size": "10"})
    assert errors == {}


def test_alter_offsets_accepts_non_negative_positions_and_tombstones() -> None:
    offsets = [({"filename": "in.txt"}, {"position": 0}), ({"filename": "old.txt"}, None)]
    assert FileStreamSourceConnector().alter_offsets({"file": "in.txt", "topic": "t"}, offsets) is True


@pytest.mark.parametrize(
    ("offset", "complaint"),
    [
        ({"position": -1}, "non-negative"),
        ({"position": "12"}, "Long value"),
        ({"position": True}, "Long value"),
        ({"offset": 3}, "contain the key 'position'"),
    ],
)
def test_alter_offsets_rejects_positions_that_are_not_non_negative_integers(
    offset: dict[str, object], complaint: str
) -> None:
    connector_config = {"file": "in.txt", "topic": "t"}
    with pytest.raises(ConnectError, match=complaint):
        FileStreamSourceConnector().alter_offsets(connector_config, [({"filename": "x"}, offset)])


def test_alter_offsets_rejects_a_partition_without_filename() -> None:
    with pytest.raises(ConnectError, match="filename"):
        FileStreamSourceConnector().alter_offsets({"file": "in.txt", "topic": "t"}, [({}, {"position": 1})])


def test_alter_offsets_is_refused_when_reading_stdin() -> None:
    with pytest.raises(ConnectError, match="stdin"):
        FileStreamSourceConnector().alter_offsets({"topic": "t"}, [({"filename": None}, {"position": 1})])


def _errors_by_key(connector: FileStreamSourceConnector, props: dict[str, str]) -> dict[str, list[str]]:
    return {value.name: value.errors for value in connector.validate(props) if value.errors}
