"""RegexRouter and TimestampRouter, as Kafka's RegexRouterTest and TimestampRouterTest specify them."""

from __future__ import annotations

import pytest

from conveyor.api import ConfigError
from conveyor.data import DataError
from conveyor.transforms import RegexRouter, TimestampRouter

from .support import configured, value_record


def routed(regex: str, replacement: str, topic: str) -> str:
    result = configured(RegexRouter, {"regex": regex, "replacement": replacement}).apply(
        value_record(None, None, topic=topic)
    )
    assert result is not None
    return result.topic


def test_static_replacement_of_a_whole_match() -> None:
    assert routed("foo", "bar", "foo") == "bar"


def test_a_partial_match_leaves_the_topic_alone() -> None:
    assert routed("foo", "bar", "orig") == "orig"
    assert routed("foo", "bar", "foobar") == "foobar"


def test_java_group_references_are_substituted() -> None:
    assert routed(r"(.*)foo(.*)", "$1bar$2", "tfoot") == "tbart"


def test_named_group_references_and_escaped_dollars() -> None:
    assert routed(r"(?P<name>\w+)-raw", r"${name}-\$clean", "orders-raw") == "orders-$clean"


def test_slice_of_a_topic_name() -> None:
    assert routed(r"(.*)-(\d\d\d\d\d\d\d\d)", "$1", "index-20160117") == "index"


def test_partition_and_payload_are_kept() -> None:
    record = value_record(None, {"a": 1}, topic="foo")
    result = configured(RegexRouter, {"regex": "foo", "replacement": "bar"}).apply(record)
    assert result is not None
    assert (result.kafka_partition, result.value) == (0, {"a": 1})


def test_invalid_regex_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="regex"):
        configured(RegexRouter, {"regex": "(", "replacement": "x"})


def test_timestamp_router_default_format() -> None:
    record = value_record(None, None, topic="test", timestamp=1_483_425_001_864)
    result = configured(TimestampRouter).apply(record)
    assert result is not None
    assert result.topic == "test-20170103"


def test_timestamp_router_custom_formats() -> None:
    router = configured(
        TimestampRouter, {"topic.format": "${timestamp}_${topic}", "timestamp.format": "yyyy-MM"}
    )
    result = router.apply(value_record(None, None, topic="events", timestamp=1_483_425_001_864))
    assert result is not None
    assert result.topic == "2017-01_events"


def test_timestamp_router_needs_a_timestamp() -> None:
    with pytest.raises(DataError, match="Timestamp missing on record"):
        configured(TimestampRouter).apply(value_record(None, None))
