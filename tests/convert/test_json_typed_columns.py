"""JsonConverter's typed decoding of a batch of struct envelopes (msgspec) gives exactly the values, and
the errors, of decoding them one by one; what it does not vouch for goes to the other paths."""

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from conveyor.convert import JsonConverter
from conveyor.convert.json_options import JsonOptions
from conveyor.convert.json_schema import connect_schema
from conveyor.convert.json_typed_columns import TypedColumnsDecoder, compile_typed_columns_decoder
from conveyor.data import DataError, StructColumn

PRIMITIVES = ["int8", "int16", "int32", "int64", "double", "boolean", "string"]
BOUNDS = {"int8": 2**7, "int16": 2**15, "int32": 2**31, "int64": 2**63}

names = st.text(
    st.characters(exclude_categories=("Cs", "Cc"), exclude_characters='"\\'), min_size=1, max_size=4
)
strings = st.text(st.characters(exclude_categories=()), max_size=6)


def near_bounds() -> st.SearchStrategy[int]:
    edges = [sign * bound + step for bound in BOUNDS.values() for sign in (1, -1) for step in (-1, 0, 1)]
    return st.sampled_from(edges) | st.integers(-(2**70), 2**70) | st.integers(-300, 300)


def string_text(value: str) -> bytes:
    """A string literal, lone surrogates escaped or written as (invalid) UTF-8."""
    return json.dumps(value).encode()


