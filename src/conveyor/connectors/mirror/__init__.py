"""MirrorMaker 2: replicate topics between clusters (logs named by alias), as Kafka's MirrorMaker 2.

``MirrorSourceConnector`` replicates through the source task path (exactly once on a worker with
``exactly.once.source.support=enabled``, KIP-618); ``MirrorSinkConnector`` through a sink task with a
transactional producer and the source offsets committed on the target (KIP-656).
"""

from conveyor.connectors.mirror.policy import (
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
    replication_policy,
)
from conveyor.connectors.mirror.sink import MirrorSinkConnector, MirrorSinkTask
from conveyor.connectors.mirror.source import MirrorSourceConnector, MirrorSourceTask

__all__ = [
    "DefaultReplicationPolicy",
    "IdentityReplicationPolicy",
    "MirrorSinkConnector",
    "MirrorSinkTask",
    "MirrorSourceConnector",
    "MirrorSourceTask",
    "ReplicationPolicy",
    "replication_policy",
]
