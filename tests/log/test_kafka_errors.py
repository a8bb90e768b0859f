"""Which Kafka errors the Kafka backend waits out: a partition whose leader is not settled yet."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException

from conveyor.log.kafka.errors import leader_moving


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
