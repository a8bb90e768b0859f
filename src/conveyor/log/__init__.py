"""The log: topics, partitions, transactions, consumer groups and group membership, with Kafka's semantics.

Open one with ``open_log("embedded:<directory>")``; everything above this package speaks to the
interfaces in ``conveyor.log.api`` and never learns which backend runs.

Where the embedded backend differs from Kafka, on purpose:
- Offsets are dense: commit and abort take no offset (Kafka writes a control record for each).
- ``send`` returns nothing; ``on_delivery`` reports the offset. Plain sends are appended ``linger.ms``
  (5) after they are made, or at ``flush``; a transaction's records at ``flush``, when ``batch.size``
  (1 MiB) fills, or at commit. ``send_batch`` is the fast path for many records.
- ``send_offsets_to_transaction`` takes a group id (Kafka takes the group's metadata).
- A transaction that outlives ``transaction.timeout.ms`` is aborted by the next reader or writer that
  looks; its producer then gets ``TransactionAbortedError`` and may abort and go on.
- Compaction and retention run when ``Admin.run_cleaner`` is called, not in the background.
- Consumer groups support Kafka's ``RangeAssignor``, ``RoundRobinAssignor`` and
  ``CooperativeStickyAssignor`` (``partition.assignment.strategy``, default range then cooperative
  sticky, so eager range as in Kafka; the sticky one alone rebalances cooperatively); no static
  membership, no automatic offset commits. ``GroupMember`` runs the membership loop for other
  protocol types (the herder's ``connect`` group).
"""

from conveyor.log.api import (
    Admin,
    CleanerResult,
    Consumer,
    ConsumerRecord,
    GroupCoordinator,
    Header,
    Headers,
    IsolationLevel,
    JoinResult,
    Log,
    OffsetAndMetadata,
    OffsetsToCommit,
    PartitionOffsets,
    Producer,
    RebalanceListener,
    RecordBatch,
    TopicDescription,
)
from conveyor.log.errors import (
    FlushTimeoutError,
    GroupIdNotFoundError,
    IllegalGenerationError,
    IllegalStateError,
    InconsistentGroupProtocolError,
    InvalidConfigError,
    InvalidGroupIdError,
    InvalidLogUrlError,
    InvalidPartitionsError,
    InvalidRecordError,
    InvalidTopicError,
    InvalidTxnStateError,
    LogError,
    NonEmptyGroupError,
    NoOffsetForPartitionError,
    OffsetOutOfRangeError,
    ProducerFencedError,
    RebalanceInProgressError,
    TopicExistsError,
    TransactionAbortedError,
    UnknownMemberIdError,
    UnknownTopicOrPartitionError,
)
from conveyor.log.group_member import Assignment, Assignor, GroupMember
from conveyor.log.murmur2 import murmur2, partition_for_key
from conveyor.log.url import open_log, url_on_brokers, url_with_client_settings, worker_log_url
from conveyor.positions import RecordMetadata, TopicPartition

__all__ = [
    "Admin",
    "Assignment",
    "Assignor",
    "CleanerResult",
    "Consumer",
    "ConsumerRecord",
    "FlushTimeoutError",
    "GroupCoordinator",
    "GroupIdNotFoundError",
    "GroupMember",
    "Header",
    "Headers",
    "IllegalGenerationError",
    "IllegalStateError",
    "InconsistentGroupProtocolError",
    "InvalidConfigError",
    "InvalidGroupIdError",
    "InvalidLogUrlError",
    "InvalidPartitionsError",
    "InvalidRecordError",
    "InvalidTopicError",
    "InvalidTxnStateError",
    "IsolationLevel",
    "JoinResult",
    "Log",
    "LogError",
    "NoOffsetForPartitionError",
    "NonEmptyGroupError",
    "OffsetAndMetadata",
    "OffsetOutOfRangeError",
    "OffsetsToCommit",
    "PartitionOffsets",
    "Producer",
    "ProducerFencedError",
    "RebalanceInProgressError",
    "RebalanceListener",
    "RecordBatch",
    "RecordMetadata",
    "TopicDescription",
    "TopicExistsError",
    "TopicPartition",
    "TransactionAbortedError",
    "UnknownMemberIdError",
    "UnknownTopicOrPartitionError",
    "murmur2",
    "open_log",
    "partition_for_key",
    "url_on_brokers",
    "url_with_client_settings",
    "worker_log_url",
]
