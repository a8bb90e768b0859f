"""Replication policies: how a topic replicated from cluster A is named on cluster B (Kafka's
``ReplicationPolicy``), and how a name on B tells where it came from."""

from __future__ import annotations

import abc
from collections.abc import Mapping

from conveyor.errors import ConfigError

SEPARATOR_CONFIG = "replication.policy.separator"
INTERNAL_SEPARATOR_CONFIG = "replication.policy.internal.topic.separator.enabled"
POLICY_CLASS_CONFIG = "replication.policy.class"
DEFAULT_SEPARATOR = "."
HEARTBEATS_TOPIC = "heartbeats"


class ReplicationPolicy(abc.ABC):
    """Names remote topics; ``upstream_topic`` undoes it where the policy can tell."""

    @abc.abstractmethod
    def format_remote_topic(self, source_alias: str, topic: str) -> str:
        """The name ``topic`` of cluster ``source_alias`` gets on the target cluster."""

    @abc.abstractmethod
    def topic_source(self, topic: str) -> str | None:
        """The alias of the cluster a remote topic came from; None for a topic that is not remote."""

    @abc.abstractmethod
    def upstream_topic(self, topic: str) -> str | None:
        """The name a remote topic has on its source cluster; None for a topic that is not remote."""

    #: What MirrorMaker's internal topic names put between their parts.
    internal_separator = "."

    def heartbeats_topic(self) -> str:
        return HEARTBEATS_TOPIC

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        """Where the task replicating to ``cluster_alias`` records upstream/downstream offset pairs."""
        return f"mm2-offset-syncs{self.internal_separator}{cluster_alias}{self._internal_suffix}"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        """Where the checkpoints of groups replicated from ``cluster_alias`` are written."""
        return f"{cluster_alias}{self._checkpoints_suffix}"

    def is_mm2_internal_topic(self, topic: str) -> bool:
        """MirrorMaker's own topics: offset syncs, checkpoints and a dedicated cluster's internal topics."""
        return (topic.startswith("mm2") and topic.endswith(self._internal_suffix)) or topic.endswith(
            self._checkpoints_suffix
        )

    def is_internal_topic(self, topic: str) -> bool:
        """MirrorMaker's own and Kafka's internal topics (``__``, ``.``), never replicated, as Kafka 4's."""
        return topic.startswith(("__", ".")) or self.is_mm2_internal_topic(topic)

    @property
    def _internal_suffix(self) -> str:
        return f"{self.internal_separator}internal"

    @property
    def _checkpoints_suffix(self) -> str:
        return f"{self.internal_separator}checkpoints{self._internal_suffix}"


class DefaultReplicationPolicy(ReplicationPolicy):
    """``<source alias><separator><topic>``: ``us-west.orders``; cycles are detected by the prefix."""

    def __init__(self, separator: str = DEFAULT_SEPARATOR, internal_separator_enabled: bool = True) -> None:
        """With ``internal_separator_enabled`` (KIP-949's default) internal topic names use ``separator``
        too (``mm2-offset-syncs_B_internal``); without, always ``.``."""
        if not separator:
            raise ConfigError(f"{SEPARATOR_CONFIG} must not be empty")
        self.separator = separator
        self.internal_separator = separator if internal_separator_enabled else DEFAULT_SEPARATOR

    def format_remote_topic(self, source_alias: str, topic: str) -> str:
        return f"{source_alias}{self.separator}{topic}"

    def topic_source(self, topic: str) -> str | None:
        alias, found, _ = topic.partition(self.separator)
        return alias if found and alias else None

    def upstream_topic(self, topic: str) -> str | None:
        alias, found, rest = topic.partition(self.separator)
        return rest if found and alias else None


class IdentityReplicationPolicy(DefaultReplicationPolicy):
    """Keeps topic names as they are (for one-way replication, as Kafka's IdentityReplicationPolicy):
    a topic's source cannot be told from its name, except for heartbeats."""

    def __init__(
        self,
        separator: str = DEFAULT_SEPARATOR,
        internal_separator_enabled: bool = True,
        source_alias: str | None = None,
    ) -> None:
        super().__init__(separator, internal_separator_enabled)
        self.source_alias = source_alias

    def format_remote_topic(self, source_alias: str, topic: str) -> str:
        if topic == HEARTBEATS_TOPIC:
            return super().format_remote_topic(source_alias, topic)
        return topic

    def topic_source(self, topic: str) -> str | None:
        if topic.endswith(self.separator + HEARTBEATS_TOPIC):
            return super().topic_source(topic)
        return self.source_alias

    def upstream_topic(self, topic: str) -> str | None:
        if topic.endswith(self.separator + HEARTBEATS_TOPIC):
            return super().upstream_topic(topic)
        return topic if self.source_alias is not None else None


_POLICIES: dict[str, type[DefaultReplicationPolicy]] = {
    "DefaultReplicationPolicy": DefaultReplicationPolicy,
    "IdentityReplicationPolicy": IdentityReplicationPolicy,
}


def replication_policy(config: Mapping[str, str]) -> ReplicationPolicy:
    """The policy a connector config names, by Kafka's class name, simple or fully qualified."""
    name = config.get(POLICY_CLASS_CONFIG, "DefaultReplicationPolicy").strip()
    separator = config.get(SEPARATOR_CONFIG, DEFAULT_SEPARATOR)
    internal_separator = str(config.get(INTERNAL_SEPARATOR_CONFIG, "true")).strip().lower() != "false"
    policy = _POLICIES.get(name.rsplit(".", 1)[-1].rsplit(":", 1)[-1])
    if policy is None:
        raise ConfigError(
            f"Unknown {POLICY_CLASS_CONFIG} {name!r}; "
            "use DefaultReplicationPolicy or IdentityReplicationPolicy"
        )
    return policy(separator, internal_separator)
