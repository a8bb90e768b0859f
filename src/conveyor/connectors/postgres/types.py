"""PostgreSQL column types as Connect schemas and values, with Debezium's mapping.

One entry point for every PostgreSQL connector: :func:`column_mapping` takes a column's type (its
:class:`PgType`, from :func:`load_types` or :func:`builtin_type`) and type modifier and gives the Connect
schema of the column and a function from the column's text form (what ``pgoutput`` sends, and what
``SELECT col::text`` returns) to the Connect value. ``decimal.handling.mode`` and ``time.precision.mode``
are Debezium's.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

import psycopg2.extensions

from conveyor.convert.json_text import to_float32
from conveyor.data import (
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from conveyor.data.logical import decimal_from_unscaled, unscaled_bytes
from conveyor.errors import ConfigError, ConnectError

Converter = Callable[[str], Any]
"""From a value's PostgreSQL text form (never ``NULL``) to its Connect value."""

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROS_PER_DAY: Final = 86_400_000_000
_MIN_PYTHON_MICROS: Final = -62_135_596_800_000_000
"""0001-01-01T00:00:00Z, the first instant Python's ``datetime`` holds."""
_MAX_PYTHON_MICROS: Final = 253_402_300_800_000_000
"""10000-01-01T00:00:00Z, the first instant after those Python's ``datetime`` holds."""
_LONG_MAX: Final = 2**63 - 1
_DAYS_PER_MONTH_AVG: Final = 365.25 / 12.0
_EXACT: Final = decimal.Context(prec=decimal.MAX_PREC)
"""Decimal arithmetic without rounding: a ``numeric`` holds up to 131,072 digits before its point."""
DEFAULT_TIME_PRECISION: Final = 6
"""What PostgreSQL keeps of a time or timestamp without ``(p)``: microseconds."""


class DecimalHandlingMode(enum.Enum):
    """Debezium's ``decimal.handling.mode``: how ``numeric``/``decimal``/``money`` values are written."""

    PRECISE = "precise"
    DOUBLE = "double"
    STRING = "string"


class TimePrecisionMode(enum.Enum):
    """Debezium's ``time.precision.mode``: how dates, times and timestamps are written."""

    ADAPTIVE = "adaptive"
    ADAPTIVE_TIME_MICROSECONDS = "adaptive_time_microseconds"
    CONNECT = "connect"


def parse_mode(key: str, value: str, modes: type[enum.Enum]) -> Any:
    """The member of ``modes`` named ``value``, or a ``ConfigError`` listing the allowed values."""
    try:
        return modes(value.strip().lower())
    except ValueError:
        allowed = ", ".join(str(mode.value) for mode in modes)
        raise ConfigError(f"{key} must be one of {allowed}, not {value!r}") from None


@dataclass(frozen=True)
class TypeOptions:
    """The connector settings that change the mapping."""

    decimal_handling_mode: DecimalHandlingMode = DecimalHandlingMode.PRECISE
    time_precision_mode: TimePrecisionMode = TimePrecisionMode.ADAPTIVE
    money_fraction_digits: int = 2


@dataclass(frozen=True)
class PgType:
    """A PostgreSQL type as ``pg_type`` describes it; arrays name their element type, enums their labels,
    domains their base type."""

    oid: int
    name: str
    schema: str = "pg_catalog"
    element: PgType | None = None
    enum_labels: tuple[str, ...] | None = None
    base: PgType | None = None


@dataclass(frozen=True)
class ColumnMapping:
    """A column's Connect schema and the function from its text form to its Connect value."""

    schema: Schema
    convert: Converter

    def value(self, text: str | None) -> Any:
        """The Connect value of ``text`` (``None`` for SQL ``NULL``)."""
        return None if text is None else self.convert(text)


class UnsupportedTypeError(ConnectError):
    """A column whose type Conveyor cannot map."""


