"""A topic to create, checked against Kafka's rules once, before any log backend sees it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.log.errors import InvalidConfigError, InvalidPartitionsError, InvalidTopicError

_LEGAL_TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]+")
_MAX_TOPIC_NAME_LENGTH = 249
_CLEANUP_POLICIES = ("delete", "compact")


@dataclass(frozen=True)
class NewTopic:
    """A topic to create, as Kafka's ``NewTopic``: its name, partition count, settings, and the copies a
    cluster keeps of it (-1: the cluster's default)."""

    name: str
    partitions: int
    config: Mapping[str, str | int]
    replication_factor: int

    @classmethod
    def checked(
        cls, name: str, partitions: int, config: Mapping[str, str | int] | None, replication_factor: int
    ) -> NewTopic:
        """The topic, once Kafka's rules allow it: a name of 1-249 characters of ``[a-zA-Z0-9._-]`` other
        than ``.`` and ``..``, at least one partition, and a cleanup.policy of delete, compact or both."""
        if (
            not name
            or name in (".", "..")
            or len(name) > _MAX_TOPIC_NAME_LENGTH
            or not _LEGAL_TOPIC_NAME.fullmatch(name)
        ):
            raise InvalidTopicError(f"Topic name {name!r} is illegal: use 1-249 characters of [a-zA-Z0-9._-]")
        if partitions < 1:
            raise InvalidPartitionsError(
                f"Topic {name}: partition count must be at least 1, got {partitions}"
            )
        settings = dict(config or {})
        policy = str(settings.get("cleanup.policy", "delete"))
        if any(each not in _CLEANUP_POLICIES for each in policy.split(",")):
            raise InvalidConfigError(
                f"Topic {name}: cleanup.policy={policy!r} must be delete, compact or both"
            )
        return cls(name, partitions, settings, replication_factor)
