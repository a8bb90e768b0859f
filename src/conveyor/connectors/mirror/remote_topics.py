"""Remote topics: created on the target with their source topic's partition count and configs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from conveyor.connectors.mirror.config import MirrorSettings
from conveyor.log import Admin, TopicPartition


def create_remote_topics(
    source: Admin, target: Admin, topics: Iterable[str], settings: MirrorSettings
) -> None:
    """Create the remote topic of each source topic that has none yet; existing ones are left as they are."""
    wanted = sorted(set(topics))
    if not wanted:
        return
    existing = set(target.list_topics())
    for name, description in source.describe_topics(wanted).items():
        remote = settings.remote_topic(name)
        if remote in existing:
            continue
        config: Mapping[str, str | int] = dict(description.config) if settings.sync_topic_configs else {}
        target.create_topic(remote, description.partitions, config, exist_ok=True)


def replicable_partitions(
    source: Admin, settings: MirrorSettings, selected: Iterable[str]
) -> list[TopicPartition]:
    """Every partition of the selected source topics, in topic then partition order."""
    names = sorted(set(selected))
    if not names:
        return []
    described = source.describe_topics(names)
    return [partition for name in names for partition in described[name].topic_partitions()]


def is_cycle(topic: str, settings: MirrorSettings) -> bool:
    """A topic that came from the target cluster in the first place (A -> B -> A is never replicated)."""
    return settings.policy.topic_source(topic) == settings.target_alias


def is_heartbeats_topic(topic: str, settings: MirrorSettings) -> bool:
    """Heartbeats topics, local or remote, are replicated whatever ``topics`` says, as in Kafka: they
    show downstream that each hop of a flow is alive."""
    heartbeats = settings.policy.heartbeats_topic()
    return topic == heartbeats or topic.endswith(settings.policy.format_remote_topic("", heartbeats))


def format_partitions(partitions: Iterable[TopicPartition]) -> str:
    """``topic-0,topic-1``: Kafka's ``task.assigned.partitions`` form."""
    return ",".join(f"{p.topic}-{p.partition}" for p in partitions)


def parse_partitions(text: str) -> list[TopicPartition]:
    partitions = []
    for item in text.split(","):
        if item.strip():
            topic, _, number = item.strip().rpartition("-")
            partitions.append(TopicPartition(topic, int(number)))
    return partitions