# Logical type names Debezium gives PostgreSQL's types.
DEBEZIUM_DATE: Final = "io.debezium.time.Date"
DEBEZIUM_TIME: Final = "io.debezium.time.Time"
DEBEZIUM_MICRO_TIME: Final = "io.debezium.time.MicroTime"
DEBEZIUM_NANO_TIME: Final = "io.debezium.time.NanoTime"
DEBEZIUM_TIMESTAMP: Final = "io.debezium.time.Timestamp"
DEBEZIUM_MICRO_TIMESTAMP: Final = "io.debezium.time.MicroTimestamp"
DEBEZIUM_NANO_TIMESTAMP: Final = "io.debezium.time.NanoTimestamp"
DEBEZIUM_ZONED_TIMESTAMP: Final = "io.debezium.time.ZonedTimestamp"
DEBEZIUM_ZONED_TIME: Final = "io.debezium.time.ZonedTime"
DEBEZIUM_YEAR: Final = "io.debezium.time.Year"
DEBEZIUM_MICRO_DURATION: Final = "io.debezium.time.MicroDuration"
DEBEZIUM_JSON: Final = "io.debezium.data.Json"
DEBEZIUM_XML: Final = "io.debezium.data.Xml"
DEBEZIUM_UUID: Final = "io.debezium.data.Uuid"
DEBEZIUM_ENUM: Final = "io.debezium.data.Enum"
DEBEZIUM_BITS: Final = "io.debezium.data.Bits"
DEBEZIUM_VARIABLE_SCALE_DECIMAL: Final = "io.debezium.data.VariableScaleDecimal"
DECIMAL_PRECISION_PARAMETER: Final = "connect.decimal.precision"

VARIABLE_SCALE_DECIMAL_SCHEMA: Final = (
    SchemaBuilder.struct()
    .name(DEBEZIUM_VARIABLE_SCALE_DECIMAL)
    .version(1)
    .doc("Variable scaled decimal")
    .field("scale", SchemaBuilder.int32().build())
    .field("value", SchemaBuilder.bytes().build())
    .build()
)

_BUILTIN_NAMES: Final[dict[int, str]] = {
    16: "bool",
    17: "bytea",
    18: "char",
    19: "name",
    20: "int8",
    21: "int2",
    23: "int4",
    25: "text",
    26: "oid",
    114: "json",
    142: "xml",
    700: "float4",
    701: "float8",
    790: "money",
    869: "inet",
    650: "cidr",
    829: "macaddr",
    1042: "bpchar",
    1043: "varchar",
    1082: "date",
    1083: "time",
    1114: "timestamp",
    1184: "timestamptz",
    1186: "interval",
    1266: "timetz",
    1560: "bit",
    1562: "varbit",
    1700: "numeric",
    2950: "uuid",
    3802: "jsonb",
}
_BUILTIN_ARRAYS: Final[dict[int, int]] = {
    1000: 16,
    1001: 17,
    1005: 21,
    1007: 23,
    1009: 25,
    1014: 1042,
    1015: 1043,
    1016: 20,
    1021: 700,
    1022: 701,
    1182: 1082,
    1183: 1083,
    1115: 1114,
    1185: 1184,
    1231: 1700,
    2951: 2950,
    199: 114,
    3807: 3802,
}


def builtin_type(oid: int) -> PgType | None:
    """The built-in type (or array of one) with this oid, without asking the server; ``None`` if unknown."""
    name = _BUILTIN_NAMES.get(oid)
    if name is not None:
        return PgType(oid, name)
    element = _BUILTIN_ARRAYS.get(oid)
    if element is not None:
        return PgType(oid, "_" + _BUILTIN_NAMES[element], element=PgType(element, _BUILTIN_NAMES[element]))
    return None


TYPES_QUERY: Final = """
SELECT t.oid, t.typname, n.nspname, t.typtype, t.typelem, t.typbasetype,
       (SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE t.typtype IN ('b', 'e', 'd') AND n.nspname NOT IN ('information_schema', 'pg_toast')
"""


def load_types(cursor: Any) -> dict[int, PgType]:
    """Every base, enum and domain type of the database (and their arrays), by oid, read with ``cursor``."""
    cursor.execute(TYPES_QUERY)
    rows = {row[0]: row for row in cursor.fetchall()}
    loaded: dict[int, PgType] = {}

    def resolve(oid: int) -> PgType | None:
        if oid in loaded:
            return loaded[oid]
        row = rows.get(oid)
        if row is None:
            return builtin_type(oid)
        _, name, namespace, kind, element_oid, base_oid, labels = row
        element = resolve(element_oid) if element_oid and name.startswith("_") else None
        base = resolve(base_oid) if kind == "d" and base_oid else None
        resolved = PgType(oid, name, namespace, element, tuple(labels) if labels else None, base)
        loaded[oid] = resolved
        return resolved

    for oid in rows:
        resolve(oid)
    return loaded


