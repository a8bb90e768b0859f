"""A column's COPY text, written for the whole column at once, spells values as the one by one path."""

from __future__ import annotations

import zoneinfo

from conveyor.connectors.postgres.sink_copy_columns import column_encoder, copy_text
from conveyor.data import Schema, Type

UTC = zoneinfo.ZoneInfo("UTC")


def test_an_integer_column_is_written_in_decimal_even_beyond_64_bits() -> None:
    values = [0, -1, 2**63 - 1, -(2**63), 2**64 - 1, 2**70]
    encoded = column_encoder(Schema(Type.INT64), UTC)(values)
    assert list(encoded) == ["0", "-1", str(2**63 - 1), str(-(2**63)), str(2**64 - 1), str(2**70)]


def test_an_integer_column_with_nulls_writes_them_as_copy_nulls() -> None:
    encoded = column_encoder(Schema(Type.INT64, optional=True), UTC)([1, None, -3])
    assert list(encoded) == ["1", "\\N", "-3"]


def test_an_integer_column_of_plain_integers_is_written_as_str_writes_them() -> None:
    values = [7, -42, 2**40, 0]
    assert list(column_encoder(Schema(Type.INT32), UTC)(values)) == list(map(str, values))


def test_a_float_column_keeps_each_value_s_shortest_round_trip_spelling() -> None:
    values = [0.1, -2.5e-300, 1e22, 3.0]
    encoded = column_encoder(Schema(Type.FLOAT64), UTC)(values)
    assert [float(text) for text in encoded] == values


def test_rows_given_column_by_column_are_joined_into_lines() -> None:
    assert copy_text([["1", "2"], ["a", "b"]]) == "1\ta\n2\tb\n"
