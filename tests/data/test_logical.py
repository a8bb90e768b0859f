import datetime as dt
import decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.data import INT32_SCHEMA, DataError, Date, Decimal, Time, Timestamp, Type


def test_logical_schemas_carry_connects_names_and_types() -> None:
    assert (Date.SCHEMA.name, Date.SCHEMA.type) == ("org.apache.kafka.connect.data.Date", Type.INT32)
    assert (Time.SCHEMA.name, Time.SCHEMA.type) == ("org.apache.kafka.connect.data.Time", Type.INT32)
    assert (Timestamp.SCHEMA.name, Timestamp.SCHEMA.type) == (
        "org.apache.kafka.connect.data.Timestamp",
        Type.INT64,
    )
    assert Decimal.schema(3).parameters == {"scale": "3"}
    assert Decimal.schema(3).type is Type.BYTES


@pytest.mark.parametrize(
    ("text", "raw"),
    [("0.00", b"\x00"), ("1.27", b"\x7f"), ("1.28", b"\x00\x80"), ("-1.28", b"\x80"), ("-1.29", b"\xff\x7f")],
)
def test_decimal_bytes_are_javas_minimal_twos_complement(text: str, raw: bytes) -> None:
    assert Decimal.from_logical(Decimal.schema(2), decimal.Decimal(text)) == raw
    assert Decimal.to_logical(Decimal.schema(2), raw) == decimal.Decimal(text)


def test_decimal_of_a_different_scale_is_refused() -> None:
    with pytest.raises(DataError, match="scale"):
        Decimal.from_logical(Decimal.schema(2), decimal.Decimal("1.5"))


@given(st.integers(min_value=-(10**30), max_value=10**30), st.integers(min_value=0, max_value=10))
def test_decimal_round_trips_keeping_its_scale(unscaled: int, scale: int) -> None:
    value = decimal.Decimal(f"{unscaled}E-{scale}")
    schema = Decimal.schema(scale)
    back = Decimal.to_logical(schema, Decimal.from_logical(schema, value))
    assert back == value
    assert back.as_tuple().exponent == -scale


def test_date_counts_days_since_the_epoch() -> None:
    assert Date.from_logical(Date.SCHEMA, dt.date(1970, 1, 11)) == 10
    assert Date.to_logical(Date.SCHEMA, -1) == dt.date(1969, 12, 31)


def test_time_counts_milliseconds_since_midnight() -> None:
    assert Time.from_logical(Time.SCHEMA, dt.time(1, 0, 0, 5000)) == 3_600_005
    assert Time.to_logical(Time.SCHEMA, 3_600_005) == dt.time(1, 0, 0, 5000)


def test_time_outside_one_day_is_refused() -> None:
    with pytest.raises(DataError):
        Time.to_logical(Time.SCHEMA, 86_400_000)


def test_timestamp_is_utc_epoch_milliseconds() -> None:
    instant = dt.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC)
    assert Timestamp.from_logical(Timestamp.SCHEMA, instant) == 1704164645006
    assert Timestamp.to_logical(Timestamp.SCHEMA, 1704164645006) == instant


def test_timestamp_converts_other_zones_to_the_same_instant() -> None:
    zone = dt.timezone(dt.timedelta(hours=2))
    assert Timestamp.from_logical(Timestamp.SCHEMA, dt.datetime(1970, 1, 1, 2, tzinfo=zone)) == 0


def test_a_logical_conversion_refuses_a_schema_of_another_type() -> None:
    with pytest.raises(DataError, match="Date"):
        Date.from_logical(INT32_SCHEMA, dt.date(2024, 1, 1))
