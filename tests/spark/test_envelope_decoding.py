"""Envelopes decoded a batch at a time by Arrow's JSON parser give exactly what the JsonConverter gives."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql.pandas.types import to_arrow_type

from conveyor.convert import JsonConverter
from conveyor.data import (
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    DataError,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Type,
)
from conveyor.spark.datasource.connect_types import spark_type, to_arrow_column
from conveyor.spark.datasource.decoding import ColumnDecoder
from conveyor.spark.datasource.envelopes import EnvelopeDecoder, arrow_parses_alike

_VALUES: dict[Type, st.SearchStrategy[Any]] = {
    Type.INT8: st.integers(-(2**7), 2**7 - 1),
    Type.INT16: st.integers(-(2**15), 2**15 - 1),
    Type.INT32: st.integers(-(2**31), 2**31 - 1),
    Type.INT64: st.integers(-(2**63), 2**63 - 1),
    Type.FLOAT32: st.floats(width=32, allow_nan=False, allow_infinity=False),
    Type.FLOAT64: st.floats(allow_nan=False, allow_infinity=False),
    Type.BOOLEAN: st.booleans(),
    Type.STRING: st.text(),
}
_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)


def _built(builder: SchemaBuilder, optional: bool) -> Schema:
    return (builder.optional() if optional else builder).build()


_primitive_schemas = st.builds(
    lambda kind, optional: _built(SchemaBuilder.type(kind), optional),
    st.sampled_from(sorted(_VALUES, key=lambda kind: kind.value)),
    st.booleans(),
)


def _struct_schema(fields: list[tuple[str, Schema]], optional: bool) -> Schema:
    builder = SchemaBuilder.struct().name("record")
    for name, schema in fields:
        builder.field(name, schema)
    return _built(builder, optional)


def _containers(children: st.SearchStrategy[Schema]) -> st.SearchStrategy[Schema]:
    arrays = st.builds(
        lambda element, optional: _built(SchemaBuilder.array(element), optional), children, st.booleans()
    )
    structs = st.builds(
        _struct_schema,
        st.lists(st.tuples(_names, children), min_size=1, max_size=4, unique_by=lambda field: field[0]),
        st.booleans(),
    )
    return arrays | structs


schemas = st.recursive(_primitive_schemas, _containers, max_leaves=8)


def values_of(schema: Schema) -> st.SearchStrategy[Any]:
    """Valid values of ``schema`` (null where it is optional)."""
    if schema.type is Type.STRUCT:
        fields = st.tuples(*(values_of(field.schema) for field in schema.fields))
        present: st.SearchStrategy[Any] = fields.map(lambda values: _struct(schema, values))
    elif schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        present = st.lists(values_of(schema.value_schema), max_size=3)
    else:
        present = _VALUES[schema.type]
    return st.none() | present if schema.optional else present


def _struct(schema: Schema, values: tuple[Any, ...]) -> Struct:
    struct = Struct(schema)
    for field, value in zip(schema.fields, values, strict=True):
        struct.put(field.name, value)
    return struct


@st.composite
def batches(draw: st.DrawFn) -> tuple[Schema, list[bytes | None]]:
    """A schema and a batch of its envelopes (a non-null one first), some of them tombstones."""
    schema = draw(schemas)
    values = draw(st.lists(values_of(schema), min_size=1, max_size=6))
    stored = _converter().from_connect_batch("t", schema, values)
    tombstones = draw(st.lists(st.booleans(), min_size=len(stored), max_size=len(stored)))
    return schema, [stored[0]] + [
        None if dead else value for value, dead in zip(stored[1:], tombstones[1:], strict=True)
    ]


def _converter() -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, is_key=False)
    return converter


def exactly(schema: Schema, data: list[bytes | None]) -> pa.Array:
    """What the converter itself decodes ``data`` into."""
    return to_arrow_column(
        [item.value for item in _converter().to_connect_batch("t", data)], spark_type(schema)
    )


def envelope_decoder(schema: Schema, first: bytes | None) -> EnvelopeDecoder:
    assert first is not None
    decoder = EnvelopeDecoder.like(first, schema, to_arrow_type(spark_type(schema)))
    assert decoder is not None
    return decoder


ORDER = (
    SchemaBuilder.struct()
    .name("order")
    .field("id", INT64_SCHEMA)
    .field("note", OPTIONAL_STRING_SCHEMA)
    .build()
)


def order_envelopes(*ids: int) -> list[bytes | None]:
    return _converter().from_connect_batch(
        "t", ORDER, [Struct(ORDER).put("id", i).put("note", f"n{i}") for i in ids]
    )


@settings(max_examples=300, deadline=None)
@given(batches())
def test_a_batch_decodes_to_what_the_converter_gives(batch: tuple[Schema, list[bytes | None]]) -> None:
    schema, data = batch
    decoded = envelope_decoder(schema, data[0]).decode(pa.array(data, pa.binary()))
    assert decoded is not None
    assert decoded.to_pylist() == exactly(schema, data).to_pylist()


def test_the_column_decoder_takes_envelopes_a_batch_at_a_time() -> None:
    data = order_envelopes(1, 2, 3)
    decoded = ColumnDecoder(_converter(), spark_type(ORDER)).decode("t", data)
    assert decoded.to_pylist() == [{"id": i, "note": f"n{i}"} for i in (1, 2, 3)]


def test_a_batch_with_values_of_another_schema_is_left_to_the_converter() -> None:
    other = SchemaBuilder.struct().name("other").field("id", INT64_SCHEMA).build()
    data = [*order_envelopes(1), _converter().from_connect_data("t", other, Struct(other).put("id", 2))]
    assert envelope_decoder(ORDER, data[0]).decode(pa.array(data, pa.binary())) is None
    decoded = ColumnDecoder(_converter(), spark_type(ORDER)).decode("t", data)
    assert decoded.to_pylist() == [{"id": 1, "note": "n1"}, {"id": 2, "note": None}]


def test_a_missing_required_field_is_left_to_the_converter_which_rejects_it() -> None:
    (first,) = order_envelopes(1)
    assert first is not None
    broken = first.replace(b'"id":1,', b"")
    assert envelope_decoder(ORDER, first).decode(pa.array([first, broken], pa.binary())) is None
    with pytest.raises(DataError):
        ColumnDecoder(_converter(), spark_type(ORDER)).decode("t", [first, broken])


@pytest.mark.parametrize(
    "corrupt",
    [
        pytest.param(lambda value: value.replace(b'"n1"', b'"\xff"'), id="invalid UTF-8"),
        pytest.param(lambda value: value.replace(b'"id":1', b'"id":"1"'), id="string for int64"),
        pytest.param(lambda value: value.replace(b'"id":1', b'"id":1.5'), id="fraction for int64"),
        pytest.param(lambda value: value.replace(b'"id":1', b'"id":99999999999999999999'), id="beyond int64"),
        pytest.param(lambda value: value[:-1] + b',"extra":1}', id="a third envelope field"),
        pytest.param(lambda value: value[:-2] + b"}", id="truncated payload"),
        pytest.param(lambda value: value.replace(b'"id":1,', b'"id":1}\n{"id":1,'), id="two documents"),
    ],
)
def test_values_the_converter_rejects_are_left_to_it(corrupt: Any) -> None:
    (first,) = order_envelopes(1)
    assert first is not None
    assert envelope_decoder(ORDER, first).decode(pa.array([first, corrupt(first)], pa.binary())) is None


def test_infinite_floats_written_as_strings_are_left_to_the_converter() -> None:
    schema = SchemaBuilder.struct().name("s").field("x", SchemaBuilder.float64().build()).build()
    data = _converter().from_connect_batch(
        "t", schema, [Struct(schema).put("x", v) for v in (1.0, float("inf"))]
    )
    assert envelope_decoder(schema, data[0]).decode(pa.array(data, pa.binary())) is None
    decoded = ColumnDecoder(_converter(), spark_type(schema)).decode("t", data)
    assert decoded.to_pylist() == [{"x": 1.0}, {"x": float("inf")}]


def test_a_narrow_integer_out_of_range_is_left_to_the_converter() -> None:
    schema = SchemaBuilder.struct().name("s").field("small", SchemaBuilder.int8().build()).build()
    first = _converter().from_connect_data("t", schema, Struct(schema).put("small", 1))
    assert first is not None
    wide = first.replace(b'"small":1', b'"small":300')
    assert envelope_decoder(schema, first).decode(pa.array([first, wide], pa.binary())) is None


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param(SchemaBuilder.map(OPTIONAL_STRING_SCHEMA, INT64_SCHEMA).build(), id="map"),
        pytest.param(Decimal.schema(2), id="decimal"),
        pytest.param(SchemaBuilder.bytes().build(), id="bytes"),
        pytest.param(SchemaBuilder.int64().default_value(5).build(), id="default"),
        pytest.param(
            SchemaBuilder.struct().field("b", SchemaBuilder.bytes().build()).build(), id="nested bytes"
        ),
    ],
)
def test_schemas_the_parser_reads_otherwise_are_not_taken(schema: Schema) -> None:
    assert not arrow_parses_alike(schema)


def test_an_envelope_with_its_payload_first_is_not_taken() -> None:
    (first,) = order_envelopes(1)
    assert first is not None
    envelope = json.loads(first)
    payload_first = json.dumps({"payload": envelope["payload"], "schema": envelope["schema"]}).encode()
    assert EnvelopeDecoder.like(payload_first, ORDER, to_arrow_type(spark_type(ORDER))) is None
