"""Which topics MirrorMaker replicates: ``topics`` regexes minus ``topics.exclude`` (Kafka's
``DefaultTopicFilter``), never internal ones."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

TOPICS_CONFIG = "topics"
TOPICS_EXCLUDE_CONFIG = "topics.exclude"
LEGACY_TOPICS_EXCLUDE_CONFIG = "topics.blacklist"
DEFAULT_TOPICS = ".*"
#: Kafka 4.0's default (KIP-1074): MirrorMaker's own internal topics, not every topic ending in "internal".
DEFAULT_TOPICS_EXCLUDE = r"mm2.*\.internal, .*\.replica, __.*"


def _patterns(value: str) -> list[re.Pattern[str]]:
    return [re.compile(part.strip()) for part in value.split(",") if part.strip()]


@dataclass(frozen=True)
class TopicFilter:
    """Matches whole topic names against comma-separated regexes, as Java's ``Pattern.matches``."""

    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]

    @classmethod
    def from_config(cls, config: Mapping[str, str]) -> TopicFilter:
        exclude = config.get(
            TOPICS_EXCLUDE_CONFIG, config.get(LEGACY_TOPICS_EXCLUDE_CONFIG, DEFAULT_TOPICS_EXCLUDE)
        )
        return cls(tuple(_patterns(config.get(TOPICS_CONFIG, DEFAULT_TOPICS))), tuple(_patterns(exclude)))

    def should_replicate(self, topic: str) -> bool:
        return any(p.fullmatch(topic) for p in self.include) and not any(
            p.fullmatch(topic) for p in self.exclude
        )

    def select(self, topics: Iterable[str]) -> list[str]:
        return sorted(t for t in topics if self.should_replicate(t))
