"""Typed errors of the log; every one is a ``LogError`` and its message names what it concerns.

A bad setting (a log URL, a topic, producer or consumer setting) is also a ``ConfigError``, as a bad setting
is wherever Conveyor reads one.
"""

from __future__ import annotations

from conveyor.errors import ConfigError, ConnectError


class LogError(ConnectError):
    """Base of every error raised by a log backend."""


class CoordinatorUnavailableError(LogError):
    """No broker answered as the coordinator of a group or transactional id within the client's retry time
    (the cluster is down or unreachable); a later call may succeed."""


class InvalidLogUrlError(LogError, ConfigError):
    """The URL given to ``open_log`` names no known backend or is malformed."""


class UnknownTopicOrPartitionError(LogError):
    """The topic or partition does not exist."""


class TopicExistsError(LogError):
    """A topic with this name already exists."""


class InvalidTopicError(LogError):
    """The topic name is not a legal Kafka topic name."""


class InvalidConfigError(LogError, ConfigError):
    """A topic, producer or consumer setting is unknown or out of range."""


class InvalidPartitionsError(LogError):
    """The partition count requested is not allowed."""


class InvalidRecordError(LogError):
    """A record the log refuses, such as a record without key in a compacted topic."""


class ProducerFencedError(LogError):
    """A newer producer with the same transactional id has been initialised; this one is a zombie."""


class InvalidTxnStateError(LogError):
    """A transactional call made in a state that does not allow it."""


class TransactionAbortedError(LogError):
    """The open transaction was aborted by the log (it outlived ``transaction.timeout.ms``).

    The producer stays usable: call ``abort_transaction()`` and begin again.
    """


class IllegalStateError(LogError):
    """A client used in a state that does not allow the call (closed, nothing assigned, ...)."""


class InvalidGroupIdError(LogError):
    """The call needs a consumer group id and none (or an empty one) was given."""


class GroupIdNotFoundError(LogError):
    """The consumer group does not exist."""


class NonEmptyGroupError(LogError):
    """The consumer group still has active members."""


class NoOffsetForPartitionError(LogError):
    """No committed offset and ``auto.offset.reset`` is ``none``."""


class OffsetOutOfRangeError(LogError):
    """A fetch position outside the partition's offsets and ``auto.offset.reset`` is ``none``."""


class UnknownMemberIdError(LogError):
    """The group does not know this member (never joined, left, or evicted after its session timeout)."""


class IllegalGenerationError(LogError):
    """The member speaks of a generation that is not the group's current one."""


class RebalanceInProgressError(LogError):
    """The group is rebalancing: the member must rejoin."""


class FlushTimeoutError(LogError):
    """Records sent were not all appended within the time a flush was given; they stay buffered."""


class InconsistentGroupProtocolError(LogError):
    """The member's protocol type or protocols share nothing with the group's."""
