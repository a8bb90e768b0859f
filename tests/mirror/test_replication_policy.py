"""How remote topics are named: DefaultReplicationPolicy and IdentityReplicationPolicy, as Kafka's."""

from __future__ import annotations

import pytest

from conveyor.connectors.mirror import DefaultReplicationPolicy, IdentityReplicationPolicy, replication_policy
from conveyor.errors import ConfigError


def test_the_default_policy_prefixes_the_source_alias() -> None:
    assert DefaultReplicationPolicy().format_remote_topic("us-west", "orders") == "us-west.orders"


def test_the_separator_is_configurable() -> None:
    policy = replication_policy({"replication.policy.separator": "_"})
    assert policy.format_remote_topic("A", "orders") == "A_orders"
    assert (policy.topic_source("A_orders"), policy.upstream_topic("A_orders")) == ("A", "orders")


def test_the_default_policy_tells_where_a_remote_topic_came_from() -> None:
    policy = DefaultReplicationPolicy()
    assert (policy.topic_source("A.orders"), policy.upstream_topic("A.orders")) == ("A", "orders")
    assert (policy.topic_source("orders"), policy.upstream_topic("orders")) == (None, None)


def test_the_identity_policy_keeps_topic_names_but_not_the_heartbeats_name() -> None:
    policy = replication_policy(
        {"replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"}
    )
    assert isinstance(policy, IdentityReplicationPolicy)
    assert policy.format_remote_topic("A", "orders") == "orders"
    assert policy.format_remote_topic("A", "heartbeats") == "A.heartbeats"


def test_offset_syncs_topic_is_named_after_the_target() -> None:
    assert DefaultReplicationPolicy().offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"


def test_internal_topic_names_use_the_separator_unless_told_not_to() -> None:
    policy = replication_policy({"replication.policy.separator": "_"})
    assert policy.offset_syncs_topic("B") == "mm2-offset-syncs_B_internal"
    assert policy.checkpoints_topic("A") == "A_checkpoints_internal"
    dotted = replication_policy(
        {"replication.policy.separator": "_", "replication.policy.internal.topic.separator.enabled": "false"}
    )
    assert dotted.offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"
    assert dotted.checkpoints_topic("A") == "A.checkpoints.internal"


@pytest.mark.parametrize(
    ("topic", "internal"),
    [
        ("__consumer_offsets", True),
        (".hidden", True),
        ("mm2-offset-syncs.B.internal", True),
        ("mm2-configs.A.internal", True),
        ("A.checkpoints.internal", True),
        ("orders.internal", False),
        ("orders-internal", False),
        ("orders", False),
    ],
)
def test_internal_topics_are_kafka_s_and_mirrormaker_s_own(topic: str, internal: bool) -> None:
    assert DefaultReplicationPolicy().is_internal_topic(topic) is internal


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"replication\.policy\.class"):
        replication_policy({"replication.policy.class": "com.example.Mine"})
