"""The snapshot's rows as JSON written by PostgreSQL: for a table whose every captured column has a type
whose JSON PostgreSQL writes exactly as the JSON converter writes its Connect value, the snapshot reads each
row's key and ``after`` payloads from ``row_to_json``, as the server's bytes, and the records carry
the converter's bytes (:mod:`conveyor.convert.encoded_json`) without a Connect value built per row.

Covered: booleans, ``int2``/``int4``/``int8``/``oid``, the string types (text, varchar, char, name, citext,
uuid, inet, cidr, macaddr, xml, enums), ``json``/``jsonb`` (Debezium's Json: the text, as a string),
``numeric`` with ``decimal.handling.mode=string``, bit strings (``bit(1)`` a boolean, others Debezium's
``Bits``); and on PostgreSQL 14 or later (whose ``extract`` is
exact) through the expressions of :mod:`snapshot_json_types`: ``float8``, dates, times, timestamps (with
and without time zone), intervals, ``bytea``, ``numeric`` as a Decimal or a double, and ``money`` as a
``numeric`` of its scale (when ``money.fraction.digits`` is the decimals of the session's ``lc_monetary``);
one-dimensional or not, arrays of any of these; domains of these. ``real`` (whose shortest digits
PostgreSQL and the converter choose differently for some powers of two) keeps the table on the Connect
value path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from psycopg2 import sql

from conveyor.connectors.postgres.snapshot_json_types import (
    TEMPORAL_TYPES,
    base64_bytes,
    bit_boolean,
    bits_bytes,
    decimal_bytes,
    java_double,
    numeric_as_double,
    temporal,
    variable_scale_decimal,
)
from conveyor.connectors.postgres.types import DecimalHandlingMode, PgType, TypeOptions, element_modifier

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

_NUMERIC_STRING: Final = (
    "CASE WHEN {x} = 'NaN'::numeric THEN 'NAN' WHEN {x}::text = 'Infinity' THEN 'POSITIVE_INFINITY' "
    "WHEN {x}::text = '-Infinity' THEN 'NEGATIVE_INFINITY' ELSE ({x})::text END"
)
"""A numeric as ``decimal.handling.mode=string`` writes it: its text, or Debezium's name of NaN and the
infinities (compared as text: servers before 14 have no numeric infinities to compare with)."""

_MONEY_PRECISION: Final = 19
"""Digits of the largest ``money`` (its cents an int64): a Decimal of more than 18 digits' bytes."""

MIN_EXACT_VERSION: Final = 140000
"""The first PostgreSQL whose ``extract`` gives exact numerics (and that knows numeric infinities)."""


def json_expression(
    pg_type: PgType,
    modifier: int,
    options: TypeOptions,
    column: sql.Composable,
    server_version: int,
    money_scale: int | None = None,
) -> sql.Composable | None:
    """What to select for ``column`` of ``pg_type`` (type modifier ``modifier``) inside ``row_to_json`` so
    that PostgreSQL (of ``server_version``, whose ``money`` has ``money_scale`` decimals in the session's
    ``lc_monetary``) writes the converter's JSON of its Connect value; None when it cannot."""
    while pg_type.base is not None:
        pg_type = pg_type.base
    if pg_type.element is not None:
        return _array_expression(pg_type.element, modifier, options, column, server_version, money_scale)
    if pg_type.enum_labels is not None or pg_type.name == "citext":
        return sql.SQL("({})::text").format(column)
    if pg_type.schema != "pg_catalog":
        return None
    name = pg_type.name
    if name in _AS_IS:
        return column
    cast = _CASTS.get(name)
    if cast is not None:
        return sql.SQL("({})::{}").format(column, sql.SQL(cast))
    mode = options.decimal_handling_mode
    if name == "money":
        if money_scale is None or money_scale != options.money_fraction_digits:
            return None
        name, modifier = "numeric", (_MONEY_PRECISION << 16) + money_scale + 4
        column = sql.SQL("({})::numeric").format(column)
    if name == "numeric" and mode is DecimalHandlingMode.STRING:
        return sql.SQL(_NUMERIC_STRING).format(x=column)
    if name == "bit" and modifier <= 1:
        return bit_boolean(column)
    if name in ("bit", "varbit"):
        return bits_bytes(column)
    if server_version < MIN_EXACT_VERSION:
        return None
    if name == "float8":
        return java_double(column)
    if name in TEMPORAL_TYPES:
        return temporal(name, modifier, options.time_precision_mode, column)
    if name == "bytea":
        return base64_bytes(column)
    if name == "numeric" and mode is DecimalHandlingMode.DOUBLE:
        return numeric_as_double(column)
    if name == "numeric":
        if modifier < 4:
            return variable_scale_decimal(column)
        return decimal_bytes(column, ((modifier - 4) >> 16) & 0xFFFF)
    return None


def _array_expression(
    element: PgType,
    modifier: int,
    options: TypeOptions,
    column: sql.Composable,
    server_version: int,
    money_scale: int | None,
) -> sql.Composable | None:
    """An array's elements, each written as a column of the element type with the modifier the Connect
    value path maps them with (:func:`element_modifier` of the array column's ``modifier``), nested arrays
    flattened in order."""
    item = json_expression(
        element,
        element_modifier(element, modifier),
        options,
        sql.SQL("conveyor_item"),
        server_version,
        money_scale,
    )
    if item is None:
        return None
    return sql.SQL(
        "CASE WHEN {x} IS NULL THEN NULL ELSE array_to_json(ARRAY(SELECT {item} "
        "FROM unnest({x}) WITH ORDINALITY AS conveyor_items(conveyor_item, conveyor_n) "
        "ORDER BY conveyor_n)) END"
    ).format(x=column, item=item)


def key_texts(fields: Sequence[bytes], count: int) -> list[str]:
    """The first ``count`` fields as text (the key's text form, as the offsets keep it); called per row,
    so a one-column key, the usual one, is decoded without a slice."""
    if count == 1:
        return [fields[0].decode("utf-8")]
    return [field.decode("utf-8") for field in fields[:count]]
