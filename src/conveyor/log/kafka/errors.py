"""Translating confluent-kafka's errors into the log's typed errors."""

from __future__ import annotations

from confluent_kafka import KafkaError, KafkaException

from conveyor.log import errors

_BY_CODE: dict[int, type[errors.LogError]] = {
    KafkaError.UNKNOWN_TOPIC_OR_PART: errors.UnknownTopicOrPartitionError,
    KafkaError._UNKNOWN_TOPIC: errors.UnknownTopicOrPartitionError,
    KafkaError._UNKNOWN_PARTITION: errors.UnknownTopicOrPartitionError,
    KafkaError.TOPIC_ALREADY_EXISTS: errors.TopicExistsError,
    KafkaError.TOPIC_EXCEPTION: errors.InvalidTopicError,
    KafkaError.INVALID_PARTITIONS: errors.InvalidPartitionsError,
    KafkaError.INVALID_REPLICATION_FACTOR: errors.InvalidConfigError,
    KafkaError.INVALID_CONFIG: errors.InvalidConfigError,
    KafkaError._INVALID_ARG: errors.InvalidConfigError,
    KafkaError.PRODUCER_FENCED: errors.ProducerFencedError,
    KafkaError.INVALID_PRODUCER_EPOCH: errors.ProducerFencedError,
    KafkaError._FENCED: errors.ProducerFencedError,
    KafkaError.INVALID_TXN_STATE: errors.InvalidTxnStateError,
    KafkaError._STATE: errors.InvalidTxnStateError,
    KafkaError._PREV_IN_PROGRESS: errors.InvalidTxnStateError,
    KafkaError.GROUP_ID_NOT_FOUND: errors.GroupIdNotFoundError,
    KafkaError.NON_EMPTY_GROUP: errors.NonEmptyGroupError,
    KafkaError.INVALID_GROUP_ID: errors.InvalidGroupIdError,
    KafkaError.UNKNOWN_MEMBER_ID: errors.UnknownMemberIdError,
    KafkaError.ILLEGAL_GENERATION: errors.IllegalGenerationError,
    KafkaError.REBALANCE_IN_PROGRESS: errors.RebalanceInProgressError,
    KafkaError.INCONSISTENT_GROUP_PROTOCOL: errors.InconsistentGroupProtocolError,
    KafkaError.OFFSET_OUT_OF_RANGE: errors.OffsetOutOfRangeError,
    KafkaError.INVALID_RECORD: errors.InvalidRecordError,
    KafkaError.INVALID_MSG: errors.InvalidRecordError,
}


def log_error(error: KafkaError | KafkaException | BaseException, about: str) -> errors.LogError:
    """The log error for a Kafka client error; the message names ``about`` (a topic, group, id, ...)."""
    if isinstance(error, KafkaException) and error.args and isinstance(error.args[0], KafkaError):
        error = error.args[0]
    if isinstance(error, KafkaError):
        if error.code() in _BY_CODE:
            kind = _BY_CODE[error.code()]
        elif error.txn_requires_abort():
            kind = errors.TransactionAbortedError
        elif error.fatal():
            kind = errors.ProducerFencedError
        else:
            kind = errors.LogError
        return kind(f"{about}: {error.str()} ({error.name()})")
    return errors.LogError(f"{about}: {error}")


def leader_moving(error: KafkaException) -> bool:
    """Whether the error only says that a partition's leader is not settled yet (just created, or moving,
    or a broker that has not yet learnt the leader's new epoch): worth retrying."""
    cause = error.args[0] if error.args else None
    if not isinstance(cause, KafkaError):
        return False
    return cause.retriable() or cause.code() in (
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.UNKNOWN_LEADER_EPOCH,
        KafkaError.FENCED_LEADER_EPOCH,
    )


#: The group's coordinator is loading its state, not elected yet, or moved: ask again.
_COORDINATOR_MOVING = frozenset(
    {
        KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
        KafkaError.COORDINATOR_NOT_AVAILABLE,
        KafkaError.NOT_COORDINATOR,
    }
)


def coordinator_moving(error: KafkaException) -> bool:
    """Whether the error only says that a group's coordinator is not ready yet (a broker loading the
    offsets topic after it started, or a coordinator moving): worth retrying."""
    cause = error.args[0] if error.args else None
    return isinstance(cause, KafkaError) and cause.code() in _COORDINATOR_MOVING
