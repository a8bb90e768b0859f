"""The snapshot's rows as JSON written by PostgreSQL: for a table whose every captured column has a type
whose JSON PostgreSQL writes exactly as the JSON converter writes its Connect value, the snapshot reads each
row's key and ``after`` payloads from ``row_to_json`` through ``COPY ... TO STDOUT``, and the records carry
the converter's bytes (:mod:`conveyor.convert.encoded_json`) without a Connect value built per row.

Covered: booleans, ``int2``/``int4``/``int8``/``oid``, the string types (text, varchar, char, name, citext,
uuid, inet, cidr, macaddr, xml, enums), ``json``/``jsonb`` (Debezium's Json: the text, as a string), and
``numeric`` with ``decimal.handling.mode=string``; domains of these. Any other column (floats, dates and
times, bytea, arrays, numeric as Decimal or double, bits, intervals, money) keeps the table on the Connect
value path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from psycopg2 import sql

from conveyor.connectors.postgres.types import DecimalHandlingMode, PgType, TypeOptions

_AS_IS: Final = frozenset(
    {
        "bool",
        "int2",
        "int4",
        "int8",
        "text",
        "varchar",
        "bpchar",
        "char",
        "name",
        "inet",
        "cidr",
        "macaddr",
        "macaddr8",
        "xml",
        "uuid",
    }
)
"""Types whose ``to_json`` is the converter's text of their Connect value: JSON numbers and booleans, or
their text output as a JSON string."""
_CASTS: Final = {"oid": "int8", "json": "text", "jsonb": "text"}
"""Built-in types written through a cast: ``oid`` as a number, json as the string of its text. Enums and
``citext`` are cast to text too: a cast to json someone defined for them is not Debezium's mapping."""

_COPY_ESCAPES: Final = {
    ord("b"): b"\b",
    ord("f"): b"\f",
    ord("n"): b"\n",
    ord("r"): b"\r",
    ord("t"): b"\t",
    ord("v"): b"\v",
    ord("\\"): b"\\",
}


def json_expression(pg_type: PgType, options: TypeOptions, column: sql.Composable) -> sql.Composable | None:
    """What to select for ``column`` of ``pg_type`` inside ``row_to_json`` so that PostgreSQL writes the
    converter's JSON of its Connect value; None when PostgreSQL cannot."""
    while pg_type.base is not None:
        pg_type = pg_type.base
    if pg_type.element is not None:
        return None
    if pg_type.enum_labels is not None or pg_type.name == "citext":
        return sql.SQL("({})::text").format(column)
    if pg_type.schema != "pg_catalog":
        return None
    if pg_type.name in _AS_IS:
        return column
    cast = _CASTS.get(pg_type.name)
    if cast is None and pg_type.name == "numeric":
        cast = "text" if options.decimal_handling_mode is DecimalHandlingMode.STRING else None
    if cast is None:
        return None
    return sql.SQL("({})::{}").format(column, sql.SQL(cast))


def copy_fields(line: bytes) -> list[bytes]:
    """The fields of one line of ``COPY ... TO STDOUT`` (text format, no NULL field), escapes undone."""
    fields = line[:-1].split(b"\t") if line.endswith(b"\n") else line.split(b"\t")
    if b"\\" not in line:
        return fields
    return [_unescape(field) if b"\\" in field else field for field in fields]


def _unescape(field: bytes) -> bytes:
    out = bytearray()
    index, length = 0, len(field)
    while index < length:
        found = field.find(b"\\", index)
        if found < 0:
            out += field[index:]
            break
        out += field[index:found]
        escaped = field[found + 1]
        out += _COPY_ESCAPES.get(escaped, bytes((escaped,)))
        index = found + 2
    return bytes(out)


def key_texts(fields: Sequence[bytes], count: int) -> list[str]:
    """The first ``count`` fields as text (the key's text form, as the offsets keep it)."""
    return [field.decode("utf-8") for field in fields[:count]]
