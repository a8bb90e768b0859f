"""TopicNameMatches, HasHeaderKey and RecordIsTombstone, as Kafka's predicate tests specify them."""

from __future__ import annotations

import pytest

from conveyor.api import ConfigError
from conveyor.data import Headers
from conveyor.transforms import HasHeaderKey, RecordIsTombstone, TopicNameMatches

from .support import configured, value_record


def test_topic_name_matches_the_whole_topic_only() -> None:
    predicate = configured(TopicNameMatches, {"pattern": "my-prefix-.*"})
    assert predicate.test(value_record(None, None, topic="my-prefix-orders"))
    assert not predicate.test(value_record(None, None, topic="x-my-prefix-orders"))


def test_topic_name_matches_rejects_bad_or_empty_patterns() -> None:
    with pytest.raises(ConfigError, match="pattern"):
        configured(TopicNameMatches, {"pattern": "["})
    with pytest.raises(ConfigError, match="pattern"):
        configured(TopicNameMatches, {"pattern": ""})


def test_has_header_key_looks_for_any_header_with_the_name() -> None:
    predicate = configured(HasHeaderKey, {"name": "trace"})
    headers = Headers().add("other", "x").add("trace", None)
    assert predicate.test(value_record(None, None).new_record(headers=headers))
    assert not predicate.test(value_record(None, None))


def test_has_header_key_needs_a_non_empty_name() -> None:
    with pytest.raises(ConfigError, match="name"):
        configured(HasHeaderKey, {"name": ""})


def test_record_is_tombstone_when_the_value_is_null() -> None:
    predicate = configured(RecordIsTombstone)
    assert predicate.test(value_record(None, None, key="k"))
    assert not predicate.test(value_record(None, "v", key="k"))
