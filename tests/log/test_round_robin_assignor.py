"""Kafka's RoundRobinAssignor: partitions sorted by topic and number, dealt to the members in turn."""

from __future__ import annotations

from conveyor.log import TopicPartition
from conveyor.log.round_robin_assignor import assign_round_robin


def test_partitions_of_all_topics_are_dealt_to_the_members_in_turn() -> None:
    assignment = assign_round_robin({"m2": ["a", "b"], "m1": ["a", "b"]}, {"a": 3, "b": 2}.__getitem__)
    assert assignment == {
        "m1": [TopicPartition("a", 0), TopicPartition("a", 2), TopicPartition("b", 1)],
        "m2": [TopicPartition("a", 1), TopicPartition("b", 0)],
    }


def test_a_member_not_subscribed_to_a_topic_is_passed_over_for_its_partitions() -> None:
    assignment = assign_round_robin(
        {"m1": ["a"], "m2": ["a", "b"], "m3": ["a"]}, {"a": 2, "b": 2}.__getitem__
    )
    assert assignment == {
        "m1": [TopicPartition("a", 0)],
        "m2": [TopicPartition("a", 1), TopicPartition("b", 0), TopicPartition("b", 1)],
        "m3": [],
    }
