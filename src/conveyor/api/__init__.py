"""What connector and plugin authors import: connectors, tasks, their contexts, config definitions.

A source connector subclasses :class:`SourceConnector` and :class:`SourceTask`; a sink connector
:class:`SinkConnector` and :class:`SinkTask`. ``docs/connector-api.md`` shows a working example of
each and maps every Java name of Kafka Connect's API onto its name here.
"""

from conveyor.api.config import (
    NO_DEFAULT,
    CaseInsensitiveValidString,
    CompositeValidator,
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    LambdaValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Password,
    Range,
    Recommender,
    Validator,
    ValidList,
    ValidString,
    Width,
)
from conveyor.api.config_provider import ConfigData, ConfigProvider
from conveyor.api.connector import (
    Connector,
    ConnectorContext,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SinkConnector,
    SinkConnectorContext,
    SourceConnector,
    SourceConnectorContext,
)
from conveyor.api.errors import (
    AlreadyExistsError,
    ConfigError,
    ConnectError,
    IllegalWorkerStateError,
    NotFoundError,
    RetriableError,
)
from conveyor.api.plugin import Converter, HeaderConverter, Predicate, Transformation
from conveyor.api.rest_extension import (
    ConnectClusterState,
    ConnectorHealth,
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RequestFilter,
    RestRequest,
    RestResponse,
    TaskHealth,
)
from conveyor.api.sink import ErrantRecordReporter, SinkTask, SinkTaskContext
from conveyor.api.source import (
    OffsetStorageReader,
    SourceTask,
    SourceTaskContext,
    TransactionBoundary,
    TransactionContext,
)
from conveyor.api.task import Task
from conveyor.positions import RecordMetadata, TopicPartition

__all__ = [
    "NO_DEFAULT",
    "AlreadyExistsError",
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "ConfigData",
    "ConfigDef",
    "ConfigError",
    "ConfigKey",
    "ConfigProvider",
    "ConfigType",
    "ConfigValue",
    "ConnectClusterState",
    "ConnectError",
    "ConnectRestExtension",
    "ConnectRestExtensionContext",
    "Connector",
    "ConnectorContext",
    "ConnectorHealth",
    "ConnectorTransactionBoundaries",
    "Converter",
    "ErrantRecordReporter",
    "ExactlyOnceSupport",
    "HeaderConverter",
    "IllegalWorkerStateError",
    "Importance",
    "LambdaValidator",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "NotFoundError",
    "OffsetStorageReader",
    "Password",
    "Predicate",
    "Range",
    "Recommender",
    "RecordMetadata",
    "RequestFilter",
    "RestRequest",
    "RestResponse",
    "RetriableError",
    "SinkConnector",
    "SinkConnectorContext",
    "SinkTask",
    "SinkTaskContext",
    "SourceConnector",
    "SourceConnectorContext",
    "SourceTask",
    "SourceTaskContext",
    "Task",
    "TaskHealth",
    "TopicPartition",
    "TransactionBoundary",
    "TransactionContext",
    "Transformation",
    "ValidList",
    "ValidString",
    "Validator",
    "Width",
]
