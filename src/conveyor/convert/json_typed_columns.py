"""Decoding a batch of JSON struct payloads into columns with msgspec's typed decoder.

For a struct of plain primitive fields (the integers, ``float64``, ``boolean``, ``string``) the schema
becomes a msgspec ``Struct`` type whose field types carry the checks the column by column path makes
after parsing: an integer field takes integers within its width's range (not ``1.0``), ``float64``
numbers, ``boolean`` only ``true``/``false``, ``string`` only strings, and a required field with no
default no null and no missing key. msgspec checks them while parsing, in C. It refuses what the
other paths refuse too (``NaN``, a number out of a float's range, a lone surrogate, bytes that are not
UTF-8), and anything it refuses sends the batch on to the next path, which gives the same values or
the same error. Duplicate keys keep the last value, as with ``json.loads``. A key that is not a field
sends the batch on too: msgspec would skip its value unchecked (invalid UTF-8, a number Python refuses),
which the record by record decoder refuses.
The decoded payloads hold primitives only, so they are left out of the garbage collector's tracking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter, itemgetter
from typing import Annotated, Any, Final

import msgspec

from conveyor.convert.json_options import JsonOptions
from conveyor.data import Schema, StructColumn, Type

TypedColumnsDecoder = Callable[[Sequence[bytes], int], "StructColumn | None"]
"""Structs of the payloads of envelopes (each payload from the given offset to the envelope's last
byte), or None when the batch needs another path."""

_FIELD_TYPES: Final[dict[Type, Any]] = {
    Type.INT8: Annotated[int, msgspec.Meta(ge=-(2**7), le=2**7 - 1)],
    Type.INT16: Annotated[int, msgspec.Meta(ge=-(2**15), le=2**15 - 1)],
    Type.INT32: Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)],
    Type.INT64: Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)],
    Type.FLOAT64: float,
    Type.BOOLEAN: bool,
    Type.STRING: str,
}


def compile_typed_columns_decoder(schema: Schema, options: JsonOptions) -> TypedColumnsDecoder | None:
    """A decoder of payload batches of ``schema``, or None when its fields are not all plain primitives
    or a field's name is one msgspec does not take."""
    if schema.type is not Type.STRUCT or not schema.fields:
        return None
    fields: list[tuple[str, Any] | tuple[str, Any, None]] = []
    defaults: list[tuple[int, Any]] = []
    for index, field in enumerate(schema.fields):
        field_type = _FIELD_TYPES.get(field.schema.type)
        if field_type is None or field.schema.name is not None:
            return None
        default = field.schema.default if options.replace_null_with_default else None
        if default is not None:
            defaults.append((index, default))
        if field.schema.optional or default is not None:
            fields.append((f"f{index}", field_type | None, None))
        else:
            fields.append((f"f{index}", field_type))
    try:
        payload_type = msgspec.defstruct(
            "Payload",
            fields,
            kw_only=True,
            forbid_unknown_fields=True,
            gc=False,
            rename={f"f{index}": field.name for index, field in enumerate(schema.fields)},
        )
    except ValueError:  # a field name msgspec does not take: with a quote, a backslash or a control character
        return None
    decode_payload = msgspec.json.Decoder(payload_type).decode
    getters = [attrgetter(f"f{index}") for index in range(len(schema.fields))]

    def decode(envelopes: Sequence[bytes], start: int) -> StructColumn | None:
        try:
            payloads = list(map(decode_payload, map(itemgetter(slice(start, -1)), envelopes)))
        except (msgspec.DecodeError, UnicodeDecodeError):
            return None
        columns = [list(map(get, payloads)) for get in getters]
        for index, default in defaults:
            column = columns[index]
            if None in column:
                columns[index] = [default if value is None else value for value in column]
        return StructColumn(schema, columns)

    return decode
