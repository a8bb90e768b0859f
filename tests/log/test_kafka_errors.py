"""Which Kafka errors the Kafka backend waits out: a partition whose leader is not settled yet."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException

from conveyor.log.kafka.errors import coordinator_moving, leader_moving


@pytest.mark.parametrize(
    "code",
    [
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.UNKNOWN_LEADER_EPOCH,
        KafkaError.FENCED_LEADER_EPOCH,
    ],
)
def test_a_leader_that_is_not_settled_is_waited_for(code: int) -> None:
    assert leader_moving(KafkaException(KafkaError(code)))


def test_a_missing_authorization_is_not_waited_for() -> None:
    assert not leader_moving(KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)))


@pytest.mark.parametrize(
    "code",
    [
        KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
        KafkaError.COORDINATOR_NOT_AVAILABLE,
        KafkaError.NOT_COORDINATOR,
    ],
)
def test_a_group_coordinator_that_is_not_ready_is_asked_again(code: int) -> None:
    assert coordinator_moving(KafkaException(KafkaError(code)))


def test_a_group_refused_by_authorization_is_not_asked_again() -> None:
    assert not coordinator_moving(KafkaException(KafkaError(KafkaError.GROUP_AUTHORIZATION_FAILED)))
