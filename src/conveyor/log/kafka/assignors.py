"""``partition.assignment.strategy`` in librdkafka's terms: Kafka's assignor class names become the
group protocol names librdkafka uses for them (``range``, ``roundrobin``, ``cooperative-sticky``).

librdkafka cannot offer an eager and a cooperative assignor side by side. Kafka's default,
``RangeAssignor,CooperativeStickyAssignor``, rebalances eagerly and the group picks ``range`` when every
member offers it, so a list that starts with eager assignors offers those alone: the same assignment
and protocol, but no way for a cooperative assignor to be chosen during a rolling change. A list whose
first choice is cooperative and that also names an eager one is a configuration error here, since Kafka
would run the cooperative assignor eagerly, which librdkafka cannot do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.log.assignment_strategy import (
    STRATEGY_SETTING,
    RebalanceProtocol,
    assignors_from_config,
    rebalance_protocol,
)
from conveyor.log.errors import InvalidConfigError


@dataclass(frozen=True, slots=True)
class LibrdkafkaStrategy:
    """librdkafka's ``partition.assignment.strategy`` value, and how its consumer rebalances."""

    setting: str
    protocol: RebalanceProtocol


def librdkafka_strategy(config: Mapping[str, object]) -> LibrdkafkaStrategy:
    """The librdkafka strategy for a consumer configured with Kafka's ``partition.assignment.strategy``."""
    assignors = assignors_from_config(config)
    protocol = rebalance_protocol(assignors)
    if protocol is RebalanceProtocol.EAGER:
        if assignors[0].cooperative:
            raise InvalidConfigError(
                f"Setting {STRATEGY_SETTING}: the Kafka log cannot offer a cooperative assignor first "
                f"beside eager ones ({config.get(STRATEGY_SETTING)}); list the eager ones first, or "
                "cooperative ones alone"
            )
        assignors = [assignor for assignor in assignors if not assignor.cooperative]
    names = dict.fromkeys(assignor.name for assignor in assignors)
    return LibrdkafkaStrategy(",".join(names), protocol)