def read_as_text(connection: Any, oids: Iterable[int]) -> None:
    """Make ``connection`` return values of these types in their text form, as ``pgoutput`` sends them,
    so that :class:`ColumnMapping` converts rows read with SQL exactly as it converts streamed changes
    (a cast to ``text`` would not do: it trims ``char(n)``'s padding)."""
    caster = psycopg2.extensions.new_type(tuple(oids), "CONVEYOR_TEXT", lambda value, _cursor: value)
    psycopg2.extensions.register_type(caster, connection)


def column_mapping(pg_type: PgType, modifier: int, optional: bool, options: TypeOptions) -> ColumnMapping:
    """The Connect schema and value converter of a column of ``pg_type`` with type modifier ``modifier``
    (``pg_attribute.atttypmod``, -1 for none); ``optional`` for a nullable column."""
    schema, convert = _mapping(pg_type, modifier, options)
    if optional:
        schema = _optional(schema)
    if schema.name == DEBEZIUM_VARIABLE_SCALE_DECIMAL:
        convert = _variable_scale_decimal_of(schema)
    return ColumnMapping(schema, convert)


def _variable_scale_decimal_of(schema: Schema) -> Converter:
    """A converter whose structs carry ``schema`` itself (optional or not), as Connect requires."""

    def convert(text: str) -> Struct:
        return Struct.unchecked(schema, list(variable_scale_decimal(text).raw_values()))

    return convert


def _optional(schema: Schema) -> Schema:
    if schema.optional:
        return schema
    return Schema(
        schema.type,
        True,
        None,
        schema.name,
        schema.version,
        schema.doc,
        schema.parameters,
        schema.key_schema,
        schema.value_schema,
        schema.fields,
    )


def _named(schema_type: Type, name: str, **parameters: str) -> Schema:
    return Schema(schema_type, name=name, version=1, parameters=parameters)


def _mapping(pg_type: PgType, modifier: int, options: TypeOptions) -> tuple[Schema, Converter]:
    if pg_type.base is not None:
        return _mapping(pg_type.base, modifier, options)
    if pg_type.element is not None:
        element = column_mapping(pg_type.element, element_modifier(pg_type.element, modifier), True, options)
        element_convert = element.convert
        return (
            Schema(Type.ARRAY, value_schema=element.schema),
            lambda text: [None if item is None else element_convert(item) for item in parse_array(text)],
        )
    if pg_type.enum_labels is not None:
        return _named(Type.STRING, DEBEZIUM_ENUM, allowed=",".join(pg_type.enum_labels)), str
    simple = _SIMPLE.get(pg_type.name)
    if simple is not None:
        return simple
    name = pg_type.name
    if name in ("numeric", "money"):
        return _decimal_mapping(name, modifier, options)
    if name == "bit":
        length = modifier if modifier > 0 else 1
        if length == 1:
            return Schema(Type.BOOLEAN), lambda text: text == "1"
        return _named(Type.BYTES, DEBEZIUM_BITS, length=str(length)), _bits
    if name == "varbit":
        length = modifier if modifier > 0 else 2**31 - 1
        return _named(Type.BYTES, DEBEZIUM_BITS, length=str(length)), _bits
    if name in ("date", "time", "timestamp"):
        return _temporal_mapping(name, modifier, options.time_precision_mode)
    if name == "timestamptz":
        digits = _time_precision(modifier)
        return _named(Type.STRING, DEBEZIUM_ZONED_TIMESTAMP), lambda text: zoned_timestamp(text, digits)
    if name == "timetz":
        return _named(Type.STRING, DEBEZIUM_ZONED_TIME), zoned_time
    raise UnsupportedTypeError(
        f"PostgreSQL type {pg_type.schema}.{pg_type.name} (oid {pg_type.oid}) has no Connect mapping; "
        "exclude the column with column.exclude.list"
    )


_MODIFIED_ELEMENTS: Final = frozenset({"numeric", "bit", "varbit"})
"""The element types whose array column's modifier is its elements' (PostgreSQL keeps it on the array)."""


def element_modifier(element: PgType, modifier: int) -> int:
    """The type modifier an array column's elements are mapped with: a ``numeric(p, s)[]``'s elements are
    Decimals of the column's precision and scale, as Debezium maps them, a ``bit(n)[]``'s or
    ``bit varying(n)[]``'s bit strings of its length (``Bits``, or booleans for ``bit(1)``); other elements
    have none."""
    while element.base is not None:
        element = element.base
    return modifier if element.name in _MODIFIED_ELEMENTS else -1


