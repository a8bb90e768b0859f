"""Parsing the data source's options: Spark's Kafka names, clear errors for bad combinations."""

from __future__ import annotations

import pytest

from conveyor.spark.datasource.options import ConveyorOptionError, parse_read_options, parse_write_options

URL = {"log.url": "embedded:/tmp/x"}


def test_a_batch_read_starts_at_earliest_and_a_stream_at_latest() -> None:
    assert parse_read_options({**URL, "subscribe": "a"}, streaming=False).starting_offsets == "earliest"
    assert parse_read_options({**URL, "subscribe": "a"}, streaming=True).starting_offsets == "latest"


def test_reads_are_read_committed_unless_asked_otherwise() -> None:
    assert parse_read_options({**URL, "subscribe": "a"}, streaming=False).isolation_level == "read_committed"


def test_option_names_are_case_insensitive() -> None:
    options = parse_read_options({"LOG.URL": "embedded:/x", "SUBSCRIBE": "a, b"}, streaming=False)
    assert options.subscription.topics == ("a", "b")


def test_the_log_url_is_required() -> None:
    with pytest.raises(ConveyorOptionError, match=r"log\.url"):
        parse_read_options({"subscribe": "a"}, streaming=False)


@pytest.mark.parametrize("given", [{}, {"subscribe": "a", "assign": '{"a":[0]}'}])
def test_exactly_one_of_subscribe_subscribe_pattern_and_assign_is_required(given: dict[str, str]) -> None:
    with pytest.raises(ConveyorOptionError, match="exactly one of subscribe"):
        parse_read_options({**URL, **given}, streaming=False)


def test_subscribe_pattern_matches_whole_topic_names() -> None:
    subscription = parse_read_options({**URL, "subscribePattern": "orders-.*"}, streaming=False).subscription
    assert subscription.matches("orders-eu")
    assert not subscription.matches("old-orders-eu")


def test_assign_names_partitions_per_topic() -> None:
    options = parse_read_options({**URL, "assign": '{"a":[1,0]}'}, streaming=False)
    assert options.subscription.assigned == {"a": (0, 1)}


def test_max_records_per_trigger_accepts_sparks_max_offsets_per_trigger_too() -> None:
    options = parse_read_options({**URL, "subscribe": "a", "maxOffsetsPerTrigger": "50"}, streaming=True)
    assert options.max_records_per_trigger == 50


def test_max_records_per_trigger_must_be_positive() -> None:
    with pytest.raises(ConveyorOptionError, match="maxRecordsPerTrigger"):
        parse_read_options({**URL, "subscribe": "a", "maxRecordsPerTrigger": "0"}, streaming=True)


def test_ending_offsets_are_refused_for_streams() -> None:
    with pytest.raises(ConveyorOptionError, match="endingOffsets"):
        parse_read_options({**URL, "subscribe": "a", "endingOffsets": "latest"}, streaming=True)


def test_converter_settings_apply_to_both_converters_and_prefixed_ones_to_one() -> None:
    options = parse_read_options(
        {
            **URL,
            "subscribe": "a",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter": "JsonConverter",
            "schemas.enable": "false",
            "value.converter.schemas.enable": "true",
        },
        streaming=False,
    )
    assert options.value_converter is not None and options.key_converter is not None
    assert options.value_converter.settings == {"schemas.enable": "true"}
    assert options.key_converter.settings == {"schemas.enable": "false"}


def test_writes_take_a_default_topic() -> None:
    assert parse_write_options({**URL, "topic": "out"}).topic == "out"
