"""Compiling a Connect schema into a function that turns parsed JSON into Connect values, as Kafka does.

The JSON is parsed with ``parse_float=decimal.Decimal`` (Kafka reads floats as BigDecimal) so that
NUMERIC decimals keep their scale; FLOAT fields turn them into Python floats.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from conveyor.convert.json_dispatch import compile_by_schema, compile_map_parts
from conveyor.convert.json_options import JsonOptions
from conveyor.convert.json_text import to_float32
from conveyor.data import DataError, Date, Decimal, Schema, Struct, Time, Timestamp, Type
from conveyor.data.logical import decimal_from_unscaled

ValueDecoder = Callable[[Any], Any]

_INTEGER_BOUNDS: Final = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}
_NON_FINITE_NAMES: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def compile_decoder(schema: Schema | None, options: JsonOptions) -> ValueDecoder:
    """A function turning the parsed JSON of a value of ``schema`` (JSON null included) into Connect data."""
    if schema is None:
        return decode_schemaless
    non_null = _compile_non_null(schema, options)
    default = schema.default if options.replace_null_with_default else None
    optional = schema.optional
    type_name = schema.type.name

    def decode(node: Any) -> Any:
        if node is None:
            if default is not None:
                return default
            if optional:
                return None
            raise DataError(f"Invalid null value for required {type_name} field")
        return non_null(node)

    return decode


def _compile_non_null(schema: Schema, options: JsonOptions) -> ValueDecoder:
    return compile_by_schema(
        schema, options, _logical_decoder(schema), _COMPOSITE_DECODERS, _primitive_decoder
    )


def _primitive_decoder(schema_type: Type) -> ValueDecoder:
    if schema_type in _INTEGER_BOUNDS:
        return _integer_decoder(schema_type)
    return _PRIMITIVE_DECODERS[schema_type]


def _wrong_node(expected: str, node: Any) -> DataError:
    return DataError(f"Expected {expected} in JSON but found {type(node).__name__}: {node!r:.60}")


def _integer_decoder(schema_type: Type) -> ValueDecoder:
    low, high = _INTEGER_BOUNDS[schema_type]
    name = schema_type.name

    def decode_integer(node: Any) -> int:
        if node.__class__ is not int:
            if isinstance(node, decimal.Decimal) and node == node.to_integral_value():
                node = int(node)
            else:
                raise _wrong_node(f"an integer for {name}", node)
        if not low <= node <= high:
            raise DataError(f"Value {node} is out of range for {name}")
        return int(node)

    return decode_integer


def _decode_float64(node: Any) -> float:
    if node.__class__ is decimal.Decimal or node.__class__ is int:
        return float(node)
    if isinstance(node, str) and node in _NON_FINITE_NAMES:
        return _NON_FINITE_NAMES[node]
    raise _wrong_node("a number", node)


def _decode_float32(node: Any) -> float:
    return to_float32(_decode_float64(node))


def _decode_boolean(node: Any) -> bool:
    if node is True or node is False:
        return bool(node)
    raise _wrong_node("a boolean", node)


def _decode_string(node: Any) -> str:
    if node.__class__ is str:
        return str(node)
    raise _wrong_node("a string", node)


def _decode_bytes(node: Any) -> bytes:
    if not isinstance(node, str):
        raise _wrong_node("a base64 string", node)
    try:
        return base64.b64decode(node, validate=True)
    except (binascii.Error, ValueError) as error:
        raise DataError(f"Invalid bytes field: {error}") from error


_PRIMITIVE_DECODERS: Final[Mapping[Type, ValueDecoder]] = {
    Type.FLOAT32: _decode_float32,
    Type.FLOAT64: _decode_float64,
    Type.BOOLEAN: _decode_boolean,
    Type.STRING: _decode_string,
    Type.BYTES: _decode_bytes,
}


def _logical_decoder(schema: Schema) -> ValueDecoder | None:
    if schema.name == Decimal.LOGICAL_NAME:
        scale = Decimal.scale_of(schema)
        return lambda node: _decode_decimal(node, scale)
    if schema.name == Date.LOGICAL_NAME:
        decode_days = _integer_decoder(Type.INT32)
        return lambda node: Date.to_logical(schema, decode_days(node))
    if schema.name == Time.LOGICAL_NAME:
        decode_millis = _integer_decoder(Type.INT32)
        return lambda node: Time.to_logical(schema, decode_millis(node))
    if schema.name == Timestamp.LOGICAL_NAME:
        decode_instant = _integer_decoder(Type.INT64)
        return lambda node: Timestamp.to_logical(schema, decode_instant(node))
    return None


def _decode_decimal(node: Any, scale: int) -> decimal.Decimal:
    """A Decimal from either of Kafka's formats: a JSON number (NUMERIC) or base64 bytes (BASE64)."""
    if isinstance(node, decimal.Decimal):
        return node
    if isinstance(node, int) and not isinstance(node, bool):
        return decimal.Decimal(node)
    if isinstance(node, str):
        return decimal_from_unscaled(int.from_bytes(_decode_bytes(node), "big", signed=True), scale)
    raise _wrong_node("a number or base64 string for Decimal", node)


