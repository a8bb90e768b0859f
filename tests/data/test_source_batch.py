"""A `SourceRecordBatch` is the sequence of the source records it stands for, and keeps its columns."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.data import INT64_SCHEMA, STRING_SCHEMA, SourceRecord, SourceRecordBatch

PARTITION = {"file": "in.txt"}


def lines_batch(**fields: Any) -> SourceRecordBatch:
    return SourceRecordBatch(
        "lines",
        ["first", "second", "third"],
        [{"position": 6}, {"position": 13}, {"position": 19}],
        source_partition=PARTITION,
        value_schema=STRING_SCHEMA,
        **fields,
    )


def line_record(value: str, position: int, **fields: Any) -> SourceRecord:
    return SourceRecord(
        "lines",
        source_partition=PARTITION,
        source_offset={"position": position},
        value_schema=STRING_SCHEMA,
        value=value,
        **fields,
    )


def test_a_batch_is_as_long_as_its_value_column() -> None:
    assert len(lines_batch()) == 3


def test_iterating_a_batch_gives_the_records_it_stands_for() -> None:
    assert list(lines_batch()) == [
        line_record("first", 6),
        line_record("second", 13),
        line_record("third", 19),
    ]


def test_indexing_a_batch_gives_its_records_from_either_end() -> None:
    batch = lines_batch()
    assert batch[1] == line_record("second", 13)
    assert batch[-1] == line_record("third", 19)


def test_slicing_a_batch_gives_a_list_of_its_records() -> None:
    assert lines_batch()[1:] == [line_record("second", 13), line_record("third", 19)]


def test_a_batch_gives_the_same_record_objects_every_time() -> None:
    batch = lines_batch()
    assert batch[0] is next(iter(batch))
    assert batch.records() is batch.records()


def test_the_batch_offset_is_its_last_records_offset() -> None:
    assert lines_batch().source_offset == {"position": 19}


def test_an_empty_batch_has_no_records_and_no_offset() -> None:
    batch = SourceRecordBatch("lines", [], [], source_partition=PARTITION)
    assert len(batch) == 0
    assert list(batch) == []
    assert batch.source_offset is None


def test_keys_timestamp_and_partition_reach_every_record() -> None:
    batch = lines_batch(key_schema=INT64_SCHEMA, keys=[1, 2, 3], kafka_partition=4, timestamp=1000)
    assert batch[2] == line_record(
        "third", 19, key_schema=INT64_SCHEMA, key=3, kafka_partition=4, timestamp=1000
    )


def test_records_of_a_batch_have_no_headers() -> None:
    assert not any(record.has_headers for record in lines_batch())


def test_a_batch_refuses_columns_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="2 values but 1 source offsets"):
        SourceRecordBatch("lines", ["a", "b"], [{"position": 1}])
    with pytest.raises(ValueError, match="2 values but 3 keys"):
        SourceRecordBatch("lines", ["a", "b"], [None, None], keys=[1, 2, 3])


values = st.lists(st.one_of(st.none(), st.text(), st.binary(), st.integers()), max_size=20)


@given(values, st.booleans())
def test_any_columns_give_the_records_built_one_by_one(column: list[Any], keyed: bool) -> None:
    offsets = [{"n": n} for n in range(len(column))]
    keys = list(reversed(column)) if keyed else None
    batch = SourceRecordBatch("t", column, offsets, source_partition={"p": 0}, keys=keys)
    assert list(batch) == [
        SourceRecord("t", source_partition={"p": 0}, source_offset=offset, key=key, value=value)
        for value, offset, key in zip(column, offsets, keys or [None] * len(column), strict=True)
    ]
