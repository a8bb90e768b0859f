"""The JDBC source's columns as Connect fields: Confluent's JDBC type mapping on PostgreSQL, with its
``numeric.mapping``, on top of the shared PostgreSQL type catalog (:mod:`.types`).

Values come from psycopg2's own decoding (ints, floats, strings, ``Decimal``, dates and times), which is
already the Connect value for most types; only a few need a step (bytes, decimal scale, timestamps
without time zone, bit strings, money). As Confluent's connector does, a column of a type it has no
mapping for (arrays, intervals, network addresses, geometric and range types, ...) is left out of the
record, with a warning naming it.
"""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from conveyor.connectors.postgres.jdbc_source_config import NumericMapping
from conveyor.connectors.postgres.types import (
    DECIMAL_PRECISION_PARAMETER,
    PgType,
    builtin_type,
    parse_money,
)
from conveyor.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type
from conveyor.errors import ConnectError

logger = logging.getLogger(__name__)

ValueStep = Callable[[Any], Any]
MAX_INTEGER_TYPE_PRECISION: Final = 18
NUMERIC_TYPE_SCALE_HIGH: Final = 127
"""The scale Confluent gives a ``numeric`` declared without one."""

_STRING_TYPES: Final = frozenset(
    {"text", "varchar", "bpchar", "char", "name", "citext", "json", "jsonb", "uuid", "xml"}
)
TEXT_OIDS: Final = (114, 3802)
"""json and jsonb: psycopg2 would parse them; Confluent's records carry their text."""


@dataclass(frozen=True)
class ColumnDescription:
    """A result column: its name, its type, its type modifier (-1 for none) and whether it can be NULL."""

    name: str
    pg_type: PgType | None
    modifier: int = -1
    optional: bool = True


@dataclass(frozen=True)
class JdbcField:
    """A column's Connect schema and the step from psycopg2's value to the Connect value (None: none)."""

    schema: Schema
    step: ValueStep | None = None


def jdbc_field(column: ColumnDescription, numeric: NumericMapping, zone: dt.tzinfo) -> JdbcField | None:
    """The Connect field of ``column`` as Confluent's JDBC source maps it, or None when it has none."""
    pg_type = column.pg_type
    while pg_type is not None and pg_type.base is not None:
        pg_type = pg_type.base
    if pg_type is None:
        return None
    mapped = _mapped(pg_type, column.modifier, numeric, zone)
    if mapped is None:
        return None
    schema, step = mapped
    return JdbcField(_optional(schema) if column.optional else schema, step)


def _mapped(
    pg_type: PgType, modifier: int, numeric: NumericMapping, zone: dt.tzinfo
) -> tuple[Schema, ValueStep | None] | None:
    name = pg_type.name
    if pg_type.element is not None:
        return None
    if pg_type.enum_labels is not None or name in _STRING_TYPES:
        return Schema(Type.STRING), None
    simple = _SIMPLE.get(name)
    if simple is not None:
        return simple
    if name == "numeric":
        return numeric_field(modifier, numeric)
    if name == "timestamp":
        return Timestamp.SCHEMA, _localized(zone)
    if name == "bit":
        bits = modifier if modifier > 0 else 1
        if bits <= 1:
            return Schema(Type.BOOLEAN), _bit_boolean
        if bits <= 8:
            return Schema(Type.INT8), _bit_byte
        return Schema(Type.BYTES), _bit_bytes
    if name == "varbit":
        return Schema(Type.BYTES), _bit_bytes
    return None


def numeric_field(modifier: int, numeric: NumericMapping) -> tuple[Schema, ValueStep | None]:
    """A ``numeric(precision, scale)`` column under ``numeric.mapping`` (Confluent's rules: integers by
    precision, FLOAT64 for a positive scale, else a Connect Decimal carrying the precision)."""
    declared = modifier >= 4
    precision = ((modifier - 4) >> 16) & 0xFFFF if declared else 0
    scale = (modifier - 4) & 0xFFFF if declared else 0
    if declared and precision <= MAX_INTEGER_TYPE_PRECISION:
        if numeric is NumericMapping.PRECISION_ONLY and scale == 0:
            return _integer_schema(precision), int
        if numeric is NumericMapping.BEST_FIT:
            if scale == 0:
                return _integer_schema(precision), int
            return Schema(Type.FLOAT64), float
    if declared and numeric is NumericMapping.BEST_FIT_EAGER_DOUBLE:
        if scale == 0 and precision <= MAX_INTEGER_TYPE_PRECISION:
            return _integer_schema(precision), int
        if scale > 0:
            return Schema(Type.FLOAT64), float
    decimal_scale = scale if declared else NUMERIC_TYPE_SCALE_HIGH
    schema = Decimal.builder(decimal_scale).parameter(DECIMAL_PRECISION_PARAMETER, str(precision)).build()
    return schema, _finite if declared else _rescale(decimal_scale)


def _integer_schema(precision: int) -> Schema:
    if precision > 9:
        return Schema(Type.INT64)
    if precision > 4:
        return Schema(Type.INT32)
    if precision > 2:
        return Schema(Type.INT16)
    return Schema(Type.INT8)


def _rescale(scale: int) -> ValueStep:
    """Give a decimal of a ``numeric`` without a declared scale exactly ``scale`` digits after the point,
    as a Connect Decimal needs."""
    exponent = decimal.Decimal(1).scaleb(-scale)
    context = decimal.Context(prec=1000)

    def rescaled(value: decimal.Decimal) -> decimal.Decimal:
        return _finite(value).quantize(exponent, context=context)

    return rescaled


