"""Kafka's assignor class names become librdkafka's ``partition.assignment.strategy``, and the protocol
the Kafka log's consumer rebalances with follows from them as in Kafka's consumer."""

from __future__ import annotations

import pytest

from conveyor.log import InvalidConfigError
from conveyor.log.assignment_strategy import (
    COOPERATIVE_STICKY_ASSIGNOR,
    RANGE_ASSIGNOR,
    ROUND_ROBIN_ASSIGNOR,
    RebalanceProtocol,
)
from conveyor.log.kafka.assignors import LibrdkafkaStrategy, librdkafka_strategy

SETTING = "partition.assignment.strategy"


def test_each_class_name_becomes_librdkafkas_name_of_that_assignor() -> None:
    assert librdkafka_strategy({SETTING: [ROUND_ROBIN_ASSIGNOR, RANGE_ASSIGNOR]}) == LibrdkafkaStrategy(
        "roundrobin,range", RebalanceProtocol.EAGER
    )
    assert librdkafka_strategy({SETTING: COOPERATIVE_STICKY_ASSIGNOR}) == LibrdkafkaStrategy(
        "cooperative-sticky", RebalanceProtocol.COOPERATIVE
    )


def test_kafkas_default_offers_the_range_assignor_alone_and_rebalances_eagerly() -> None:
    assert librdkafka_strategy({}) == LibrdkafkaStrategy("range", RebalanceProtocol.EAGER)


def test_a_cooperative_first_choice_beside_an_eager_assignor_is_a_config_error() -> None:
    with pytest.raises(InvalidConfigError, match="cooperative assignor first"):
        librdkafka_strategy({SETTING: f"{COOPERATIVE_STICKY_ASSIGNOR},{RANGE_ASSIGNOR}"})
