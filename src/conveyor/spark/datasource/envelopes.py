"""Decoding a batch of JsonConverter envelopes at once with Arrow's JSON parser, where that is exact.

Values the JsonConverter writes with one schema all begin with the same bytes, ``{"schema":...,
"payload":``. When every value of a batch begins as its first one does, Arrow kernels cut the payloads
out of the values and Arrow's JSON parser reads them as one newline-delimited buffer: no Python call per
record, and only the payloads are parsed. Only schemas whose values that parser reads as the converter
does are taken (structs, arrays and primitives other than bytes, with no logical type and no default).
A batch it cannot vouch for (another schema, text that does not parse, invalid UTF-8, a null where the
schema requires a value, a number out of range, a field the schema does not have) gives None, and the
caller decodes it with the converter, which gives the exact value or its own error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from conveyor.data import Schema, Type

_WRAP_START: Final = b'{"p":'
_WRAP_END: Final = b"}\n"
_NULL_LINE: Final = b'{"p":null}\n'
_SCHEMA_KEY: Final = b'{"schema":'
_PAYLOAD_KEY: Final = ',"payload":'
_ENVELOPE_END: Final = b"}"
_JSON: Final = json.JSONDecoder()
_MIN_BLOCK_BYTES: Final = 1 << 20


def _binary(data: bytes) -> pa.Scalar:
    """A binary scalar, built from buffers: ``pa.scalar`` of a Python value imports pandas."""
    bounds = np.array([0, len(data)], dtype=np.int32)
    return pa.Array.from_buffers(pa.binary(), 1, [None, pa.py_buffer(bounds), pa.py_buffer(data)])[0]


def arrow_parses_alike(schema: Schema) -> bool:
    """Whether Arrow's JSON parser reads payloads of ``schema`` as the JsonConverter decodes them."""
    if schema.name is not None and schema.name.startswith("org.apache.kafka.connect.data."):
        return False
    if schema.default is not None or schema.type in (Type.BYTES, Type.MAP):
        return False
    if schema.type is Type.STRUCT:
        return all(arrow_parses_alike(field.schema) for field in schema.fields)
    if schema.type is Type.ARRAY:
        return schema.value_schema is not None and arrow_parses_alike(schema.value_schema)
    return True


def _prefix_of(envelope: bytes) -> bytes | None:
    """``envelope`` up to its payload, when it is laid out as the JsonConverter writes it: the schema
    first, then the payload, with no space between."""
    if not envelope.startswith(_SCHEMA_KEY):
        return None
    try:
        text = envelope.decode("utf-8")
        _, end = _JSON.raw_decode(text, len(_SCHEMA_KEY))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not text.startswith(_PAYLOAD_KEY, end):
        return None
    return text[: end + len(_PAYLOAD_KEY)].encode("utf-8")


def _parse_type(target: pa.DataType) -> pa.DataType:
    """``target`` with narrow integers and floats widened: the parser reads them as int64 and double, and a
    checked cast narrows them afterwards (so an out-of-range number fails instead of wrapping)."""
    if pa.types.is_struct(target):
        return pa.struct([field.with_type(_parse_type(field.type)) for field in target])
    if pa.types.is_list(target):
        return pa.list_(target.value_field.with_type(_parse_type(target.value_type)))
    if pa.types.is_integer(target):
        return pa.int64()
    if pa.types.is_floating(target):
        return pa.float64()
    return target


def _holds_required_null(column: pa.Array, schema: Schema) -> bool:
    """Whether a present value in ``column`` lacks a field or element that ``schema`` requires."""
    if schema.type is Type.STRUCT:
        assert isinstance(column, pa.StructArray)
        present = column.is_valid()
        for field, child in zip(schema.fields, column.flatten(), strict=True):
            if not field.schema.optional and pc.any(pc.and_(present, child.is_null())).as_py():
                return True
            if _holds_required_null(child, field.schema):
                return True
        return False
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        elements = pc.list_flatten(column)
        if not schema.value_schema.optional and elements.null_count:
            return True
        return _holds_required_null(elements, schema.value_schema)
    return False


@dataclass(frozen=True)
class EnvelopeDecoder:
    """Decodes batches of envelopes of one schema into Arrow values of one type."""

    schema: Schema
    prefix: bytes
    target: pa.DataType

    @classmethod
    def like(cls, envelope: bytes, schema: Schema | None, target: pa.DataType) -> EnvelopeDecoder | None:
        """A decoder for values that begin as ``envelope`` (a value of ``schema``) does, up to its payload;
        None when that value is laid out otherwise or Arrow's parser would not read ``schema`` exactly."""
        if schema is None or not arrow_parses_alike(schema):
            return None
        prefix = _prefix_of(envelope)
        return None if prefix is None else cls(schema, prefix, target)

    def decode(self, values: pa.BinaryArray) -> pa.Array | None:
        """The payloads of ``values`` (null values stay null), or None when the batch is not for this
        decoder to read."""
        try:
            return self._decode(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            return None

    def _decode(self, values: pa.BinaryArray) -> pa.Array | None:
        if not len(values) or not self._all_enveloped(values):
            return None
        values.cast(pa.string())  # fails on invalid UTF-8, which the converter rejects
        payloads = pc.binary_slice(values, len(self.prefix), -len(_ENVELOPE_END))
        wrapped = pc.binary_join_element_wise(
            _binary(_WRAP_START), payloads, _binary(_WRAP_END), _binary(b"")
        )
        lines = pc.fill_null(wrapped, _binary(_NULL_LINE))
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
        start, end = int(offsets[lines.offset]), int(offsets[lines.offset + len(lines)])
        text = lines.buffers()[2].slice(start, end - start)
        parsed = pa_json.read_json(
            pa.BufferReader(text),
            read_options=pa_json.ReadOptions(
                use_threads=False, block_size=max(_MIN_BLOCK_BYTES, len(text) + 1)
            ),
            parse_options=pa_json.ParseOptions(
                explicit_schema=pa.schema([pa.field("p", _parse_type(self.target))]),
                unexpected_field_behavior="error",
            ),
        )
        if parsed.num_rows != len(values):
            return None
        column = parsed.column("p").combine_chunks().cast(self.target)
        if not self.schema.optional and column.null_count != values.null_count:
            return None
        return None if _holds_required_null(column, self.schema) else column

    def _all_enveloped(self, values: pa.BinaryArray) -> bool:
        starts = pc.all(pc.starts_with(values, pattern=self.prefix), skip_nulls=True).as_py()
        ends = pc.all(pc.ends_with(values, pattern=_ENVELOPE_END), skip_nulls=True).as_py()
        return starts is not False and ends is not False