def _time_precision(modifier: int) -> int:
    return modifier if modifier >= 0 else DEFAULT_TIME_PRECISION


def _decimal_mapping(name: str, modifier: int, options: TypeOptions) -> tuple[Schema, Converter]:
    mode = options.decimal_handling_mode
    parse = parse_money if name == "money" else decimal.Decimal
    if mode is DecimalHandlingMode.DOUBLE:
        return Schema(Type.FLOAT64), lambda text: float(parse(text))
    if mode is DecimalHandlingMode.STRING:
        return Schema(Type.STRING), lambda text: _plain_string(parse(text))
    if name == "money":
        scale = options.money_fraction_digits
        return Decimal.schema(scale), lambda text: _rescaled(parse_money(text), scale)
    if modifier < 4:
        return VARIABLE_SCALE_DECIMAL_SCHEMA, variable_scale_decimal
    precision, scale = ((modifier - 4) >> 16) & 0xFFFF, (modifier - 4) & 0xFFFF
    schema = Decimal.builder(scale).parameter(DECIMAL_PRECISION_PARAMETER, str(precision)).build()
    return schema, lambda text: _rescaled(decimal.Decimal(text), scale)


_SPECIAL_DECIMAL_NAMES: Final = {
    "NaN": "NAN",
    "Infinity": "POSITIVE_INFINITY",
    "-Infinity": "NEGATIVE_INFINITY",
}
"""Debezium's names of the numerics that are not numbers, as ``decimal.handling.mode=string`` writes them."""


def _plain_string(value: decimal.Decimal) -> str:
    return format(value, "f") if value.is_finite() else _SPECIAL_DECIMAL_NAMES[str(value)]


def _rescaled(value: decimal.Decimal, scale: int) -> decimal.Decimal:
    exponent = value.as_tuple().exponent
    if exponent == -scale:
        return value
    if not value.is_finite():
        raise ConnectError(
            f"numeric value {value} cannot be written as a Connect Decimal: set decimal.handling.mode "
            "to double or string"
        )
    return value.quantize(decimal.Decimal(1).scaleb(-scale), context=_EXACT)


def variable_scale_decimal(text: str) -> Struct:
    """Debezium's ``VariableScaleDecimal``: the value's scale and unscaled bytes."""
    value = decimal.Decimal(text)
    if not value.is_finite():
        raise ConnectError(
            f"numeric value {value} cannot be written as a VariableScaleDecimal: set "
            "decimal.handling.mode to double or string"
        )
    exponent = value.as_tuple().exponent
    scale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    value = value.quantize(decimal.Decimal(1).scaleb(-scale), context=_EXACT)
    return Struct.unchecked(VARIABLE_SCALE_DECIMAL_SCHEMA, [scale, unscaled_bytes(value, scale)])


def decimal_from_variable_scale(struct: Struct) -> decimal.Decimal:
    """The number a ``VariableScaleDecimal`` struct holds."""
    scale, raw = struct.get("scale"), struct.get("value")
    return decimal_from_unscaled(int.from_bytes(raw, "big", signed=True), scale)


_MONEY_JUNK: Final = re.compile(r"[^0-9.\-]")


def parse_money(text: str) -> decimal.Decimal:
    """A ``money`` value from its text form in an English locale (``-$1,234.56`` or ``($1,234.56)``)."""
    negative = text.startswith("-") or text.startswith("(")
    digits = _MONEY_JUNK.sub("", text).lstrip("-")
    value = decimal.Decimal(digits)
    return -value if negative else value


