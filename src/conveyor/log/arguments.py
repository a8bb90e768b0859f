"""Checks of a caller's arguments that every log backend makes the same way, before any work is done."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conveyor.log.api import Headers, IsolationLevel
from conveyor.log.client_config import choice_setting, int_setting
from conveyor.log.errors import (
    IllegalStateError,
    InvalidConfigError,
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


def require_transactional(transactional_id: str | None) -> str:
    """The producer's transactional id; a transactional call on a producer without one is refused."""
    if transactional_id is None:
        raise IllegalStateError("Transactional method called on a producer without transactional id")
    return transactional_id
