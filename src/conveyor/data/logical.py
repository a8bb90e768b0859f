"""Connect's logical types: Decimal, Date, Time and Timestamp, and their Python values.

Each maps a Python value onto the primitive Connect stores (``from_logical``) and back (``to_logical``),
as Kafka's ``org.apache.kafka.connect.data`` logical types do.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar

from conveyor.data.errors import DataError
from conveyor.data.schema import Schema, Type

if TYPE_CHECKING:
    from conveyor.data.builder import SchemaBuilder

_EPOCH_DATE: Final = dt.date(1970, 1, 1)
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_ONE_MILLISECOND: Final = dt.timedelta(milliseconds=1)
_MILLIS_PER_DAY: Final = 24 * 60 * 60 * 1000

L = TypeVar("L")


def _builder(schema_type: Type, logical_name: str) -> SchemaBuilder:
    from conveyor.data.builder import SchemaBuilder

    return SchemaBuilder.type(schema_type).name(logical_name).version(1)


def _require_logical(schema: Schema, logical_name: str) -> None:
    if schema.name != logical_name:
        raise DataError(f"Requested conversion of {logical_name} object but the schema does not match.")


class _FixedLogical(Generic[L]):
    """A logical type over one fixed primitive schema: ``class Date(_FixedLogical[dt.date],
    name=..., primitive=Type.INT32)``; subclasses convert values, this class checks the schema."""

    LOGICAL_NAME: ClassVar[str]
    SCHEMA: ClassVar[Schema]

    def __init_subclass__(cls, *, name: str, primitive: Type) -> None:
        super().__init_subclass__()
        cls.LOGICAL_NAME = name
        cls.SCHEMA = Schema(primitive, name=name, version=1)

    @classmethod
    def builder(cls) -> SchemaBuilder:
        return _builder(cls.SCHEMA.type, cls.LOGICAL_NAME)

    @classmethod
    def from_logical(cls, schema: Schema, value: L) -> int:
        _require_logical(schema, cls.LOGICAL_NAME)
        return cls._to_raw(value)

    @classmethod
    def to_logical(cls, schema: Schema, raw: int) -> L:
        _require_logical(schema, cls.LOGICAL_NAME)
        return cls._from_raw(raw)

    @classmethod
    def _to_raw(cls, value: L) -> int:
        raise NotImplementedError

    @classmethod
    def _from_raw(cls, raw: int) -> L:
        raise NotImplementedError


class Decimal:
    """Arbitrary-precision decimals stored as BYTES: the big-endian two's-complement unscaled value."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Decimal"
    SCALE_FIELD: Final = "scale"

    @staticmethod
    def builder(scale: int) -> SchemaBuilder:
        return _builder(Type.BYTES, Decimal.LOGICAL_NAME).parameter(Decimal.SCALE_FIELD, str(scale))

    @staticmethod
    def schema(scale: int) -> Schema:
        return Decimal.builder(scale).build()

    @staticmethod
    def scale_of(schema: Schema) -> int:
        """The scale a Decimal schema declares in its ``scale`` parameter."""
        scale = schema.parameters.get(Decimal.SCALE_FIELD)
        if scale is None:
            raise DataError(f"Invalid Decimal schema: scale parameter not found in {schema!r}")
        try:
            return int(scale)
        except ValueError as error:
            raise DataError(f"Invalid scale parameter found in Decimal schema: {scale!r}") from error

    @staticmethod
    def from_logical(schema: Schema, value: decimal.Decimal) -> bytes:
        _require_logical(schema, Decimal.LOGICAL_NAME)
        return unscaled_bytes(value, Decimal.scale_of(schema))

    @staticmethod
    def to_logical(schema: Schema, raw: bytes) -> decimal.Decimal:
        _require_logical(schema, Decimal.LOGICAL_NAME)
        return decimal_from_unscaled(int.from_bytes(raw, "big", signed=True), Decimal.scale_of(schema))


