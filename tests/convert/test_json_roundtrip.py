"""Property: writing then reading gives back the same schema and value, for generated schemas."""

import datetime as dt
import decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conveyor.convert import JsonConverter
from conveyor.data import Date, Decimal, Schema, SchemaAndValue, SchemaBuilder, Struct, Time, Timestamp, Type

Pair = tuple[Schema, Any]

_PRIMITIVE_VALUES: dict[Type, st.SearchStrategy[Any]] = {
    Type.INT8: st.integers(-(2**7), 2**7 - 1),
    Type.INT16: st.integers(-(2**15), 2**15 - 1),
    Type.INT32: st.integers(-(2**31), 2**31 - 1),
    Type.INT64: st.integers(-(2**63), 2**63 - 1),
    Type.FLOAT32: st.floats(width=32, allow_nan=False),
    Type.FLOAT64: st.floats(allow_nan=False),
    Type.BOOLEAN: st.booleans(),
    Type.STRING: st.text(),
    Type.BYTES: st.binary(),
}

_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)


@st.composite
def primitive_pairs(draw: st.DrawFn) -> Pair:
    schema_type = draw(st.sampled_from(sorted(_PRIMITIVE_VALUES, key=lambda t: t.value)))
    builder = SchemaBuilder.type(schema_type)
    if draw(st.booleans()):
        builder.name(draw(_names)).version(draw(st.integers(1, 5))).doc(draw(st.text(max_size=10)))
    optional = draw(st.booleans())
    if optional:
        builder.optional()
    value_strategy = _PRIMITIVE_VALUES[schema_type]
    if optional and draw(st.booleans()):
        return builder.build(), None
    return builder.build(), draw(value_strategy)


@st.composite
def logical_pairs(draw: st.DrawFn) -> Pair:
    kind = draw(st.sampled_from(["decimal", "date", "time", "timestamp"]))
    if kind == "decimal":
        scale = draw(st.integers(0, 6))
        unscaled = draw(st.integers(-(10**20), 10**20))
        return Decimal.schema(scale), decimal.Decimal(f"{unscaled}E-{scale}")
    if kind == "date":
        return Date.SCHEMA, draw(st.dates(min_value=dt.date(1, 1, 1)))
    if kind == "time":
        millis = draw(st.integers(0, 86_399_999))
        return Time.SCHEMA, Time.to_logical(Time.SCHEMA, millis)
    millis = draw(st.integers(-(2**40), 2**40))
    return Timestamp.SCHEMA, Timestamp.to_logical(Timestamp.SCHEMA, millis)


def _containers(children: st.SearchStrategy[Pair]) -> st.SearchStrategy[Pair]:
    return st.one_of(_arrays(children), _maps(children), _structs(children))


@st.composite
def _arrays(draw: st.DrawFn, children: st.SearchStrategy[Pair]) -> Pair:
    element_schema, _ = draw(children)
    elements = draw(st.lists(children.filter(lambda pair: pair[0] == element_schema), max_size=3))
    return SchemaBuilder.array(element_schema).build(), [value for _, value in elements]


@st.composite
def _maps(draw: st.DrawFn, children: st.SearchStrategy[Pair]) -> Pair:
    key_type = draw(st.sampled_from([Type.STRING, Type.INT32]))
    key_schema = SchemaBuilder.type(key_type).build()
    value_schema, value = draw(children)
    keys = draw(st.lists(_PRIMITIVE_VALUES[key_type], max_size=3, unique=True))
    return SchemaBuilder.map(key_schema, value_schema).build(), {key: value for key in keys}


@st.composite
def _structs(draw: st.DrawFn, children: st.SearchStrategy[Pair]) -> Pair:
    names = draw(st.lists(_names, min_size=1, max_size=4, unique=True))
    fields = [(name, draw(children)) for name in names]
    builder = SchemaBuilder.struct().name(draw(_names))
    for name, (schema, _) in fields:
        builder.field(name, schema)
    schema = builder.build()
    struct = Struct(schema)
    for name, (_, value) in fields:
        struct.put(name, value)
    return schema, struct


schema_value_pairs = st.recursive(st.one_of(primitive_pairs(), logical_pairs()), _containers, max_leaves=8)


def _roundtrip(converter: JsonConverter, schema: Schema, value: Any) -> SchemaAndValue:
    return converter.to_connect_data("t", converter.from_connect_data("t", schema, value))


@settings(max_examples=300, deadline=None)
@given(schema_value_pairs)
def test_written_then_read_gives_back_schema_and_value(pair: Pair) -> None:
    converter = JsonConverter()
    converter.configure({}, is_key=False)
    schema, value = pair
    assert _roundtrip(converter, schema, value) == SchemaAndValue(schema, value)


@settings(max_examples=150, deadline=None)
@given(schema_value_pairs)
def test_numeric_decimals_round_trip_too(pair: Pair) -> None:
    converter = JsonConverter()
    converter.configure({"decimal.format": "NUMERIC"}, is_key=True)
    schema, value = pair
    assert _roundtrip(converter, schema, value) == SchemaAndValue(schema, value)


@settings(max_examples=150, deadline=None)
@given(st.lists(schema_value_pairs, min_size=1, max_size=5))
def test_batch_read_of_a_batch_write_gives_back_every_value(pairs: list[Pair]) -> None:
    converter = JsonConverter()
    converter.configure({}, is_key=False)
    schema = pairs[0][0]
    values = [value for candidate, value in pairs if candidate == schema]
    written = converter.from_connect_batch("t", schema, values)
    assert converter.to_connect_batch("t", written) == [SchemaAndValue(schema, value) for value in values]
