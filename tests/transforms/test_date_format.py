"""Java SimpleDateFormat patterns as TimestampConverter and TimestampRouter use them (always UTC)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.transforms.date_format import JavaDateFormat

MILLIS_2017_01_02_03_04_05_006 = 1_483_326_245_006


def test_formats_a_full_timestamp_with_literals() -> None:
    pattern = JavaDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
    assert pattern.format(MILLIS_2017_01_02_03_04_05_006) == "2017-01-02T03:04:05.006Z"


def test_parses_what_it_formats() -> None:
    pattern = JavaDateFormat("yyyy MM dd HH mm ss SSS")
    assert pattern.parse("2017 01 02 03 04 05 006") == MILLIS_2017_01_02_03_04_05_006


def test_abutting_numeric_fields_take_their_width() -> None:
    assert JavaDateFormat("yyyyMMdd").parse("20170102") == 1_483_315_200_000


def test_text_after_the_pattern_is_ignored_as_dateformat_parse_does() -> None:
    assert JavaDateFormat("yyyy-MM-dd").parse("2017-01-02 and more") == 1_483_315_200_000


def test_month_and_day_names_and_am_pm() -> None:
    pattern = JavaDateFormat("EEE, d MMM yyyy hh:mm a")
    assert pattern.format(MILLIS_2017_01_02_03_04_05_006) == "Mon, 2 Jan 2017 03:04 AM"


def test_zone_offsets_are_applied_when_parsing() -> None:
    pattern = JavaDateFormat("yyyy-MM-dd HH:mm Z")
    assert pattern.parse("1970-01-01 01:00 +0100") == 0


def test_quoted_quote_is_a_literal_quote() -> None:
    assert JavaDateFormat("HH''mm").format(0) == "00'00"


def test_unknown_pattern_letter_is_rejected() -> None:
    with pytest.raises(ValueError, match="Illegal pattern character 'b'"):
        JavaDateFormat("yyyy-bb")


def test_text_that_does_not_match_is_rejected() -> None:
    with pytest.raises(ValueError, match="Unparseable date"):
        JavaDateFormat("yyyy-MM-dd").parse("not a date")


@given(millis=st.integers(min_value=0, max_value=253_402_300_799_999))
def test_iso_like_pattern_round_trips_every_millisecond(millis: int) -> None:
    pattern = JavaDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS")
    assert pattern.parse(pattern.format(millis)) == millis