def _temporal_mapping(name: str, modifier: int, mode: TimePrecisionMode) -> tuple[Schema, Converter]:
    precision = _time_precision(modifier)
    if name == "date":
        if mode is TimePrecisionMode.CONNECT:
            return Date.SCHEMA, parse_date
        return _named(Type.INT32, DEBEZIUM_DATE), epoch_days
    if name == "time":
        if mode is TimePrecisionMode.CONNECT:
            return Time.SCHEMA, lambda text: _time_of_day(micros_of_day(text))
        if mode is TimePrecisionMode.ADAPTIVE and precision <= 3:
            return _named(Type.INT32, DEBEZIUM_TIME), lambda text: micros_of_day(text) // 1000
        return _named(Type.INT64, DEBEZIUM_MICRO_TIME), micros_of_day
    if mode is TimePrecisionMode.CONNECT:
        return (
            Timestamp.SCHEMA,
            lambda text: _EPOCH + dt.timedelta(microseconds=_in_python_years(text, epoch_micros(text))),
        )
    if precision <= 3:
        return _named(Type.INT64, DEBEZIUM_TIMESTAMP), lambda text: epoch_micros(text) // 1000
    return _named(Type.INT64, DEBEZIUM_MICRO_TIMESTAMP), lambda text: _in_long(text, epoch_micros(text))


def _time_of_day(micros: int) -> dt.time:
    micros = min(micros, _MICROS_PER_DAY - 1)
    seconds, micro = divmod(micros, 1_000_000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return dt.time(hour, minute, second, micro)


_DATE: Final = re.compile(r"^(\d{4,})-(\d\d)-(\d\d)( BC)?$")
_TIME: Final = re.compile(r"^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?")
_OFFSET: Final = re.compile(r"([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?$")
_UTC_TIMESTAMP: Final = re.compile(r"^(\d{4}-\d\d-\d\d) \d\d:\d\d:\d\d(?:\.(\d{1,6}))?\+00$")
"""A ``timestamptz`` already in UTC (the server's TimeZone is UTC): Debezium's text is a rewrite of it."""
_TIMESTAMP: Final = re.compile(r"^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d{1,6})?)([+-][\d:]+)?( BC)?$")


def _civil_date(text: str) -> tuple[int, int, int]:
    """Year (astronomical: 1 BC is 0, 2 BC is -1), month and day of a ``date`` in PostgreSQL's ISO output
    style (``DateStyle=ISO``, its default)."""
    match = _DATE.match(text)
    if match is None:
        _refuse_infinite("date", text)
        raise ConnectError(f"date {text!r} is not in PostgreSQL's ISO output style")
    year = int(match.group(1))
    return (1 - year if match.group(4) else year), int(match.group(2)), int(match.group(3))


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date, as PostgreSQL counts them, any year."""
    march_year = year - (month <= 2)
    era = march_year // 400
    year_of_era = march_year - era * 400
    day_of_year = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian year (astronomical), month and day ``days`` after 1970-01-01."""
    shifted = days + 719468
    era = shifted // 146097
    day_of_era = shifted - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    march_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * march_month + 2) // 5 + 1
    month = march_month + 3 if march_month < 10 else march_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def epoch_days(text: str) -> int:
    """Days since the epoch of a ``date``, BC and after 9999 too, with PostgreSQL's proleptic calendar."""
    return _days_from_civil(*_civil_date(text))


def parse_date(text: str) -> dt.date:
    """A ``date`` as Python holds it: years 1 to 9999 only."""
    year, month, day = _civil_date(text)
    if not 1 <= year <= 9999:
        raise ConnectError(f"date {text!r} is outside what Conveyor reads as a Connect Date: years 1 to 9999")
    return dt.date(year, month, day)


def _refuse_infinite(what: str, text: str) -> None:
    if text in _INFINITIES:
        raise ConnectError(f"{what} {text!r} is infinite: Conveyor does not write it")


def _in_long(text: str, micros: int) -> int:
    if micros > _LONG_MAX:
        raise ConnectError(
            f"timestamp {text!r} is beyond what a Connect int64 holds in microseconds since the epoch"
        )
    return micros


def _in_python_years(text: str, micros: int) -> int:
    if not _MIN_PYTHON_MICROS <= micros < _MAX_PYTHON_MICROS:
        raise ConnectError(
            f"timestamp {text!r} is outside what Conveyor reads as a Connect Timestamp: years 1 to 9999"
        )
    return micros


def micros_of_day(text: str) -> int:
    """Microseconds since midnight of a ``time`` (``24:00:00`` is a whole day, as PostgreSQL allows)."""
    match = _TIME.match(text)
    if match is None:
        raise ConnectError(f"time {text!r} is not in PostgreSQL's ISO output style")
    hours, minutes, seconds = int(match.group(1)), int(match.group(2)), int(match.group(3))
    fraction = int((match.group(4) or "").ljust(6, "0"))
    return ((hours * 60 + minutes) * 60 + seconds) * 1_000_000 + fraction