def _finite(value: decimal.Decimal) -> decimal.Decimal:
    """``value``, which PostgreSQL already sends with its column's declared scale, unless it is NaN or
    infinite, which a Connect Decimal cannot hold."""
    if not value.is_finite():
        raise ConnectError(
            f"numeric value {value} cannot be written as a Connect Decimal: map the column to a float "
            "(numeric.mapping=best_fit) or leave such values out with a query"
        )
    return value


def _localized(zone: dt.tzinfo) -> ValueStep:
    def localized(value: dt.datetime) -> dt.datetime:
        return value.replace(tzinfo=zone)

    return localized


def _bit_boolean(value: str) -> bool:
    return value == "1"


def _bit_byte(value: str) -> int:
    number = int(value, 2) if value else 0
    return number - 256 if number > 127 else number


def _bit_bytes(value: str) -> bytes:
    return int(value, 2).to_bytes((len(value) + 7) // 8, "big") if value else b""


def _bytes(value: memoryview | bytes) -> bytes:
    return bytes(value)


def _money(value: str) -> float:
    return float(parse_money(value))


def _utc_time(value: dt.time) -> dt.time:
    """A ``timetz`` as the time of day in UTC."""
    if value.tzinfo is None:
        return value
    return dt.datetime.combine(dt.date(2000, 1, 3), value).astimezone(dt.UTC).time().replace(tzinfo=None)


_SIMPLE: Final[dict[str, tuple[Schema, ValueStep | None]]] = {
    "bool": (Schema(Type.BOOLEAN), None),
    "int2": (Schema(Type.INT16), None),
    "int4": (Schema(Type.INT32), None),
    "int8": (Schema(Type.INT64), None),
    "oid": (Schema(Type.INT64), None),
    "float4": (Schema(Type.FLOAT32), None),
    "float8": (Schema(Type.FLOAT64), None),
    "money": (Schema(Type.FLOAT64), _money),
    "bytea": (Schema(Type.BYTES), _bytes),
    "date": (Date.SCHEMA, None),
    "time": (Time.SCHEMA, None),
    "timetz": (Time.SCHEMA, _utc_time),
    "timestamptz": (Timestamp.SCHEMA, None),
}


def _optional(schema: Schema) -> Schema:
    if schema.optional:
        return schema
    builder = SchemaBuilder.type(schema.type)
    if schema.name:
        builder = builder.name(schema.name)
    if schema.version is not None:
        builder = builder.version(schema.version)
    if schema.parameters:
        builder = builder.parameters(schema.parameters)
    return builder.optional().build()


@dataclass(frozen=True)
class RowMapping:
    """How rows of one result become Struct values: the struct schema and each kept column's step."""

    schema: Schema
    kept: tuple[int, ...]
    """Indexes of the result's columns that are fields, in order."""
    steps: tuple[tuple[int, ValueStep], ...]
    """(field index, step) for the fields whose psycopg2 value needs one."""
    all_kept: bool

    def structs(self, rows: Sequence[Sequence[Any]]) -> list[Struct]:
        """The Struct value of each row: columns that need a step are converted column by column, and
        the structs built without validation (the values are what the schema says by construction)."""
        if not rows:
            return []
        columns: list[Any] = list(zip(*rows, strict=True))
        if not self.all_kept:
            columns = [columns[index] for index in self.kept]
        for index, step in self.steps:
            columns[index] = [None if value is None else step(value) for value in columns[index]]
        return Struct.unchecked_many(self.schema, map(list, zip(*columns, strict=True)))


def row_mapping(
    struct_name: str | None,
    columns: Sequence[ColumnDescription],
    numeric: NumericMapping,
    zone_name: str,
    where: str,
) -> RowMapping:
    """The mapping of rows with these columns into a struct called ``struct_name`` (Confluent names it
    after the table, and leaves a query's unnamed); ``where`` names the table or query in warnings."""
    zone = time_zone(zone_name)
    builder = SchemaBuilder.struct()
    if struct_name:
        builder = builder.name(struct_name)
    kept: list[int] = []
    steps: list[tuple[int, ValueStep]] = []
    for index, column in enumerate(columns):
        field = jdbc_field(column, numeric, zone)
        if field is None:
            type_name = column.pg_type.name if column.pg_type else "unknown"
            logger.warning(
                "Column %s of %s has type %s, which the JDBC source does not map: it is left out",
                column.name,
                where,
                type_name,
            )
            continue
        if field.step is not None:
            steps.append((len(kept), field.step))
        kept.append(index)
        builder = builder.field(column.name, field.schema)
    return RowMapping(builder.build(), tuple(kept), tuple(steps), len(kept) == len(columns))


def time_zone(name: str) -> dt.tzinfo:
    """The zone called ``name``; UTC as ``datetime.UTC``, which attaches faster than a ``ZoneInfo``."""
    return dt.UTC if name.upper() in ("UTC", "Z", "ETC/UTC") else zoneinfo.ZoneInfo(name)


def resolve_type(oid: int, catalog: Mapping[int, PgType]) -> PgType | None:
    """The type with ``oid`` from the database's catalog, or a built-in one."""
    return catalog.get(oid) or builtin_type(oid)