def unscaled_value(value: decimal.Decimal, scale: int) -> int:
    """The unscaled integer of ``value`` at ``scale``; Connect refuses a value of another scale."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise DataError(f"Decimal value {value} is not finite")
    if -exponent != scale:
        raise DataError("Decimal value has mismatching scale for given Decimal schema")
    unscaled = int("".join(map(str, digits)) or "0")
    return -unscaled if sign else unscaled


def unscaled_bytes(value: decimal.Decimal, scale: int) -> bytes:
    """Java's ``BigInteger.toByteArray`` of the unscaled value: minimal big-endian two's complement."""
    unscaled = unscaled_value(value, scale)
    magnitude = unscaled if unscaled >= 0 else ~unscaled
    return unscaled.to_bytes(magnitude.bit_length() // 8 + 1, "big", signed=True)


def decimal_from_unscaled(unscaled: int, scale: int) -> decimal.Decimal:
    """The decimal ``unscaled * 10**-scale`` carrying exactly ``scale`` digits after the point."""
    sign = 1 if unscaled < 0 else 0
    digits = tuple(int(digit) for digit in str(abs(unscaled)))
    return decimal.Decimal((sign, digits, -scale))


class Date(_FixedLogical[dt.date], name="org.apache.kafka.connect.data.Date", primitive=Type.INT32):
    """A calendar date stored as INT32: days since the Unix epoch."""

    @staticmethod
    def _to_raw(value: dt.date) -> int:
        if isinstance(value, dt.datetime):
            at_utc_midnight = value.time() == dt.time(0) and value.utcoffset() in (None, dt.timedelta(0))
            if not at_utc_midnight:
                raise DataError("A Connect Date must not have a time of day other than UTC midnight")
            value = value.date()
        return (value - _EPOCH_DATE).days

    @staticmethod
    def _from_raw(raw: int) -> dt.date:
        return _EPOCH_DATE + dt.timedelta(days=raw)


class Time(_FixedLogical[dt.time], name="org.apache.kafka.connect.data.Time", primitive=Type.INT32):
    """A time of day stored as INT32: milliseconds since midnight."""

    @staticmethod
    def _to_raw(value: dt.time) -> int:
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000

    @staticmethod
    def _from_raw(raw: int) -> dt.time:
        if not 0 <= raw < _MILLIS_PER_DAY:
            raise DataError("Time values must be milliseconds from 0 up to (not including) 86400000")
        seconds, millis = divmod(raw, 1000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return dt.time(hour, minute, second, millis * 1000)


class Timestamp(
    _FixedLogical[dt.datetime], name="org.apache.kafka.connect.data.Timestamp", primitive=Type.INT64
):
    """An instant stored as INT64: milliseconds since the Unix epoch; values are UTC-aware datetimes."""

    @staticmethod
    def _to_raw(value: dt.datetime) -> int:
        """Epoch milliseconds of ``value``; a naive datetime is read as UTC."""
        return epoch_millis(value)

    @staticmethod
    def _from_raw(raw: int) -> dt.datetime:
        return _EPOCH + dt.timedelta(milliseconds=raw)


def epoch_millis(value: dt.datetime) -> int:
    """Whole milliseconds since the epoch, rounding toward the past as Java's ``Date.getTime`` does."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return (value - _EPOCH) // _ONE_MILLISECOND


LOGICAL_PYTHON_TYPES: Final[dict[str, tuple[type, ...]]] = {
    Decimal.LOGICAL_NAME: (decimal.Decimal,),
    Date.LOGICAL_NAME: (dt.date,),
    Time.LOGICAL_NAME: (dt.time,),
    Timestamp.LOGICAL_NAME: (dt.datetime,),
}
"""The Python classes a value of each logical type must be an instance of."""


def to_logical_value(schema: Schema, raw: Any) -> Any:
    """The logical value of ``raw`` when ``schema`` names a logical type; otherwise ``raw`` itself."""
    converter = _LOGICAL_CONVERTERS.get(schema.name) if schema.name else None
    return raw if converter is None or raw is None else converter.to_logical(schema, raw)


def from_logical_value(schema: Schema, value: Any) -> Any:
    """The primitive form of ``value`` when ``schema`` names a logical type; otherwise ``value`` itself."""
    converter = _LOGICAL_CONVERTERS.get(schema.name) if schema.name else None
    return value if converter is None or value is None else converter.from_logical(schema, value)


_LOGICAL_CONVERTERS: Final[dict[str, Any]] = {
    Decimal.LOGICAL_NAME: Decimal,
    Date.LOGICAL_NAME: Date,
    Time.LOGICAL_NAME: Time,
    Timestamp.LOGICAL_NAME: Timestamp,
}
