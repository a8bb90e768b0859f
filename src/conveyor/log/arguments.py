"""Checks of a caller's arguments that every log backend makes the same way, before any work is done."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conveyor.log.api import Headers, IsolationLevel
from conveyor.log.client_config import choice_setting, int_setting
from conveyor.log.errors import (
    IllegalStateError,
    InvalidConfigError,
    InvalidPartitionsError,
    InvalidTopicError,
)


def check_isolation_level(isolation_level: IsolationLevel) -> None:
    """Refuse an isolation level that is not one of Kafka's two."""
    if isolation_level not in ("read_committed", "read_uncommitted"):
        raise InvalidConfigError(
            f"isolation_level={isolation_level!r} is not read_committed or read_uncommitted"
        )


def check_batch_columns(
    topic: str,
    values: Sequence[bytes | None],
    keys: Sequence[bytes | None] | None,
    headers: Sequence[Headers | None] | None,
    timestamps: Sequence[int] | None,
) -> int:
    """The number of records of a ``send_batch``; a ``ValueError`` if a column has another length."""
    count = len(values)
    for name, column in (("keys", keys), ("headers", headers), ("timestamps", timestamps)):
        if column is not None and len(column) != count:
            raise ValueError(f"send_batch to {topic}: {len(column)} {name} for {count} values")
    return count


@dataclass(frozen=True, slots=True)
class ConsumerSettings:
    """The consumer settings of the log's interface that a backend acts on itself."""

    auto_offset_reset: str
    max_poll_records: int

    @classmethod
    def read(cls, config: Mapping[str, object]) -> ConsumerSettings:
        """Read them from dotted settings, refusing a value Kafka's consumer would refuse."""
        return cls(
            auto_offset_reset=choice_setting(
                config, "auto.offset.reset", "latest", ("earliest", "latest", "none")
            ),
            max_poll_records=int_setting(config, "max.poll.records", 500, minimum=1),
        )


_LEGAL_TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]+")
_MAX_TOPIC_NAME_LENGTH = 249
_CLEANUP_POLICIES = ("delete", "compact")


def check_new_topic(name: str, partitions: int, config: Mapping[str, str | int] | None) -> None:
    """Kafka's rules for a topic to create: a name of 1-249 characters of ``[a-zA-Z0-9._-]`` other than
    ``.`` and ``..``, at least one partition, and a cleanup.policy of delete, compact or both."""
    if (
        not name
        or name in (".", "..")
        or len(name) > _MAX_TOPIC_NAME_LENGTH
        or not _LEGAL_TOPIC_NAME.fullmatch(name)
    ):
        raise InvalidTopicError(f"Topic name {name!r} is illegal: use 1-249 characters of [a-zA-Z0-9._-]")
    if partitions < 1:
        raise InvalidPartitionsError(f"Topic {name}: partition count must be at least 1, got {partitions}")
    policy = str((config or {}).get("cleanup.policy", "delete"))
    if any(each not in _CLEANUP_POLICIES for each in policy.split(",")):
        raise InvalidConfigError(f"Topic {name}: cleanup.policy={policy!r} must be delete, compact or both")


def require_transactional(transactional_id: str | None) -> str:
    """The producer's transactional id; a transactional call on a producer without one is refused."""
    if transactional_id is None:
        raise IllegalStateError("Transactional method called on a producer without transactional id")
    return transactional_id
