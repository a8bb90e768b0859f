"""The config, offset and status stores, kept in internal topics of the log as Kafka Connect keeps them."""

from conveyor.storage.cluster_config_state import ClusterConfigState
from conveyor.storage.config_listener import ConfigUpdateListener
from conveyor.storage.config_records import PAUSED, STARTED, STOPPED, RestartRequest, SessionKey, TargetState
from conveyor.storage.config_store import DEFAULT_CONFIG_TOPIC, ConfigStore
from conveyor.storage.connector_offset_store import ConnectorOffsetStore
from conveyor.storage.errors import PrivilegedWriteError, StorageError, StorageTimeoutError
from conveyor.storage.offset_reader import StoreOffsetStorageReader
from conveyor.storage.offset_records import PartitionKey, SourceOffset, partition_key
from conveyor.storage.offset_store import DEFAULT_OFFSETS_PARTITIONS, DEFAULT_OFFSETS_TOPIC, OffsetStore
from conveyor.storage.status_records import Status
from conveyor.storage.status_store import DEFAULT_STATUS_PARTITIONS, DEFAULT_STATUS_TOPIC, StatusStore

__all__ = [
    "DEFAULT_CONFIG_TOPIC",
    "DEFAULT_OFFSETS_PARTITIONS",
    "DEFAULT_OFFSETS_TOPIC",
    "DEFAULT_STATUS_PARTITIONS",
    "DEFAULT_STATUS_TOPIC",
    "PAUSED",
    "STARTED",
    "STOPPED",
    "ClusterConfigState",
    "ConfigStore",
    "ConfigUpdateListener",
    "ConnectorOffsetStore",
    "OffsetStore",
    "PartitionKey",
    "PrivilegedWriteError",
    "RestartRequest",
    "SessionKey",
    "SourceOffset",
    "Status",
    "StatusStore",
    "StorageError",
    "StorageTimeoutError",
    "StoreOffsetStorageReader",
    "TargetState",
    "partition_key",
]
