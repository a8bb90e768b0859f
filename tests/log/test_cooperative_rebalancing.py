"""Consumers with `CooperativeStickyAssignor` keep their partitions across rebalances (KIP-429): only
partitions that move are revoked, in a first rebalance, and assigned to their new owner in a follow-up;
the listener hears of the moved ones only."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from conveyor.log import Consumer, InvalidConfigError, Log, RebalanceListener, TopicPartition
from conveyor.log.assignment_strategy import (
    COOPERATIVE_STICKY_ASSIGNOR,
    RANGE_ASSIGNOR,
    ROUND_ROBIN_ASSIGNOR,
    STICKY_ASSIGNOR,
)
from waiting import wait_until


def group_consumer(log: Log, group_id: str, strategy: str = COOPERATIVE_STICKY_ASSIGNOR) -> Consumer:
    """A consumer of ``group_id`` with short timeouts and the given ``partition.assignment.strategy``."""
    return log.consumer(
        group_id,
        auto_offset_reset="earliest",
        heartbeat_interval_ms=50,
        session_timeout_ms=5_000,
        max_poll_interval_ms=10_000,
        partition_assignment_strategy=strategy,
    )


class CallbackLog(RebalanceListener):
    """Every callback in order, with the partitions it was given (also on a ``timeline`` that several
    consumers may share), and what the consumer read."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, set[TopicPartition]]] = []
        self.values: list[bytes | None] = []
        self.name = ""
        self.timeline: list[tuple[str, str, set[TopicPartition]]] = []

    def _record(self, call: str, partitions: set[TopicPartition]) -> None:
        self.calls.append((call, set(partitions)))
        self.timeline.append((self.name, call, set(partitions)))

    def on_partitions_assigned(self, partitions: set[TopicPartition]) -> None:
        self._record("assigned", partitions)

    def on_partitions_revoked(self, partitions: set[TopicPartition]) -> None:
        self._record("revoked", partitions)

    def on_partitions_lost(self, partitions: set[TopicPartition]) -> None:
        self._record("lost", partitions)

    def held(self) -> set[TopicPartition]:
        """What the callbacks say the consumer holds now."""
        held: set[TopicPartition] = set()
        for call, partitions in self.calls:
            held = held | partitions if call == "assigned" else held - partitions
        return held

    def revoked(self) -> set[TopicPartition]:
        return {tp for call, partitions in self.calls if call in ("revoked", "lost") for tp in partitions}


