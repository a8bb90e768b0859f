"""GeneratorSourceConnector and GeneratorSourceTask: deterministic, resumable, splittable records."""

from __future__ import annotations

import pytest
from connector_contexts import DictOffsetStorageReader, DictSourceTaskContext, RecordingTransactionContext
from hypothesis import given, settings
from hypothesis import strategies as st

from conveyor.api import ConnectError, ConnectorTransactionBoundaries, ExactlyOnceSupport
from conveyor.connectors import GeneratorSourceConnector, GeneratorSourceTask
from conveyor.connectors.generator import generated_value
from conveyor.connectors.generator.payload import ValueColumn, value_template
from conveyor.data import STRING_SCHEMA, SourceRecord, SourceRecordBatch


def started_task(
    props: dict[str, str],
    offsets: DictOffsetStorageReader | None = None,
    transactions: RecordingTransactionContext | None = None,
) -> GeneratorSourceTask:
    task = GeneratorSourceTask()
    task.idle_wait_seconds = 0.01
    task.initialize(DictSourceTaskContext(props, offsets, transactions))
    task.start(props)
    return task


def drain(task: GeneratorSourceTask) -> list[SourceRecord]:
    """Every record the task produces until it has nothing more."""
    produced: list[SourceRecord] = []
    while batch := task.poll():
        produced.extend(batch)
    return produced


def test_values_are_strings_of_exactly_record_size_bytes() -> None:
    records = started_task({"topic": "gen", "records": "5", "record.size": "64"}).poll() or []
    assert {len(record.value.encode()) for record in records} == {64}
    assert {record.value_schema for record in records} == {STRING_SCHEMA}


def test_the_same_seed_gives_the_same_records() -> None:
    props = {"topic": "gen", "records": "20", "seed": "7"}
    first = [record.value for record in drain(started_task(props))]
    second = [record.value for record in drain(started_task(props))]
    assert first == second


def test_another_seed_gives_other_values() -> None:
    first = started_task({"topic": "gen", "records": "1", "seed": "1"}).poll() or []
    second = started_task({"topic": "gen", "records": "1", "seed": "2"}).poll() or []
    assert first[0].value != second[0].value


def test_a_value_depends_only_on_seed_task_and_seqno() -> None:
    records = drain(started_task({"topic": "gen", "records": "3", "seed": "9", "record.size": "40"}))
    assert [record.value for record in records] == [generated_value(9, 0, n, 40) for n in range(3)]


def test_records_carry_the_task_partition_and_their_seqno_as_offset() -> None:
    records = started_task({"topic": "gen", "records": "3"}).poll() or []
    assert [record.source_partition for record in records] == [{"task": 0}] * 3
    assert [record.source_offset for record in records] == [{"seqno": 0}, {"seqno": 1}, {"seqno": 2}]
    assert {record.topic for record in records} == {"gen"}


def test_poll_returns_at_most_batch_size_records() -> None:
    task = started_task({"topic": "gen", "records": "5", "batch.size": "2"})
    assert [len(task.poll() or []) for _ in range(3)] == [2, 2, 1]


def test_production_stops_after_records() -> None:
    task = started_task({"topic": "gen", "records": "4"})
    assert len(drain(task)) == 4
    assert task.poll() is None


def test_an_endless_generator_keeps_producing() -> None:
    task = started_task({"topic": "gen", "records": "-1", "batch.size": "100"})
    assert sum(len(task.poll() or []) for _ in range(50)) == 5000


def test_start_resumes_after_the_committed_seqno() -> None:
    offsets = DictOffsetStorageReader()
    offsets.commit({"task": 0}, {"seqno": 6})
    records = drain(started_task({"topic": "gen", "records": "10"}, offsets))
    assert [record.source_offset for record in records] == [{"seqno": n} for n in range(7, 10)]


def test_a_restart_from_the_committed_offset_neither_skips_nor_repeats() -> None:
    props = {"topic": "gen", "records": "10", "batch.size": "3"}
    offsets = DictOffsetStorageReader()
    first_run = started_task(props, offsets)
    before = [*(first_run.poll() or []), *(first_run.poll() or [])]
    first_run.stop()
    offsets.commit(before[-1].source_partition or {}, before[-1].source_offset or {})

    after = drain(started_task(props, offsets))

    assert [r.value for r in before + after] == [r.value for r in drain(started_task(props))]


def test_a_committed_seqno_that_is_not_an_integer_fails_start() -> None:
    offsets = DictOffsetStorageReader()
    offsets.commit({"task": 0}, {"seqno": "3"})
    with pytest.raises(ConnectError, match="seqno"):
        started_task({"topic": "gen"}, offsets)


def test_keys_cycle_over_key_cardinality_values() -> None:
    records = drain(started_task({"topic": "gen", "records": "12", "key.cardinality": "4"}))
    keys = [record.key for record in records]
    assert len(set(keys)) == 4
    assert keys[:4] == keys[4:8] == keys[8:]
    assert {record.key_schema for record in records} == {STRING_SCHEMA}


def test_records_have_no_key_when_key_cardinality_is_zero() -> None:
    record = (started_task({"topic": "gen", "records": "1"}).poll() or [])[0]
    assert (record.key_schema, record.key) == (None, None)


def test_the_connector_gives_each_task_its_own_id() -> None:
    connector = GeneratorSourceConnector()
    connector.start({"topic": "gen", "records": "3"})
    configs = connector.task_configs(3)
    assert [config["generator.task.id"] for config in configs] == ["0", "1", "2"]
    assert connector.task_class() is GeneratorSourceTask


