"""A stored batch's keys or values as one buffer: a sequence like the list of records, and Arrow's."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from itertools import accumulate

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.log.columns import BinaryColumn, binary_array

records = st.lists(st.binary(max_size=20), max_size=30)


def column_of(items: list[bytes], prefix: bytes = b"header") -> BinaryColumn:
    """``items`` stored after ``prefix`` in one buffer, as the codec stores a batch's values."""
    return BinaryColumn(
        prefix + b"".join(items), array("q", accumulate(map(len, items), initial=len(prefix)))
    )


@given(records, st.integers(-35, 35), st.integers(-35, 35))
def test_a_column_reads_like_the_list_of_its_records(items: list[bytes], start: int, stop: int) -> None:
    column = column_of(items)
    assert len(column) == len(items)
    assert list(column) == items
    assert column == items
    assert list(column[start:stop]) == items[start:stop]
    if items:
        assert column[start % len(items)] == items[start % len(items)]


@given(records, st.integers(-35, 35))
def test_one_record_of_a_column_is_read_by_its_index_counting_from_either_end(
    items: list[bytes], index: int
) -> None:
    column = column_of(items)
    if -len(items) <= index < len(items):
        assert column[index] == items[index]
    else:
        with pytest.raises(IndexError):
            column[index]


@given(records, st.integers(0, 30), st.integers(0, 30))
def test_a_column_and_its_slices_become_arrow_arrays_of_the_same_records(
    items: list[bytes], start: int, stop: int
) -> None:
    column = column_of(items)
    assert column.to_arrow().equals(pa.array(items, pa.binary()))
    assert binary_array(column[start:stop]).equals(pa.array(items[start:stop], pa.binary()))


@pytest.mark.parametrize("join", [BinaryColumn.joined, BinaryColumn.concatenated])
@given(parts=st.lists(records, max_size=4))
def test_joined_columns_hold_every_record_in_order(
    join: Callable[[Iterable[BinaryColumn]], BinaryColumn], parts: list[list[bytes]]
) -> None:
    slices = [column_of([b"left out", *part], prefix=b"x" * i)[1:] for i, part in enumerate(parts)]
    joined = join(slices)  # type: ignore[arg-type]
    every = [item for part in parts for item in part]
    assert list(joined) == every
    assert joined.to_arrow().equals(pa.array(every, pa.binary()))


def test_a_list_with_nulls_becomes_an_arrow_array_too() -> None:
    assert binary_array([b"a", None]).to_pylist() == [b"a", None]
