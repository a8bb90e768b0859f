"""Which topics are replicated: `topics` regexes minus `topics.exclude` regexes, whole names only."""

from __future__ import annotations

from conveyor.connectors.mirror.topic_filter import TopicFilter


def test_every_topic_but_internal_ones_by_default() -> None:
    chosen = TopicFilter.from_config({}).select(
        ["orders", "__consumer_offsets", "mm2-configs.A.internal", "x.replica", "orders.internal"]
    )
    assert chosen == ["orders", "orders.internal"]


def test_topics_are_comma_separated_regexes_matching_whole_names() -> None:
    chosen = TopicFilter.from_config({"topics": "ord.*, pay"}).select(
        ["orders", "payments", "pay", "reorders"]
    )
    assert chosen == ["orders", "pay"]


def test_excluded_topics_are_left_out() -> None:
    topic_filter = TopicFilter.from_config({"topics": ".*", "topics.exclude": "test-.*"})
    assert topic_filter.select(["orders", "test-orders"]) == ["orders"]
