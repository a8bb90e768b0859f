"""Connect schemas as Spark types, and Connect values as Arrow columns of those types.

STRUCT becomes a StructType, ARRAY an ArrayType, MAP a MapType; int8..int64 become Byte, Short,
Integer and Long; float32/float64 Float and Double; Decimal a DecimalType of its scale (precision 38
unless the schema's ``connect.decimal.precision`` says less); Date a DateType; Timestamp a TimestampType;
Time an IntegerType of milliseconds since midnight (Connect's own representation). Every field is
nullable: the log may hold tombstones and optional fields whatever the schema.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from conveyor.data import DataError, Date, Decimal, Schema, Struct, Timestamp, Type

_MAX_PRECISION: Final = 38
_PRECISION_PARAMETER: Final = "connect.decimal.precision"

_PRIMITIVES: Final[Mapping[Type, DataType]] = {
    Type.INT8: ByteType(),
    Type.INT16: ShortType(),
    Type.INT32: IntegerType(),
    Type.INT64: LongType(),
    Type.FLOAT32: FloatType(),
    Type.FLOAT64: DoubleType(),
    Type.BOOLEAN: BooleanType(),
    Type.STRING: StringType(),
    Type.BYTES: BinaryType(),
}


class UnsupportedSchemaError(DataError):
    """A Connect schema, or a schema-less value, has no Spark type this source can give it."""


def spark_type(schema: Schema) -> DataType:
    """The Spark type holding values of a Connect schema."""
    if schema.name == Decimal.LOGICAL_NAME:
        scale = Decimal.scale_of(schema)
        precision = int(schema.parameters.get(_PRECISION_PARAMETER, _MAX_PRECISION))
        return DecimalType(min(max(precision, scale), _MAX_PRECISION), scale)
    if schema.name == Date.LOGICAL_NAME:
        return DateType()
    if schema.name == Timestamp.LOGICAL_NAME:
        return TimestampType()
    if schema.type is Type.STRUCT:
        return StructType([StructField(f.name, spark_type(f.schema), True) for f in schema.fields])
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        return ArrayType(spark_type(schema.value_schema), True)
    if schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        return MapType(spark_type(schema.key_schema), spark_type(schema.value_schema), True)
    return _PRIMITIVES[schema.type]


def _time_millis(value: Any) -> Any:
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return value


def _field_getter(value: Any) -> Callable[[str], Any]:
    """Reads a struct's fields by name: a Struct's (null for a field its schema lacks), or a mapping's."""
    if isinstance(value, Struct):
        get, has = value.get, value.schema.field
        return lambda name: get(name) if has(name) is not None else None
    getter: Callable[[str], Any] = value.get
    return getter


def _shaper(data_type: DataType) -> Callable[[Any], Any] | None:
    """A function turning one Connect value into what ``pyarrow.array`` takes for ``data_type``, or None
    when the value can be passed as it is. A struct of another schema gives the fields the type has
    (null where it lacks one); its other fields are dropped."""
    if isinstance(data_type, StructType):
        fields = [(f.name, _shaper(f.dataType)) for f in data_type.fields]

        def struct(value: Any) -> Any:
            if value is None:
                return None
            get = _field_getter(value)
            return {name: get(name) if shape is None else shape(get(name)) for name, shape in fields}

        return struct
    if isinstance(data_type, ArrayType):
        element = _shaper(data_type.elementType)
        if element is None:
            return None
        return lambda value: None if value is None else [element(item) for item in value]
    if isinstance(data_type, MapType):
        key, entry = _shaper(data_type.keyType), _shaper(data_type.valueType)
        return lambda value: (
            None
            if value is None
            else [(k if key is None else key(k), v if entry is None else entry(v)) for k, v in value.items()]
        )
    if isinstance(data_type, IntegerType):
        return _time_millis
    return None


def to_arrow_column(values: Sequence[Any], data_type: DataType) -> pa.Array:
    """Decoded Connect values (Structs, lists, dicts, Decimals, datetimes, ...) as one Arrow column."""
    shape = _shaper(data_type)
    prepared = values if shape is None else [shape(value) for value in values]
    try:
        return pa.array(prepared, to_arrow_type(data_type, timezone="UTC"))
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as error:
        raise UnsupportedSchemaError(
            f"Decoded values do not fit the column type {data_type.simpleString()}: {error}"
        ) from error