def _offset_seconds(text: str) -> int:
    match = _OFFSET.search(text)
    if match is None:
        return 0
    seconds = int(match.group(2)) * 3600 + int(match.group(3) or 0) * 60 + int(match.group(4) or 0)
    return -seconds if match.group(1) == "-" else seconds


def epoch_micros(text: str) -> int:
    """Microseconds since the epoch of a ``timestamp`` (read as UTC) or ``timestamptz`` (by its offset)."""
    match = _TIMESTAMP.match(text)
    if match is None:
        _refuse_infinite("timestamp", text)
        raise ConnectError(f"timestamp {text!r} is not in PostgreSQL's ISO output style")
    days = epoch_days(match.group(1) + (match.group(4) or ""))
    micros = days * _MICROS_PER_DAY + micros_of_day(match.group(2))
    if match.group(3):
        micros -= _offset_seconds(match.group(3)) * 1_000_000
    return micros


def _fraction(micros: int, digits: int) -> str:
    if digits <= 0:
        return ""
    return "." + f"{micros:06d}"[:digits].ljust(digits, "0")


_INFINITIES: Final = frozenset({"infinity", "-infinity"})


def zoned_timestamp(text: str, digits: int = DEFAULT_TIME_PRECISION) -> str:
    """Debezium's ``ZonedTimestamp``: the instant in UTC, ISO 8601, ``digits`` fractional digits;
    ``infinity`` and ``-infinity`` as they are, as Debezium writes them."""
    if text in _INFINITIES:
        return text
    utc = _UTC_TIMESTAMP.match(text)
    if utc is not None:
        fraction = (utc.group(2) or "")[:digits].ljust(digits, "0")
        return f"{utc.group(1)}T{text[11:19]}{'.' + fraction if digits > 0 else ''}Z"
    days, micros = divmod(epoch_micros(text), _MICROS_PER_DAY)
    year, month, day = _civil_from_days(days)
    clock = _time_of_day(micros)
    return f"{_iso_year(year)}-{month:02d}-{day:02d}T{clock:%H:%M:%S}{_fraction(clock.microsecond, digits)}Z"


def _iso_year(year: int) -> str:
    """A year as Java's ISO formats write it: four digits at least, a sign before 0000 and after 9999."""
    if year > 9999:
        return f"+{year}"
    if year < 0:
        return f"-{-year:04d}"
    return f"{year:04d}"


def zoned_time(text: str) -> str:
    """Debezium's ``ZonedTime``: the time of day moved to UTC, ISO 8601 with as few fractional digits as
    the value needs (none for whole seconds), whatever the column's precision, as Java's ISO format."""
    local = micros_of_day(text)
    utc = (local - _offset_seconds(text[8:]) * 1_000_000) % _MICROS_PER_DAY
    clock = _time_of_day(utc)
    fraction = f".{clock.microsecond:06d}".rstrip("0").rstrip(".")
    return clock.strftime("%H:%M:%S") + fraction + "Z"


_INTERVAL_PART: Final = re.compile(r"(-?\d+) (year|mon|day)s?")
_INTERVAL_CLOCK: Final = re.compile(r"(-|\+)?(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?")


def interval_micros(text: str) -> int:
    """Debezium's ``MicroDuration`` of an ``interval`` (``IntervalStyle=postgres``): months count as the
    average month, 365.25 / 12 days."""
    years = months = days = 0
    for amount, unit in _INTERVAL_PART.findall(text):
        if unit == "year":
            years = int(amount)
        elif unit == "mon":
            months = int(amount)
        else:
            days = int(amount)
    clock = 0
    match = _INTERVAL_CLOCK.search(text)
    if match is not None:
        clock = (int(match.group(2)) * 3600 + int(match.group(3)) * 60 + int(match.group(4))) * 1_000_000
        clock += int((match.group(5) or "").ljust(6, "0"))
        if match.group(1) == "-":
            clock = -clock
    month_days = (years * 12 + months) * _DAYS_PER_MONTH_AVG
    return round((month_days + days) * _MICROS_PER_DAY) + clock


def parse_bytea(text: str) -> bytes:
    """A ``bytea`` in PostgreSQL's hex output (``\\x0a1b``), its default, or the older escape output."""
    if text.startswith("\\x"):
        return bytes.fromhex(text[2:])
    return _unescape_bytea(text)


