"""Compiling a Connect schema into a function that writes its values as JSON text, as Kafka does.

A STRUCT schema compiles into one generated function with an f-string that writes every field, so
encoding a record costs one Python call plus one small call per non-trivial field. Nested schemas
compile into their own functions. Strings are escaped with the C escaper from ``json``; its lower-case
``\\u00xx`` escapes are turned upper-case (as Jackson writes them) once per record by ``finish_json``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import Any, Final

from conveyor.convert.json_dispatch import compile_by_schema, compile_map_parts
from conveyor.convert.json_options import DecimalFormat, JsonOptions
from conveyor.convert.json_text import java_double, java_float, json_bytes
from conveyor.data import DataError, Date, Decimal, Schema, Struct, Time, Timestamp, Type
from conveyor.data.logical import epoch_millis, unscaled_bytes

ValueEncoder = Callable[[Any], str]

_LOWER_HEX_ESCAPE: Final = re.compile(r"(\\\\)|\\u00([0-9a-f]{2})")


def finish_json(text: str) -> str:
    """Upper-case the hex of ``\\u00xx`` escapes (leaving escaped backslashes alone), as Jackson does."""
    if "\\u00" not in text:
        return text
    return _LOWER_HEX_ESCAPE.sub(lambda m: m.group(1) or "\\u00" + m.group(2).upper(), text)


def compile_encoder(schema: Schema | None, options: JsonOptions) -> ValueEncoder:
    """A function writing any value of ``schema`` (None included) as JSON text without the final fix-up."""
    if schema is None:
        return encode_schemaless
    non_null = _compile_non_null(schema, options)
    null_text = _null_text(schema, non_null, options)

    if null_text is None:

        def encode_required(value: Any) -> str:
            if value is None:
                raise _required_null_error()
            return non_null(value)

        return encode_required

    def encode_nullable(value: Any) -> str:
        return null_text if value is None else non_null(value)

    return encode_nullable


def _required_null_error() -> DataError:
    return DataError("Conversion error: null value for field that is required and has no default value")


def _null_text(schema: Schema, non_null: ValueEncoder, options: JsonOptions) -> str | None:
    """What a null of ``schema`` is written as, or None when a null is an error."""
    if schema.default is not None and options.replace_null_with_default:
        return non_null(schema.default)
    if schema.optional:
        return "null"
    return None


def _compile_non_null(schema: Schema, options: JsonOptions) -> ValueEncoder:
    return compile_by_schema(
        schema, options, _logical_encoder(schema, options), _COMPOSITE_ENCODERS, _checked_primitive
    )


def _logical_encoder(schema: Schema, options: JsonOptions) -> ValueEncoder | None:
    if schema.name == Decimal.LOGICAL_NAME:
        scale = Decimal.scale_of(schema)
        if options.decimal_format is DecimalFormat.NUMERIC:
            return lambda value: str(_require(value, decimal.Decimal, "Decimal"))
        return lambda value: json_bytes(unscaled_bytes(_require(value, decimal.Decimal, "Decimal"), scale))
    if schema.name == Date.LOGICAL_NAME:
        return lambda value: str(Date.from_logical(schema, _require(value, dt.date, "Date")))
    if schema.name == Time.LOGICAL_NAME:
        return lambda value: str(Time.from_logical(schema, _require(value, dt.time, "Time")))
    if schema.name == Timestamp.LOGICAL_NAME:
        return lambda value: str(epoch_millis(_require(value, dt.datetime, "Timestamp")))
    return None


def _require(value: Any, expected: type, what: str) -> Any:
    if not isinstance(value, expected):
        raise DataError(f"Invalid type for {what}: {type(value).__name__}")
    return value


def _encode_int(value: Any) -> str:
    if type(value) is bool or not isinstance(value, int):
        raise DataError(f"Invalid type for integer: {type(value).__name__}")
    return int.__repr__(value)


def _encode_float64(value: Any) -> str:
    if type(value) is bool or not isinstance(value, float | int):
        raise DataError(f"Invalid type for FLOAT64: {type(value).__name__}")
    return java_double(float(value))


def _encode_float32(value: Any) -> str:
    if type(value) is bool or not isinstance(value, float | int):
        raise DataError(f"Invalid type for FLOAT32: {type(value).__name__}")
    return java_float(float(value))


def _encode_boolean(value: Any) -> str:
    if not isinstance(value, bool):
        raise DataError(f"Invalid type for BOOLEAN: {type(value).__name__}")
    return "true" if value else "false"


def _encode_string(value: Any) -> str:
    if not isinstance(value, str):
        raise DataError(f"Invalid type for STRING: {type(value).__name__}")
    encoded: str = encode_basestring(value)
    return encoded


def _encode_bytes(value: Any) -> str:
    if not isinstance(value, bytes | bytearray | memoryview):
        raise DataError(f"Invalid type for bytes type: {type(value).__name__}")
    return json_bytes(value)


_PRIMITIVE_ENCODERS: Final[Mapping[Type, ValueEncoder]] = {
    Type.INT8: _encode_int,
    Type.INT16: _encode_int,
    Type.INT32: _encode_int,
    Type.INT64: _encode_int,
    Type.FLOAT32: _encode_float32,
    Type.FLOAT64: _encode_float64,
    Type.BOOLEAN: _encode_boolean,
    Type.STRING: _encode_string,
    Type.BYTES: _encode_bytes,
}


def _checked_primitive(schema_type: Type) -> ValueEncoder:
    return _PRIMITIVE_ENCODERS[schema_type]


def _compile_array(schema: Schema, options: JsonOptions) -> ValueEncoder:
    encode_element = compile_encoder(schema.value_schema, options)

    def encode_array(value: Any) -> str:
        if not isinstance(value, list | tuple):
            raise DataError(f"Invalid type for ARRAY: {type(value).__name__}")
        return "[" + ",".join(map(encode_element, value)) + "]"

    return encode_array


def _compile_map(schema: Schema, options: JsonOptions) -> ValueEncoder:
    encode_key, encode_entry, string_keys = compile_map_parts(schema, options, compile_encoder)
    if string_keys:

        def encode_object(value: Any) -> str:
            if not isinstance(value, Mapping):
                raise DataError(f"Invalid type for MAP: {type(value).__name__}")
            return "{" + ",".join(encode_key(k) + ":" + encode_entry(v) for k, v in value.items()) + "}"

        return encode_object

    def encode_pairs(value: Any) -> str:
        if not isinstance(value, Mapping):
            raise DataError(f"Invalid type for MAP: {type(value).__name__}")
        return (
            "[" + ",".join("[" + encode_key(k) + "," + encode_entry(v) + "]" for k, v in value.items()) + "]"
        )

    return encode_pairs


def _struct_mismatch(value: Any) -> DataError:
    return DataError(
        f"Mismatching schema: expected a Struct of the field's schema, got {type(value).__name__}"
    )


def _compile_struct(schema: Schema, options: JsonOptions) -> ValueEncoder:
    """Generate ``encode_struct(value)`` writing every field through one f-string.

    When every field holds immutable values (primitives other than bytes, logical types), the text of the
    last struct written is kept with its values: the same struct holding the same values again (the
    ``source`` block that a batch of change events shares) is written once. The entry is one tuple,
    replaced whole, so that threads sharing the encoder never mix two entries."""
    namespace: dict[str, Any] = {
        "Struct": Struct,
        "schema": schema,
        "mismatch": _struct_mismatch,
        "required": _required_null_error,
        "S": encode_basestring,
        "last": [(None, None, "")],
    }
    pieces: list[str] = []
    for field in schema.fields:
        index = field.index
        separator = "{" if index == 0 else ","
        namespace[f"K{index}"] = separator + encode_basestring(field.name) + ":"
        pieces.append(f"{{K{index}}}{{{_field_expression(field.schema, index, namespace, options)}}}")
    if not schema.fields:
        pieces.append("{")
    unpack = "".join(f"x{field.index}, " for field in schema.fields)
    source = "\n".join(
        [
            "def encode_struct(value):",
            "    if value.__class__ is not Struct or (",
            "        value.schema is not schema and value.schema != schema",
            "    ):",
            "        raise mismatch(value)",
            *(
                [
                    "    values = value.raw_values()",
                    "    kept = last[0]",
                    "    if kept[0] is value and kept[1] == values:",
                    "        return kept[2]",
                ]
                if _immutable_fields(schema)
                else ["    values = value.raw_values()"]
            ),
            f"    ({unpack}) = values" if schema.fields else "    pass",
            '    text = f"""' + "".join(pieces) + '}}"""',
            "    last[0] = (value, values, text)" if _immutable_fields(schema) else "    pass",
            "    return text",
        ]
    )
    exec(compile(source, f"<json encoder for {schema!r}>", "exec"), namespace)
    encoder: ValueEncoder = namespace["encode_struct"]
    return encoder


_IMMUTABLE_TYPES: Final = frozenset(
    {Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64, Type.BOOLEAN, Type.STRING}
)


def _immutable_fields(schema: Schema) -> bool:
    """Whether every field of ``schema`` holds values that cannot change in place (no bytes, no nested
    struct, array or map), so that equal values mean equal text."""
    return bool(schema.fields) and all(
        field.schema.type in _IMMUTABLE_TYPES
        or field.schema.name
        in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME, Decimal.LOGICAL_NAME)
        for field in schema.fields
    )


_COMPOSITE_ENCODERS: Final[Mapping[Type, Callable[[Schema, JsonOptions], ValueEncoder]]] = {
    Type.STRUCT: _compile_struct,
    Type.ARRAY: _compile_array,
    Type.MAP: _compile_map,
}


def _field_expression(
    field_schema: Schema, index: int, namespace: dict[str, Any], options: JsonOptions
) -> str:
    """The Python expression writing field ``x<index>``, null handling included."""
    name = f"x{index}"
    non_null = _compile_non_null(field_schema, options)
    namespace[f"E{index}"] = non_null
    if field_schema.name is None and field_schema.type in _INLINE_PRIMITIVES:
        expression = _INLINE_PRIMITIVES[field_schema.type].format(x=name)
    else:
        expression = f"E{index}({name})"
    null_text = _null_text(field_schema, non_null, options)
    if null_text is None:
        namespace[f"N{index}"] = _raiser_for(index, namespace)
        return f"({expression} if {name} is not None else N{index}())"
    namespace[f"N{index}"] = null_text
    return f"({expression} if {name} is not None else N{index})"


def _raiser_for(index: int, namespace: dict[str, Any]) -> Callable[[], str]:
    def raise_required() -> str:
        raise namespace["required"]()

    return raise_required


_INLINE_PRIMITIVES: Final[Mapping[Type, str]] = {
    Type.INT8: "{x}.__index__()",
    Type.INT16: "{x}.__index__()",
    Type.INT32: "{x}.__index__()",
    Type.INT64: "{x}.__index__()",
    Type.BOOLEAN: "('true' if {x} else 'false')",
    Type.STRING: "S({x})",
}


def encode_schemaless(value: Any) -> str:
    """JSON text of a value that has no schema, typed by its Python class as Connect types it."""
    if value is None:
        return "null"
    encoder = _SCHEMALESS_ENCODERS.get(type(value))
    if encoder is not None:
        return encoder(value)
    for python_type, fallback in _SCHEMALESS_ENCODERS.items():
        if isinstance(value, python_type):
            return fallback(value)
    raise DataError(f"Python class {type(value).__name__} does not have corresponding schema type.")


def _encode_schemaless_list(value: Any) -> str:
    return "[" + ",".join(map(encode_schemaless, value)) + "]"


def _encode_schemaless_map(value: Any) -> str:
    if all(isinstance(key, str) for key in value):
        return (
            "{" + ",".join(encode_basestring(k) + ":" + encode_schemaless(v) for k, v in value.items()) + "}"
        )
    pairs = ("[" + encode_schemaless(k) + "," + encode_schemaless(v) + "]" for k, v in value.items())
    return "[" + ",".join(pairs) + "]"


def _encode_schemaless_struct(value: Any) -> str:
    raise DataError("Mismatching schema: a Struct cannot be written without its schema")


_SCHEMALESS_ENCODERS: Final[dict[type, ValueEncoder]] = {
    bool: _encode_boolean,
    int: _encode_int,
    float: _encode_float64,
    str: _encode_string,
    bytes: _encode_bytes,
    bytearray: _encode_bytes,
    memoryview: _encode_bytes,
    list: _encode_schemaless_list,
    tuple: _encode_schemaless_list,
    dict: _encode_schemaless_map,
    Struct: _encode_schemaless_struct,
}
