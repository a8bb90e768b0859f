"""Names derived from settings, each built in one place: the sink consumer group, the transactional ids
of exactly-once source tasks, the key that points a sink's consumer at another log, and the client
setting that names a Kafka cluster."""

from __future__ import annotations

from typing import Final

BOOTSTRAP_SERVERS: Final = "bootstrap.servers"
"""The Kafka client setting naming a cluster's brokers."""

CONSUMER_LOG_URL_CONFIG: Final = "consumer.override.log.url"
"""The log a sink connector's tasks consume from, when it is not the worker's (MirrorMaker's sink design)."""


def consumer_group(connector: str) -> str:
    """Kafka Connect's default sink consumer group (`SinkUtils.consumerGroupId`)."""
    return f"connect-{connector}"


def task_transactional_id(group_id: str, connector: str, task: int) -> str:
    """An exactly-once source task's transactional id (KIP-618): ``<group>-<connector>-<task>``."""
    return f"{group_id}-{connector}-{task}"
