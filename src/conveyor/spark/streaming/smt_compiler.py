"""Kafka's single message transforms as Spark column expressions, where Spark SQL has an equivalent.

A compiled stage rewrites the ``key`` or ``value`` column (or filters rows) of the records DataFrame
(``key``, ``value``, ``topic``, ``partition``, ``offset``, ``timestamp``, ``headers``), so Spark runs it
in the JVM with no Python per record. What compiles, as ``$Value`` or ``$Key`` (struct values or keys,
top-level fields; a null value or key stays null, as Kafka's transforms leave tombstones):

- ``ReplaceField``: ``exclude``/``include`` (and the old ``blacklist``/``whitelist``), ``renames``;
- ``InsertField``: ``static.field``/``static.value``, ``topic.field``, ``partition.field``,
  ``offset.field``, ``timestamp.field``;
- ``MaskField``: ``fields`` with or without ``replacement``;
- ``ExtractField``: a top-level ``field``;
- ``Cast``: casts of fields, or of the whole value or key, to primitive types;
- ``TimestampConverter``: a field between Connect Timestamp and unix milliseconds;
- ``Filter`` with no predicate or with ``RecordIsTombstone``, ``TopicNameMatches`` or ``HasHeaderKey``
  (``negate`` too).

Anything else, and any other stage carrying a predicate, makes :func:`compile_chain` return None: the
caller then runs the whole chain in Python, batch by batch (``conveyor.spark.streaming.python_chain``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BooleanType,
    ByteType,
    DataType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NumericType,
    ShortType,
    StringType,
    StructType,
    TimestampType,
)

from conveyor.transforms import (
    CastKey,
    CastValue,
    ExtractFieldKey,
    ExtractFieldValue,
    Filter,
    HasHeaderKey,
    InsertFieldKey,
    InsertFieldValue,
    MaskFieldKey,
    MaskFieldValue,
    RecordIsTombstone,
    ReplaceFieldKey,
    ReplaceFieldValue,
    TimestampConverterKey,
    TimestampConverterValue,
    TopicNameMatches,
    TransformationChain,
)
from conveyor.transforms.chain import TransformationStage, prefixed_settings

StageCompiler = Callable[[DataFrame, Mapping[str, str], str], DataFrame | None]
"""Compiles one stage's settings over ``frame``'s ``key`` or ``value`` column (the third argument)."""

VALUE: Final = "value"
KEY: Final = "key"
_CAST_TYPES: Final[dict[str, DataType]] = {
    "int8": ByteType(),
    "int16": ShortType(),
    "int32": IntegerType(),
    "int64": LongType(),
    "float32": FloatType(),
    "float64": DoubleType(),
    "boolean": BooleanType(),
    "string": StringType(),
}


def compile_chain(
    frame: DataFrame, chain: TransformationChain, config: Mapping[str, str]
) -> DataFrame | None:
    """``frame`` with every stage of ``chain`` applied as Spark expressions, or None if one cannot be."""
    for stage in chain.stages:
        compiled = compile_stage(frame, stage, config)
        if compiled is None:
            return None
        frame = compiled
    return frame


def compile_stage(
    frame: DataFrame, stage: TransformationStage, config: Mapping[str, str]
) -> DataFrame | None:
    """One stage as Spark expressions over ``frame``, or None when it has no equivalent here."""
    settings = {
        key: str(value)
        for key, value in prefixed_settings(config, f"transforms.{stage.alias}.").items()
        if key not in ("type", "predicate", "negate")
    }
    if isinstance(stage.transformation, Filter):
        return _filter(frame, stage, config)
    if stage.predicate is not None:
        return None
    for compiler, on_value, on_key in _COMPILERS:
        if isinstance(stage.transformation, on_value):
            return compiler(frame, settings, VALUE)
        if isinstance(stage.transformation, on_key):
            return compiler(frame, settings, KEY)
    return None


def _list(settings: Mapping[str, str], *names: str) -> list[str]:
    for name in names:
        if settings.get(name):
            return [item.strip() for item in settings[name].split(",") if item.strip()]
    return []


def _struct_of(frame: DataFrame, column: str) -> StructType | None:
    data_type = frame.schema[column].dataType
    return data_type if isinstance(data_type, StructType) else None


def _named_field(frame: DataFrame, settings: Mapping[str, str], column: str) -> tuple[StructType, str] | None:
    """The struct in ``column`` and the name its ``field`` setting gives, if the struct has that field."""
    struct = _struct_of(frame, column)
    name = settings.get("field", "")
    if struct is None or name not in struct.fieldNames():
        return None
    return struct, name


def _rebuilt(frame: DataFrame, column: str, rebuilt: Column) -> DataFrame:
    """``frame`` with a new key or value; null ones (tombstones) stay null, as Kafka's transforms leave
    them."""
    return frame.withColumn(column, F.when(F.col(column).isNotNull(), rebuilt))


def _replace_field(frame: DataFrame, settings: Mapping[str, str], column: str) -> DataFrame | None:
    struct = _struct_of(frame, column)
    if struct is None:
        return None
    exclude = set(_list(settings, "exclude", "blacklist"))
    include = set(_list(settings, "include", "whitelist"))
    renames = dict(pair.split(":", 1) for pair in _list(settings, "renames"))
    kept = [
        F.col(column)[f.name].alias(renames.get(f.name, f.name))
        for f in struct.fields
        if f.name not in exclude and (not include or f.name in include)
    ]
    return _rebuilt(frame, column, F.struct(*kept))


def _insert_field(frame: DataFrame, settings: Mapping[str, str], column: str) -> DataFrame | None:
    struct = _struct_of(frame, column)
    if struct is None:
        return None
    sources: dict[str, Column] = {
        "topic.field": F.col("topic"),
        "partition.field": F.col("partition"),
        "offset.field": F.col("offset"),
        "timestamp.field": F.col("timestamp"),
        "static.field": F.lit(settings.get("static.value")).cast(StringType()),
    }
    added = {settings[key].rstrip("!?"): column for key, column in sources.items() if settings.get(key)}
    fields = [F.col(column)[f.name].alias(f.name) for f in struct.fields if f.name not in added]
    fields += [column.alias(name) for name, column in added.items()]
    return _rebuilt(frame, column, F.struct(*fields))


def _masked(data_type: DataType, replacement: str | None) -> Column | None:
    if replacement is not None:
        return F.lit(replacement).cast(data_type)
    if isinstance(data_type, NumericType):
        return F.lit(0).cast(data_type)
    if isinstance(data_type, StringType):
        return F.lit("")
    if isinstance(data_type, BooleanType):
        return F.lit(False)
    return None


def _mask_field(frame: DataFrame, settings: Mapping[str, str], column: str) -> DataFrame | None:
    struct = _struct_of(frame, column)
    if struct is None:
        return None
    masked = set(_list(settings, "fields"))
    replacement = settings.get("replacement") or None
    fields: list[Column] = []
    for f in struct.fields:
        field = F.col(column)[f.name]
        if f.name in masked:
            mask = _masked(f.dataType, replacement)
            if mask is None:
                return None
            field = F.when(field.isNotNull(), mask)
        fields.append(field.alias(f.name))
    return _rebuilt(frame, column, F.struct(*fields))


def _extract_field(frame: DataFrame, settings: Mapping[str, str], column: str) -> DataFrame | None:
    named = _named_field(frame, settings, column)
    if named is None:
        return None
    return frame.withColumn(column, F.col(column)[named[1]])


def _cast(frame: DataFrame, settings: Mapping[str, str], column: str) -> DataFrame | None:
    spec = _list(settings, "spec")
    if len(spec) == 1 and ":" not in spec[0]:
        whole = _CAST_TYPES.get(spec[0].lower())
        return None if whole is None else frame.withColumn(column, F.col(column).cast(whole))
    struct = _struct_of(frame, column)
    if struct is None:
        return None
    targets: dict[str, DataType] = {}
    for item in spec:
        name, _, type_name = item.partition(":")
        target = _CAST_TYPES.get(type_name.strip().lower())
        if target is None:
            return None
        targets[name.strip()] = target
    fields = [
        (F.col(column)[f.name].cast(targets[f.name]) if f.name in targets else F.col(column)[f.name]).alias(
            f.name
        )
        for f in struct.fields
    ]
    return _rebuilt(frame, column, F.struct(*fields))


def _timestamp_converter(frame: DataFrame, settings: Mapping[str, str], column: str) -> DataFrame | None:
    named = _named_field(frame, settings, column)
    if named is None:
        return None
    struct, name = named
    if settings.get("unix.precision", "milliseconds") != "milliseconds":
        return None
    source = struct[name].dataType
    target = settings.get("target.type", "")
    field = F.col(column)[name]
    converted: Column
    if target == "unix" and isinstance(source, TimestampType):
        converted = F.unix_millis(field)
    elif target == "Timestamp" and isinstance(source, LongType):
        converted = F.timestamp_millis(field)
    else:
        return None
    fields = [(converted if f.name == name else F.col(column)[f.name]).alias(f.name) for f in struct.fields]
    return _rebuilt(frame, column, F.struct(*fields))


def _filter(frame: DataFrame, stage: TransformationStage, config: Mapping[str, str]) -> DataFrame | None:
    """Filter drops the records its (possibly negated) predicate selects; with no predicate, all."""
    if stage.predicate is None:
        return frame.filter(F.lit(False))
    predicate_alias = str(config.get(f"transforms.{stage.alias}.predicate", "")).strip()
    selects: Column
    if isinstance(stage.predicate, RecordIsTombstone):
        selects = F.col(VALUE).isNull()
    elif isinstance(stage.predicate, TopicNameMatches):
        pattern = str(config.get(f"predicates.{predicate_alias}.pattern", ""))
        selects = F.col("topic").rlike(f"^(?:{pattern})$")
    elif isinstance(stage.predicate, HasHeaderKey):
        name = str(config.get(f"predicates.{predicate_alias}.name", ""))
        selects = F.coalesce(F.exists(F.col("headers"), lambda header: header["key"] == name), F.lit(False))
    else:
        return None
    return frame.filter(selects if stage.negate else ~selects)


_COMPILERS: Final[tuple[tuple[StageCompiler, type[Any], type[Any]], ...]] = (
    (_replace_field, ReplaceFieldValue, ReplaceFieldKey),
    (_insert_field, InsertFieldValue, InsertFieldKey),
    (_mask_field, MaskFieldValue, MaskFieldKey),
    (_extract_field, ExtractFieldValue, ExtractFieldKey),
    (_cast, CastValue, CastKey),
    (_timestamp_converter, TimestampConverterValue, TimestampConverterKey),
)
"""Each transformation the compiler knows: its compiler, and its ``$Value`` and ``$Key`` classes."""