@contextmanager
def polling(consumer: Consumer, listener: CallbackLog) -> Iterator[None]:
    """Poll ``consumer`` on a thread of its own (its group needs it to) until the block ends."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            listener.values.extend(record.value for record in consumer.poll(timeout=0.02))

    thread = threading.Thread(target=loop)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def subscribed(
    log: Log, group_id: str, topic: str, strategy: str = COOPERATIVE_STICKY_ASSIGNOR
) -> tuple[Consumer, CallbackLog]:
    listener = CallbackLog()
    consumer = group_consumer(log, group_id, strategy)
    consumer.subscribe([topic], listener)
    return consumer, listener


def every_partition(topic: str, count: int) -> set[TopicPartition]:
    return {TopicPartition(topic, p) for p in range(count)}


def settled(listeners: list[CallbackLog], partitions: set[TopicPartition]) -> bool:
    """Every partition held by exactly one of the consumers, evenly, by their callbacks."""
    held = [listener.held() for listener in listeners]
    sizes = [len(h) for h in held]
    return sum(sizes) == len(partitions) and set().union(*held) == partitions and max(sizes) - min(sizes) <= 1


@pytest.fixture
def topic6(log: Log) -> str:
    log.admin().create_topic("six", partitions=6)
    return "six"


def test_a_joining_consumer_takes_partitions_without_the_first_giving_up_those_it_keeps(
    log: Log, topic6: str
) -> None:
    first, first_calls = subscribed(log, "joining", topic6)
    first.poll(timeout=0)
    assert first_calls.calls == [("assigned", every_partition(topic6, 6))]
    second, second_calls = subscribed(log, "joining", topic6)
    with polling(first, first_calls), polling(second, second_calls):
        wait_until(
            lambda: settled([first_calls, second_calls], every_partition(topic6, 6)), "a settled group"
        )
    moved = second_calls.held()
    assert len(moved) == 3
    assert [call for call in first_calls.calls if call[0] == "revoked"] == [("revoked", moved)]
    assert [partitions for call, partitions in second_calls.calls if call == "assigned" and partitions] == [
        moved
    ]
    assert first.assignment() == every_partition(topic6, 6) - moved
    assert second.assignment() == moved
    first.close()
    second.close()


def test_a_moved_partition_is_revoked_by_its_owner_before_its_new_owner_is_assigned_it(
    log: Log, topic6: str
) -> None:
    timeline: list[tuple[str, str, set[TopicPartition]]] = []
    first, first_calls = subscribed(log, "follow-up", topic6)
    first_calls.timeline, first_calls.name = timeline, "first"
    first.poll(timeout=0)
    second, second_calls = subscribed(log, "follow-up", topic6)
    second_calls.timeline, second_calls.name = timeline, "second"
    with polling(first, first_calls), polling(second, second_calls):
        wait_until(
            lambda: settled([first_calls, second_calls], every_partition(topic6, 6)), "a settled group"
        )
    moved = second_calls.held()
    revoked_at = timeline.index(("first", "revoked", moved))
    assigned_at = timeline.index(("second", "assigned", moved))
    assert revoked_at < assigned_at
    # The owner then hears of no new partition; the newcomer of nothing before the moved ones.
    assert {frozenset(p) for name, call, p in timeline[revoked_at + 1 :] if name == "first"} <= {frozenset()}
    assert {frozenset(p) for name, call, p in timeline[:assigned_at] if name == "second"} <= {frozenset()}
    first.close()
    second.close()


def test_when_a_consumer_leaves_the_others_only_gain_its_partitions(log: Log, topic6: str) -> None:
    consumers = [subscribed(log, "leaving", topic6) for _ in range(3)]
    listeners = [listener for _, listener in consumers]
    with polling(*consumers[0]), polling(*consumers[1]), polling(*consumers[2]):
        wait_until(lambda: settled(listeners, every_partition(topic6, 6)), "three consumers settled")
    held_before = [listener.held() for listener in listeners]
    revoked_before = [listener.revoked() for listener in listeners]
    leaving, _ = consumers.pop()
    leaving.close()
    survivors = listeners[:2]
    with polling(*consumers[0]), polling(*consumers[1]):
        wait_until(lambda: settled(survivors, every_partition(topic6, 6)), "the survivors holding all six")
    for index, listener in enumerate(survivors):
        assert listener.revoked() == revoked_before[index], "a survivor gave partitions up"
        assert listener.held() >= held_before[index]
    gained = (survivors[0].held() - held_before[0]) | (survivors[1].held() - held_before[1])
    assert gained == held_before[2]
    for consumer, _ in consumers:
        consumer.close()


def test_partitions_a_consumer_keeps_are_read_on_from_its_position_not_again(log: Log, topic6: str) -> None:
    with log.producer() as producer:
        for partition in range(6):
            producer.send_batch(topic6, [f"{partition}:{n}".encode() for n in range(5)], partition=partition)
    first, first_calls = subscribed(log, "positions", topic6)
    while len(first_calls.values) < 30:
        first_calls.values.extend(record.value for record in first.poll(timeout=1))
    second, second_calls = subscribed(log, "positions", topic6)
    with polling(first, first_calls), polling(second, second_calls):
        wait_until(
            lambda: settled([first_calls, second_calls], every_partition(topic6, 6)), "a settled group"
        )
        with log.producer() as producer:
            for partition in range(6):
                producer.send_batch(topic6, [f"{partition}:5".encode()], partition=partition)
        wait_until(lambda: len(first_calls.values) + len(second_calls.values) >= 36, "the new records read")
    kept = {tp.partition for tp in first_calls.held()}
    assert sorted(first_calls.values) == sorted(
        [f"{p}:{n}".encode() for p in range(6) for n in range(5)] + [f"{p}:5".encode() for p in kept]
    )
    # Nothing was committed: the newcomer reads its partitions from the beginning.
    assert len(second_calls.values) == 6 * 3
    first.close()
    second.close()


def test_subscribing_to_other_topics_revokes_the_partitions_of_the_topics_left(log: Log, topic6: str) -> None:
    log.admin().create_topic("next", partitions=1)
    consumer, calls = subscribed(log, "resubscribing", topic6)
    consumer.poll(timeout=0)
    consumer.subscribe(["next"], calls)

    def holding_next() -> bool:
        consumer.poll(timeout=0.1)
        return calls.held() == {TopicPartition("next", 0)}

    wait_until(holding_next, "the consumer holding the new topic's partition")
    assert [call for call in calls.calls if call[1]] == [
        ("assigned", every_partition(topic6, 6)),
        ("revoked", every_partition(topic6, 6)),
        ("assigned", {TopicPartition("next", 0)}),
    ]
    consumer.close()


def test_kafkas_default_strategy_rebalances_eagerly_revoking_every_partition(log: Log, topic6: str) -> None:
    default = f"{RANGE_ASSIGNOR},{COOPERATIVE_STICKY_ASSIGNOR}"
    first, first_calls = subscribed(log, "default", topic6, default)
    first.poll(timeout=0)
    second, second_calls = subscribed(log, "default", topic6, default)
    with polling(first, first_calls), polling(second, second_calls):
        wait_until(
            lambda: settled([first_calls, second_calls], every_partition(topic6, 6)), "a settled group"
        )
    assert ("revoked", every_partition(topic6, 6)) in first_calls.calls
    ranges = {frozenset(TopicPartition(topic6, p) for p in span) for span in (range(3), range(3, 6))}
    assert {frozenset(first.assignment()), frozenset(second.assignment())} == ranges
    first.close()
    second.close()


def test_an_unknown_assignor_is_a_config_error_when_the_consumer_is_created(log: Log) -> None:
    with pytest.raises(InvalidConfigError, match="NoSuchAssignor"):
        group_consumer(log, "unknown", "com.example.NoSuchAssignor")


def test_the_eager_sticky_assignor_is_a_config_error_that_points_to_the_cooperative_one(log: Log) -> None:
    with pytest.raises(InvalidConfigError, match="CooperativeStickyAssignor"):
        group_consumer(log, "sticky", STICKY_ASSIGNOR)


def test_the_round_robin_assignor_deals_partitions_out_in_turn(log: Log, topic6: str) -> None:
    first, first_calls = subscribed(log, "round-robin", topic6, ROUND_ROBIN_ASSIGNOR)
    first.poll(timeout=0)
    second, second_calls = subscribed(log, "round-robin", topic6, ROUND_ROBIN_ASSIGNOR)
    with polling(first, first_calls), polling(second, second_calls):
        wait_until(
            lambda: settled([first_calls, second_calls], every_partition(topic6, 6)), "a settled group"
        )
    alternate = {
        frozenset(TopicPartition(topic6, p) for p in span) for span in (range(0, 6, 2), range(1, 6, 2))
    }
    assert {frozenset(first.assignment()), frozenset(second.assignment())} == alternate
    first.close()
    second.close()