def test_tasks_own_separate_partitions_and_produce_records_each() -> None:
    connector = GeneratorSourceConnector()
    connector.start({"topic": "gen", "records": "3"})
    produced = [drain(started_task(config)) for config in connector.task_configs(2)]
    assert [[record.source_partition for record in records] for records in produced] == [
        [{"task": 0}] * 3,
        [{"task": 1}] * 3,
    ]
    assert not {r.value for r in produced[0]} & {r.value for r in produced[1]}


def test_a_commit_is_requested_after_every_transaction_records_records() -> None:
    transactions = RecordingTransactionContext()
    props = {"topic": "gen", "records": "10", "batch.size": "4", "transaction.records": "3"}
    drain(started_task(props, transactions=transactions))
    requested = [record.source_offset for record in transactions.commit_requests if record is not None]
    assert requested[:3] == [{"seqno": 2}, {"seqno": 5}, {"seqno": 8}]


def test_a_commit_is_requested_after_the_last_record_when_it_ends_no_transaction() -> None:
    transactions = RecordingTransactionContext()
    props = {"topic": "gen", "records": "10", "transaction.records": "3"}
    drain(started_task(props, transactions=transactions))
    assert [record.source_offset for record in transactions.commit_requests if record is not None] == [
        {"seqno": 2},
        {"seqno": 5},
        {"seqno": 8},
        {"seqno": 9},
    ]


def test_the_last_record_is_not_committed_twice_when_it_ends_a_transaction() -> None:
    transactions = RecordingTransactionContext()
    props = {"topic": "gen", "records": "6", "transaction.records": "3"}
    drain(started_task(props, transactions=transactions))
    assert len(transactions.commit_requests) == 2


def test_commit_points_stay_aligned_to_seqnos_after_a_restart() -> None:
    offsets = DictOffsetStorageReader()
    offsets.commit({"task": 0}, {"seqno": 3})
    transactions = RecordingTransactionContext()
    props = {"topic": "gen", "records": "12", "transaction.records": "5"}
    drain(started_task(props, offsets, transactions))
    assert [record.source_offset for record in transactions.commit_requests if record is not None] == [
        {"seqno": 4},
        {"seqno": 9},
        {"seqno": 11},
    ]


def test_no_transaction_is_requested_without_transaction_records() -> None:
    transactions = RecordingTransactionContext()
    drain(started_task({"topic": "gen", "records": "10"}, transactions=transactions))
    assert transactions.commit_requests == []


def test_a_rate_holds_back_records_that_are_not_due() -> None:
    task = started_task({"topic": "gen", "records": "-1", "rate": "1", "batch.size": "100"})
    assert len(task.poll() or []) == 1
    assert task.poll() is None


def test_the_connector_supports_exactly_once_and_its_own_transaction_boundaries() -> None:
    connector = GeneratorSourceConnector()
    assert connector.exactly_once_support({"topic": "gen"}) is ExactlyOnceSupport.SUPPORTED
    boundaries = connector.can_define_transaction_boundaries({"topic": "gen"})
    assert boundaries is ConnectorTransactionBoundaries.SUPPORTED


def test_validate_names_a_missing_topic() -> None:
    errors = _errors_by_key({"records": "10"})
    assert errors["topic"] == ['Missing required configuration "topic" which has no default value.']


def test_validate_names_a_bad_batch_size() -> None:
    errors = _errors_by_key({"topic": "gen", "batch.size": "0"})
    assert list(errors) == ["batch.size"]


def test_validate_names_a_record_size_too_small_for_the_header() -> None:
    errors = _errors_by_key({"topic": "gen", "record.size": "8"})
    assert list(errors) == ["record.size"]


def test_validate_accepts_a_complete_config() -> None:
    props = {"topic": "gen", "records": "100", "rate": "50.5", "key.cardinality": "10", "seed": "-3"}
    assert _errors_by_key(props) == {}


def test_alter_offsets_accepts_seqnos_and_tombstones() -> None:
    offsets = [({"task": 0}, {"seqno": 5}), ({"task": 1}, None)]
    assert GeneratorSourceConnector().alter_offsets({"topic": "gen"}, offsets) is True


@pytest.mark.parametrize(
    ("partition", "offset"),
    [({"task": 0}, {"seqno": -1}), ({"task": 0}, {"position": 4}), ({"file": "x"}, {"seqno": 1})],
)
def test_alter_offsets_rejects_what_the_task_could_not_resume_from(
    partition: dict[str, object], offset: dict[str, object]
) -> None:
    with pytest.raises(ConnectError):
        GeneratorSourceConnector().alter_offsets({"topic": "gen"}, [(partition, offset)])


def _errors_by_key(props: dict[str, str]) -> dict[str, list[str]]:
    return {value.name: value.errors for value in GeneratorSourceConnector().validate(props) if value.errors}


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([21, 100, 2_000, 200_000]),
    st.integers(0, 10**15 + 10**5),
    st.integers(0, 25_000),
)
def test_a_value_column_holds_the_values_of_its_sequence_numbers(
    record_size: int, start: int, count: int
) -> None:
    count = min(count, 4_000_000 // record_size)
    template = value_template(3, 7, record_size)
    column = ValueColumn(3, 7, record_size).between(start, start + count)
    assert column == [template % seqno for seqno in range(start, start + count)]


def test_a_poll_returns_a_batch_of_the_partition_and_its_last_offset() -> None:
    batch = started_task({"topic": "gen", "records": "5", "batch.size": "3"}).poll()
    assert isinstance(batch, SourceRecordBatch)
    assert (batch.source_partition, batch.source_offset) == ({"task": 0}, {"seqno": 2})