def _unescape_bytea(text: str) -> bytes:
    out = bytearray()
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and text[index + 1 : index + 2] == "\\":
            out.append(0x5C)
            index += 2
        elif char == "\\":
            out.append(int(text[index + 1 : index + 4], 8))
            index += 4
        else:
            out.extend(char.encode())
            index += 1
    return bytes(out)


def _bits(text: str) -> bytes:
    """Debezium's ``Bits``: the bit string as a little-endian integer's bytes."""
    if not text:
        return b""
    value = int(text, 2)
    return value.to_bytes((len(text) + 7) // 8, "little")


def _float(text: str) -> float:
    return float(text)


def _float32(text: str) -> float:
    """A ``float4`` exactly: its shortest text read as a double may lie beyond it (``3.4028235e+38``, the
    largest, above float32's range), where the converter would write an infinity."""
    return to_float32(float(text))


_ARRAY_SPACE: Final = " \t\n\r\v\f"
"""The spaces PostgreSQL quotes array elements for; others (a no-break space) are text."""


def parse_array(text: str) -> list[str | None]:
    """The elements of a one-dimensional array literal (``{1,"a b",NULL}``), as text; nested arrays are
    flattened in order."""
    items: list[str | None] = []
    index, length = 0, len(text)
    if text.startswith("["):
        index = text.index("=") + 1
    while index < length:
        char = text[index]
        if char in "{},":
            index += 1
            continue
        if char == '"':
            index += 1
            chunk: list[str] = []
            while text[index] != '"':
                if text[index] == "\\":
                    index += 1
                chunk.append(text[index])
                index += 1
            items.append("".join(chunk))
            index += 1
            continue
        end = index
        while end < length and text[end] not in ",}":
            end += 1
        token = text[index:end].strip(_ARRAY_SPACE)
        items.append(None if token == "NULL" else token)
        index = end
    return items


def _boolean(text: str) -> bool:
    return text in ("t", "true")


_SIMPLE: Final[dict[str, tuple[Schema, Converter]]] = {
    "bool": (Schema(Type.BOOLEAN), _boolean),
    "int2": (Schema(Type.INT16), int),
    "int4": (Schema(Type.INT32), int),
    "int8": (Schema(Type.INT64), int),
    "oid": (Schema(Type.INT64), int),
    "float4": (Schema(Type.FLOAT32), _float32),
    "float8": (Schema(Type.FLOAT64), _float),
    "text": (Schema(Type.STRING), str),
    "varchar": (Schema(Type.STRING), str),
    "bpchar": (Schema(Type.STRING), str),
    "char": (Schema(Type.STRING), str),
    "name": (Schema(Type.STRING), str),
    "citext": (Schema(Type.STRING), str),
    "inet": (Schema(Type.STRING), str),
    "cidr": (Schema(Type.STRING), str),
    "macaddr": (Schema(Type.STRING), str),
    "macaddr8": (Schema(Type.STRING), str),
    "bytea": (Schema(Type.BYTES), parse_bytea),
    "json": (_named(Type.STRING, DEBEZIUM_JSON), str),
    "jsonb": (_named(Type.STRING, DEBEZIUM_JSON), str),
    "xml": (_named(Type.STRING, DEBEZIUM_XML), str),
    "uuid": (_named(Type.STRING, DEBEZIUM_UUID), str),
    "interval": (_named(Type.INT64, DEBEZIUM_MICRO_DURATION), interval_micros),
}


def struct_schema(
    name: str, fields: Iterable[tuple[str, Schema]], *, optional: bool = False, version: int | None = None
) -> Schema:
    """A STRUCT schema called ``name`` with these fields, in order."""
    builder = SchemaBuilder.struct().name(name)
    if version is not None:
        builder = builder.version(version)
    for field_name, field_schema in fields:
        builder = builder.field(field_name, field_schema)
    if optional:
        builder = builder.optional()
    return builder.build()


__all__ = [
    "VARIABLE_SCALE_DECIMAL_SCHEMA",
    "ColumnMapping",
    "Converter",
    "DecimalHandlingMode",
    "PgType",
    "TimePrecisionMode",
    "TypeOptions",
    "UnsupportedTypeError",
    "builtin_type",
    "column_mapping",
    "load_types",
    "parse_mode",
    "read_as_text",
    "struct_schema",
]
