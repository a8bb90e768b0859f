"""Connector config keys (Kafka's ConnectorConfig, SourceConnectorConfig, SinkConnectorConfig) and the
typed settings the runtime reads through them."""

from conveyor.settings.connector_config.definitions import (
    CONNECTOR_CLASS_CONFIG,
    NAME_CONFIG,
    TASKS_MAX_CONFIG,
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    connector_config_def,
    sink_connector_config_def,
    source_connector_config_def,
)
from conveyor.settings.connector_config.settings import (
    ErrorPolicy,
    SinkTopics,
    SourceTransactionSettings,
    TaskCount,
    ToleranceType,
)

__all__ = [
    "CONNECTOR_CLASS_CONFIG",
    "NAME_CONFIG",
    "TASKS_MAX_CONFIG",
    "TOPICS_CONFIG",
    "TOPICS_REGEX_CONFIG",
    "ErrorPolicy",
    "SinkTopics",
    "SourceTransactionSettings",
    "TaskCount",
    "ToleranceType",
    "connector_config_def",
    "sink_connector_config_def",
    "source_connector_config_def",
]