value_texts = st.one_of(
    near_bounds().map(lambda value: str(value).encode()),
    st.floats().map(lambda value: json.dumps(value).encode()),
    st.sampled_from([b"1.0", b"-0.0", b"7.0", b"1e400", b"-1e400", b"NaN", b"1.000000000000000000001"]),
    st.booleans().map(lambda value: json.dumps(value).encode()),
    strings.map(string_text),
    strings.map(lambda value: json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.sampled_from([b"null", b"[1]", b"{}", b'"7"']),
)


@st.composite
def fields(draw: st.DrawFn) -> list[dict[str, Any]]:
    field_names = draw(st.lists(names, min_size=1, max_size=5, unique=True))
    schema_fields = []
    for name in field_names:
        kind = draw(st.sampled_from(PRIMITIVES))
        field: dict[str, Any] = {"field": name, "type": kind, "optional": draw(st.booleans())}
        if draw(st.booleans()):
            field["default"] = draw(default_of(kind))
        schema_fields.append(field)
    return schema_fields


def default_of(kind: str) -> st.SearchStrategy[Any]:
    if kind in BOUNDS:
        return st.integers(-BOUNDS[kind], BOUNDS[kind] - 1)
    if kind == "double":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    return st.text(st.characters(exclude_categories=("Cs",)), max_size=3)


@st.composite
def payload_text(draw: st.DrawFn, schema_fields: list[dict[str, Any]], clean: bool) -> bytes:
    """An object of the schema's fields, with duplicate and extra keys at times; unless ``clean``, with
    missing keys and values of other types or out of range as well."""
    pairs: list[tuple[str, bytes]] = []
    for field in schema_fields:
        nullable = field["optional"] or "default" in field
        if (not clean or nullable) and draw(st.integers(0, 9)) == 0:
            continue
        values = fitting(field["type"]) | st.just(b"null") if clean and nullable else fitting(field["type"])
        values = values if clean else values | value_texts
        pairs.extend((field["field"], draw(values)) for _ in range(draw(st.integers(1, 2))))
    if draw(st.booleans()):
        pairs.append(("extra", draw(value_texts)))
    pairs = draw(st.permutations(pairs))
    return (
        b"{"
        + b",".join(json.dumps(key, ensure_ascii=False).encode() + b":" + text for key, text in pairs)
        + b"}"
    )


def fitting(kind: str) -> st.SearchStrategy[bytes]:
    if kind in BOUNDS:
        return st.integers(-BOUNDS[kind], BOUNDS[kind] - 1).map(lambda value: str(value).encode())
    if kind == "double":
        return st.floats(allow_nan=False, allow_infinity=False).map(lambda value: repr(value).encode())
    if kind == "boolean":
        return st.sampled_from([b"true", b"false"])
    return strings.map(string_text)


@st.composite
def batches(draw: st.DrawFn) -> tuple[dict[str, Any], list[bytes]]:
    schema = {"type": "struct", "fields": draw(fields())}
    prefix = (
        b'{"schema":'
        + json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode()
        + b',"payload":'
    )
    payloads = draw(st.lists(payload_text(schema["fields"], draw(st.booleans())), min_size=3, max_size=6))
    return schema, [prefix + payload + b"}" for payload in payloads]


def converter(replace_null_with_default: bool) -> JsonConverter:
    json_converter = JsonConverter()
    json_converter.configure({"replace.null.with.default": replace_null_with_default}, is_key=False)
    return json_converter


def exact(value: Any) -> tuple[str, str]:
    return type(value).__name__, repr(value)


def rows(structs: Any, schema: dict[str, Any]) -> list[list[tuple[str, str]]]:
    return [[exact(struct.get(field["field"])) for field in schema["fields"]] for struct in structs]


def one_by_one(values: list[bytes], schema: dict[str, Any], replace: bool) -> list[Any] | str:
    json_converter = converter(replace)
    try:
        return rows([json_converter.to_connect_data("t", value).value for value in values], schema)
    except DataError as error:
        return str(error)


def typed_decoder(schema: dict[str, Any], options: JsonOptions | None = None) -> TypedColumnsDecoder | None:
    """The typed decoder of a schema given as the envelope's JSON schema."""
    connect = connect_schema(schema, lambda _schema, node: node)
    assert connect is not None
    return compile_typed_columns_decoder(connect, options or JsonOptions())


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(batches(), st.booleans())
def test_a_typed_batch_holds_exactly_the_values_of_one_by_one(
    batch: tuple[dict[str, Any], list[bytes]], replace: bool
) -> None:
    schema, values = batch
    decode = typed_decoder(schema, JsonOptions(replace_null_with_default=replace))
    assume(decode is not None)
    assert decode is not None
    start = values[0].index(b',"payload":') + len(b',"payload":')

    typed = decode(values, start)

    event("decoded typed" if typed is not None else "left to the other paths")
    if typed is not None:
        assert rows(typed, schema) == one_by_one(values, schema, replace)


@SETTINGS
@given(batches(), st.booleans())
def test_a_batch_decodes_to_the_values_or_the_error_of_one_by_one(
    batch: tuple[dict[str, Any], list[bytes]], replace: bool
) -> None:
    schema, values = batch
    json_converter = converter(replace)
    try:
        json_converter.to_connect_data("t", values[0])
        decoded: list[Any] | str = rows(json_converter.to_connect_columns("t", values)[1], schema)
    except DataError as error:
        decoded = str(error)

    assert decoded == one_by_one(values, schema, replace)


def test_a_batch_of_plain_payloads_is_decoded_typed() -> None:
    schema = {
        "type": "struct",
        "fields": [{"field": "id", "type": "int64"}, {"field": "s", "type": "string"}],
    }
    decode = typed_decoder(schema)
    assert decode is not None

    typed = decode([b'xx{"id":1,"s":"a"}}', b'xx{"s":"b","id":2}}'], 2)

    assert isinstance(typed, StructColumn)
    assert typed.field_columns() == [[1, 2], ["a", "b"]]


@pytest.mark.parametrize(
    "extra",
    [
        b'"x":"\xff"',
        b'"\xff":1',
        b'"x":"\xed\xa0\x80"',
        b'"x":' + b"1" * 4301,
        b'"x":1.5e99999999999999999999',
    ],
    ids=["invalid-utf8-value", "invalid-utf8-key", "utf8-surrogate", "long-integer", "huge-exponent"],
)
def test_a_key_that_is_not_a_field_leaves_the_batch_to_the_other_paths(extra: bytes) -> None:
    schema = {"type": "struct", "fields": [{"field": "id", "type": "int64"}]}
    decode = typed_decoder(schema)
    assert decode is not None

    assert decode([b'xx{"id":1}}', b'xx{"id":2,' + extra + b"}}"], 2) is None


def test_a_batch_with_invalid_utf8_beside_its_fields_fails_as_one_by_one() -> None:
    prefix = b'{"schema":{"type":"struct","fields":[{"field":"id","type":"int64"}]},"payload":'
    clean, bad = prefix + b'{"id":1}}', prefix + b'{"id":1,"x":"\xff"}}'
    json_converter = converter(True)
    json_converter.to_connect_data("t", clean)

    with pytest.raises(DataError, match="UTF-8"):
        json_converter.to_connect_columns("t", [clean, bad, clean])


def test_a_struct_with_a_field_of_a_logical_type_is_not_decoded_typed() -> None:
    schema = {
        "type": "struct",
        "fields": [{"field": "d", "type": "int32", "name": "org.apache.kafka.connect.data.Date"}],
    }
    assert typed_decoder(schema) is None
