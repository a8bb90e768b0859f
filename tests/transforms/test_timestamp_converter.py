"""TimestampConverter, as Kafka's TimestampConverterTest specifies it."""

from __future__ import annotations

import datetime as dt

import pytest

from conveyor.api import ConfigError
from conveyor.data import (
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    DataError,
    Date,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)
from conveyor.transforms import TimestampConverterKey, TimestampConverterValue

from .support import configured, key_record, value_record

FORMAT = "yyyy MM dd HH mm ss SSS z"
DATE_PLUS_TIME = dt.datetime(1970, 1, 2, 0, 0, 1, tzinfo=dt.UTC)
DATE_PLUS_TIME_UNIX = 86_401_000
DATE_PLUS_TIME_STRING = "1970 01 02 00 00 01 000 UTC"


def converting(target: str, **extra: str) -> TimestampConverterValue:
    settings = {name.replace("_", "."): value for name, value in extra.items()}
    return configured(TimestampConverterValue, {"target.type": target, **settings})


def whole_value(transform: TimestampConverterValue, schema: object, value: object) -> tuple[object, object]:
    result = transform.apply(value_record(schema, value))  # type: ignore[arg-type]
    assert result is not None
    return result.value_schema, result.value


def test_invalid_target_type_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"target\.type"):
        converting("invalid")


def test_string_target_needs_a_format() -> None:
    with pytest.raises(ConfigError, match="requires format option"):
        converting("string")


def test_invalid_format_is_rejected() -> None:
    with pytest.raises(ConfigError, match="SimpleDateFormat-compatible"):
        converting("string", format="bad-format-bb")


def test_schemaless_timestamp_to_unix() -> None:
    assert whole_value(converting("unix"), None, DATE_PLUS_TIME) == (None, DATE_PLUS_TIME_UNIX)


def test_schemaless_timestamp_to_date_drops_the_time() -> None:
    assert whole_value(converting("Date"), None, DATE_PLUS_TIME) == (None, dt.date(1970, 1, 2))


def test_schemaless_timestamp_to_time_drops_the_date() -> None:
    assert whole_value(converting("Time"), None, DATE_PLUS_TIME) == (None, dt.time(0, 0, 1))


def test_schemaless_timestamp_to_string() -> None:
    assert whole_value(converting("string", format=FORMAT), None, DATE_PLUS_TIME) == (
        None,
        DATE_PLUS_TIME_STRING,
    )


def test_schemaless_unix_and_string_to_timestamp() -> None:
    assert whole_value(converting("Timestamp"), None, DATE_PLUS_TIME_UNIX) == (None, DATE_PLUS_TIME)
    transform = converting("Timestamp", format=FORMAT)
    assert whole_value(transform, None, DATE_PLUS_TIME_STRING) == (None, DATE_PLUS_TIME)


def test_with_schema_timestamp_to_every_target_type() -> None:
    assert whole_value(converting("unix"), Timestamp.SCHEMA, DATE_PLUS_TIME) == (
        INT64_SCHEMA,
        DATE_PLUS_TIME_UNIX,
    )
    assert whole_value(converting("Date"), Timestamp.SCHEMA, DATE_PLUS_TIME) == (
        Date.SCHEMA,
        dt.date(1970, 1, 2),
    )
    assert whole_value(converting("Time"), Timestamp.SCHEMA, DATE_PLUS_TIME) == (
        Time.SCHEMA,
        dt.time(0, 0, 1),
    )
    as_string = whole_value(converting("string", format=FORMAT), Timestamp.SCHEMA, DATE_PLUS_TIME)
    assert as_string == (STRING_SCHEMA, DATE_PLUS_TIME_STRING)


def test_with_schema_optional_input_gives_optional_output() -> None:
    schema, value = whole_value(converting("Timestamp"), OPTIONAL_INT64_SCHEMA, None)
    assert schema == Timestamp.builder().optional().build()
    assert value is None


def test_unix_precision_applies_to_input_and_output() -> None:
    assert whole_value(converting("unix", unix_precision="seconds"), None, DATE_PLUS_TIME) == (None, 86_401)
    assert whole_value(converting("unix", unix_precision="microseconds"), None, DATE_PLUS_TIME) == (
        None,
        86_401_000_000,
    )
    transform = converting("Timestamp", unix_precision="nanoseconds")
    assert whole_value(transform, INT64_SCHEMA, 86_401_000_999_999) == (Timestamp.SCHEMA, DATE_PLUS_TIME)


def test_negative_seconds_truncate_toward_zero() -> None:
    before_epoch = dt.datetime(1969, 12, 31, 23, 59, 58, 500_000, tzinfo=dt.UTC)
    transform = converting("unix", unix_precision="seconds")
    assert whole_value(transform, Timestamp.SCHEMA, before_epoch) == (INT64_SCHEMA, -1)


def test_unparseable_string_fails_naming_the_pattern() -> None:
    with pytest.raises(DataError, match="does not match pattern"):
        whole_value(converting("unix", format=FORMAT), STRING_SCHEMA, "nope")


def test_unsupported_schemaless_type_fails() -> None:
    with pytest.raises(DataError, match="does not support"):
        whole_value(converting("unix"), None, 1.5)


def test_with_schema_one_field_is_converted_and_the_rest_kept() -> None:
    schema = SchemaBuilder.struct().field("ts", Timestamp.SCHEMA).field("other", STRING_SCHEMA).build()
    value = Struct(schema).put("ts", DATE_PLUS_TIME).put("other", "test")
    transform = converting("unix", field="ts")

    result = transform.apply(value_record(schema, value))

    assert result is not None
    assert result.value_schema.field("ts").schema == INT64_SCHEMA
    assert result.value.to_dict() == {"ts": DATE_PLUS_TIME_UNIX, "other": "test"}


def test_with_schema_field_conversion_of_a_null_struct_keeps_it_null() -> None:
    schema = SchemaBuilder.struct().field("ts", Timestamp.SCHEMA).optional().build()
    result = converting("unix", field="ts").apply(value_record(schema, None))
    assert result is not None
    assert result.value is None
    assert result.value_schema.field("ts").schema == INT64_SCHEMA


def test_schemaless_field_conversion() -> None:
    result = converting("Date", field="ts").apply(value_record(None, {"ts": DATE_PLUS_TIME, "o": 1}))
    assert result is not None
    assert result.value == {"ts": dt.date(1970, 1, 2), "o": 1}


def test_key_variant_converts_the_key() -> None:
    transform = configured(TimestampConverterKey, {"target.type": "Timestamp"})
    result = transform.apply(key_record(INT64_SCHEMA, DATE_PLUS_TIME_UNIX))
    assert result is not None
    assert (result.key_schema, result.key) == (Timestamp.SCHEMA, DATE_PLUS_TIME)