def _compile_array(schema: Schema, options: JsonOptions) -> ValueDecoder:
    decode_element = compile_decoder(schema.value_schema, options)

    def decode_array(node: Any) -> list[Any]:
        if node.__class__ is not list:
            raise _wrong_node("an array", node)
        return list(map(decode_element, node))

    return decode_array


def _compile_map(schema: Schema, options: JsonOptions) -> ValueDecoder:
    decode_key, decode_entry, string_keys = compile_map_parts(schema, options, compile_decoder)
    if string_keys:

        def decode_object(node: Any) -> dict[Any, Any]:
            if node.__class__ is not dict:
                raise DataError(
                    f"Maps with string fields should be encoded as JSON objects, but found {node!r:.60}"
                )
            return {decode_key(key): decode_entry(entry) for key, entry in node.items()}

        return decode_object

    def decode_pairs(node: Any) -> dict[Any, Any]:
        if node.__class__ is not list:
            raise DataError(
                "Maps with non-string fields should be encoded as JSON array of tuples, "
                f"but found {node!r:.60}"
            )
        result: dict[Any, Any] = {}
        for pair in node:
            if pair.__class__ is not list or len(pair) != 2:
                raise DataError(f"Found invalid map entry instead of a two-element array: {pair!r:.60}")
            result[decode_key(pair[0])] = decode_entry(pair[1])
        return result

    return decode_pairs


def _compile_struct(schema: Schema, options: JsonOptions) -> ValueDecoder:
    field_decoders = [(field.name, compile_decoder(field.schema, options)) for field in schema.fields]

    def decode_struct(node: Any) -> Struct:
        if node.__class__ is not dict:
            raise DataError(f"Structs should be encoded as JSON objects, but found {node!r:.60}")
        get = node.get
        try:
            values = [decode(get(name)) for name, decode in field_decoders]
        except DataError as error:
            raise DataError(f"{error.reason} in struct {schema.name or ''}".rstrip()) from error
        return Struct.unchecked(schema, values)

    return decode_struct


_COMPOSITE_DECODERS: Final[Mapping[Type, Callable[[Schema, JsonOptions], ValueDecoder]]] = {
    Type.STRUCT: _compile_struct,
    Type.ARRAY: _compile_array,
    Type.MAP: _compile_map,
}


def decode_schemaless(node: Any) -> Any:
    """Connect data of JSON read without a schema: objects become dicts, integers ints, decimals floats."""
    node_class = node.__class__
    if node_class is dict:
        return {key: decode_schemaless(entry) for key, entry in node.items()}
    if node_class is list:
        return [decode_schemaless(entry) for entry in node]
    if node_class is decimal.Decimal:
        return float(node)
    return node
