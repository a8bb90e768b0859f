"""The keys every connector config accepts, as Kafka Connect defines them, for the runtime to merge.

``connector_config_def()`` holds the common keys (Kafka's ``ConnectorConfig``); the source and sink
definitions add their own (``SourceConnectorConfig``, ``SinkConnectorConfig``). The runtime merges
one of them with the connector's ``config()`` to validate a connector config.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from conveyor.api import Converter, HeaderConverter
from conveyor.api.config import (
    CaseInsensitiveValidString,
    CompositeValidator,
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    LambdaValidator,
    NonEmptyString,
    NonNullValidator,
    Range,
    Validator,
    ValidString,
    Width,
)
from conveyor.settings.connector_config.names import ConnectorName

NAME_CONFIG = "name"
CONNECTOR_CLASS_CONFIG = "connector.class"
TASKS_MAX_CONFIG = "tasks.max"
TASKS_MAX_ENFORCE_CONFIG = "tasks.max.enforce"
KEY_CONVERTER_CLASS_CONFIG = "key.converter"
VALUE_CONVERTER_CLASS_CONFIG = "value.converter"
HEADER_CONVERTER_CLASS_CONFIG = "header.converter"
TRANSFORMS_CONFIG = "transforms"
PLUGIN_VERSION_SUFFIX = ".plugin.version"
CONNECTOR_VERSION_CONFIG = "connector" + PLUGIN_VERSION_SUFFIX
PREDICATES_CONFIG = "predicates"
CONFIG_RELOAD_ACTION_CONFIG = "config.action.reload"
ERRORS_RETRY_TIMEOUT_CONFIG = "errors.retry.timeout"
ERRORS_RETRY_MAX_DELAY_CONFIG = "errors.retry.delay.max.ms"
ERRORS_TOLERANCE_CONFIG = "errors.tolerance"
ERRORS_LOG_ENABLE_CONFIG = "errors.log.enable"
ERRORS_LOG_INCLUDE_MESSAGES_CONFIG = "errors.log.include.messages"

TOPIC_CREATION_GROUPS_CONFIG = "topic.creation.groups"
EXACTLY_ONCE_SUPPORT_CONFIG = "exactly.once.support"
TRANSACTION_BOUNDARY_CONFIG = "transaction.boundary"
TRANSACTION_BOUNDARY_INTERVAL_CONFIG = "transaction.boundary.interval.ms"
OFFSETS_TOPIC_CONFIG = "offsets.storage.topic"

TOPICS_CONFIG = "topics"
TOPICS_REGEX_CONFIG = "topics.regex"
DLQ_TOPIC_NAME_CONFIG = "errors.deadletterqueue.topic.name"
DLQ_TOPIC_REPLICATION_FACTOR_CONFIG = "errors.deadletterqueue.topic.replication.factor"
DLQ_CONTEXT_HEADERS_ENABLE_CONFIG = "errors.deadletterqueue.context.headers.enable"

COMMON_GROUP = "Common"
TRANSFORMS_GROUP = "Transforms"
PREDICATES_GROUP = "Predicates"
ERROR_GROUP = "Error Handling"
TOPIC_CREATION_GROUP = "Topic Creation"
EXACTLY_ONCE_SUPPORT_GROUP = "Exactly Once Support"
OFFSETS_TOPIC_GROUP = "offsets.topic"


def _doc(text: str) -> str:
    """One line of documentation from a wrapped literal."""
    return " ".join(text.split())


_CONVERTER_DOC = _doc("""
        Converter class used to convert between Kafka Connect format and the serialized form that is
        written to Kafka. This controls the format of the {part} in messages written to or read from
        Kafka, and since this is independent of connectors it allows any connector to work with any
        serialization format. Examples of common formats include JSON and Avro.""")


def _concrete_subclass_of(base: type) -> LambdaValidator:
    """A class that extends ``base`` and can be created (Kafka's ``ConcreteSubClassValidator``), so that a
    wrong class is a 400 when the connector is created, not a failure when its tasks start."""
    expected = f"conveyor.api.{base.__qualname__}"

    def ensure_valid(name: str, value: Any) -> None:
        if value is None:
            return
        shown = f"{value.__module__}.{value.__qualname__}" if isinstance(value, type) else value
        if not (isinstance(value, type) and issubclass(value, base)) or value is base:
            raise ConfigError(name, shown, f"Class must extend: {expected}")
        if inspect.isabstract(value):
            raise ConfigError(name, shown, "This class is abstract and cannot be created.")

    return LambdaValidator(ensure_valid, f"A concrete subclass of {expected}")


_PLUGIN_VERSION_DOC = (
    "Version of the {plugin} plugin to use (KIP-891): a version, or a range such as [1.0,2.0); "
    "the highest installed version the range accepts is used, and the highest installed one without a value."
)


def connector_config_def() -> ConfigDef:
    """The keys common to source and sink connectors (Kafka's ``ConnectorConfig.configDef()``)."""
    definition = ConfigDef()
    common = _GroupOrder(COMMON_GROUP)
    errors = _GroupOrder(ERROR_GROUP)
    definition.define(NAME_CONFIG, ConfigType.STRING, validator=ConnectorName(), importance=Importance.HIGH,
        documentation="Globally unique name to use for this connector.", **common.next(), width=Width.MEDIUM,
        display_name="Connector name")  # fmt: skip
    definition.define(CONNECTOR_CLASS_CONFIG, ConfigType.STRING, importance=Importance.HIGH,
        documentation=_doc("""
        Name or alias of the class for this connector. Must be a subclass of conveyor.api.Connector. The
        class's simple name, with or without its "Connector" suffix, is accepted too, and so are the Java
        class names of the connectors Conveyor ships."""), **common.next(), width=Width.LONG,
        display_name="Connector class")  # fmt: skip
    definition.define(TASKS_MAX_CONFIG, ConfigType.INT, default=1, validator=Range.at_least(1),
        importance=Importance.HIGH, documentation="Maximum number of tasks to use for this connector.",
        **common.next(), width=Width.SHORT, display_name="Tasks max")  # fmt: skip
    definition.define(TASKS_MAX_ENFORCE_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
        documentation=_doc("""
        (Deprecated) Whether to enforce that the tasks.max property is respected by the connector. By
        default, connectors that generate too many tasks will fail, and existing sets of tasks that exceed
        the tasks.max property will also be failed. If this property is set to false, then connectors will
        be allowed to generate more than the maximum number of tasks, and existing sets of tasks that
        exceed the tasks.max property will be allowed to run. This property is deprecated and will be
        removed in an upcoming major release."""), **common.next(), width=Width.SHORT,
        display_name="Enforce tasks max")  # fmt: skip
    for name, part, display in (
        (KEY_CONVERTER_CLASS_CONFIG, "keys", "Key converter class"),
        (VALUE_CONVERTER_CLASS_CONFIG, "values", "Value converter class"),
    ):
        definition.define(name, ConfigType.CLASS, default=None, validator=_concrete_subclass_of(Converter),
            importance=Importance.LOW, documentation=_CONVERTER_DOC.format(part=part), **common.next(),
            width=Width.SHORT, display_name=display)  # fmt: skip
    definition.define(HEADER_CONVERTER_CLASS_CONFIG, ConfigType.CLASS, default=None,
        validator=_concrete_subclass_of(HeaderConverter), importance=Importance.LOW,
        documentation=_doc("""
        HeaderConverter class used to convert between Kafka Connect format and the serialized form that is
        written to Kafka. This controls the format of the header values in messages written to or read
        from Kafka, and since this is independent of connectors it allows any connector to work with any
        serialization format. Examples of common formats include JSON and Avro. By default, the
        SimpleHeaderConverter is used to serialize header values to strings and deserialize them by
        inferring the schemas."""), **common.next(), width=Width.SHORT,
        display_name="Header converter class")  # fmt: skip
    for plugin_key, display in (
        ("connector", "Connector version"),
        (KEY_CONVERTER_CLASS_CONFIG, "Key converter version"),
        (VALUE_CONVERTER_CLASS_CONFIG, "Value converter version"),
        (HEADER_CONVERTER_CLASS_CONFIG, "Header converter version"),
    ):
        definition.define(plugin_key + PLUGIN_VERSION_SUFFIX, ConfigType.STRING, default=None,
            importance=Importance.LOW, documentation=_PLUGIN_VERSION_DOC.format(plugin=plugin_key),
            **common.next(), width=Width.SHORT, display_name=display)  # fmt: skip
    definition.define(TRANSFORMS_CONFIG, ConfigType.LIST, default=[],
        validator=_unique_entries("unique transformation aliases"), importance=Importance.LOW,
        documentation="Aliases for the transformations to be applied to records.", group=TRANSFORMS_GROUP,
        order_in_group=common.skip(), width=Width.LONG, display_name="Transforms")  # fmt: skip
    definition.define(PREDICATES_CONFIG, ConfigType.LIST, default=[],
        validator=_unique_entries("unique predicate aliases"), importance=Importance.LOW,
        documentation="Aliases for the predicates used by transformations.", group=PREDICATES_GROUP,
        order_in_group=common.skip(), width=Width.LONG, display_name="Predicates")  # fmt: skip
    definition.define(CONFIG_RELOAD_ACTION_CONFIG, ConfigType.STRING, default="restart",
        validator=ValidString.in_("none", "restart"), importance=Importance.LOW,
        documentation=_doc("""
        The action that Connect should take on the connector when changes in external configuration
        providers result in a change in the connector's configuration properties. A value of 'none'
        indicates that Connect will do nothing. A value of 'restart' indicates that Connect should
        restart/reload the connector with the updated configuration properties.The restart may actually be
        scheduled in the future if the external configuration provider indicates that a configuration
        value will expire in the future."""), **common.next(), width=Width.MEDIUM,
        display_name="Reload Action")  # fmt: skip
    definition.define(ERRORS_RETRY_TIMEOUT_CONFIG, ConfigType.LONG, default=0, importance=Importance.MEDIUM,
        documentation=_doc("""
        The maximum duration in milliseconds that a failed operation will be reattempted. The default is
        0, which means no retries will be attempted. Use -1 for infinite retries."""), **errors.next(),
        width=Width.MEDIUM, display_name="Retry Timeout for Errors")  # fmt: skip
    definition.define(ERRORS_RETRY_MAX_DELAY_CONFIG, ConfigType.LONG, default=60000,
        importance=Importance.MEDIUM,
        documentation=_doc("""
        The maximum duration in milliseconds between consecutive retry attempts. Jitter will be added to
        the delay once this limit is reached to prevent thundering herd issues."""), **errors.next(),
        width=Width.MEDIUM, display_name="Maximum Delay Between Retries for Errors")  # fmt: skip
    definition.define(ERRORS_TOLERANCE_CONFIG, ConfigType.STRING, default="none",
        validator=ValidString.in_("none", "all"), importance=Importance.MEDIUM,
        documentation=_doc("""
        Behavior for tolerating errors during connector operation. 'none' is the default value and signals
        that any error will result in an immediate connector task failure; 'all' changes the behavior to
        skip over problematic records."""), **errors.next(), width=Width.SHORT,
        display_name="Error Tolerance")  # fmt: skip
    definition.define(ERRORS_LOG_ENABLE_CONFIG, ConfigType.BOOLEAN, default=False,
        importance=Importance.MEDIUM,
        documentation=_doc("""
        If true, write each error and the details of the failed operation and problematic record to the
        Connect application log. This is 'false' by default, so that only errors that are not tolerated
        are reported."""), **errors.next(), width=Width.SHORT, display_name="Log Errors")  # fmt: skip
    definition.define(ERRORS_LOG_INCLUDE_MESSAGES_CONFIG, ConfigType.BOOLEAN, default=False,
        importance=Importance.MEDIUM,
        documentation=_doc("""
        Whether to include in the log the Connect record that resulted in a failure. For sink records, the
        topic, partition, offset, and timestamp will be logged. For source records, the key and value (and
        their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source partition,
        and source offset will be logged. This is 'false' by default, which will prevent record keys,
        values, and headers from being written to log files."""), **errors.next(), width=Width.SHORT,
        display_name="Log Error Details")  # fmt: skip
    return definition


def source_connector_config_def() -> ConfigDef:
    """The common keys plus the source-only ones (Kafka's ``SourceConnectorConfig``)."""
    definition = connector_config_def()
    definition.define(TOPIC_CREATION_GROUPS_CONFIG, ConfigType.LIST, default=[],
        validator=_unique_entries("unique topic creation groups"), importance=Importance.LOW,
        documentation="Groups of configurations for topics created by source connectors",
        group=TOPIC_CREATION_GROUP, order_in_group=1, width=Width.LONG,
        display_name="Topic Creation Groups")  # fmt: skip
    definition.define(EXACTLY_ONCE_SUPPORT_CONFIG, ConfigType.STRING, default="requested",
        validator=CaseInsensitiveValidString.in_("requested", "required"), importance=Importance.MEDIUM,
        documentation=_doc("""
        Permitted values are requested, required. If set to "required", forces a preflight check for the
        connector to ensure that it can provide exactly-once semantics with the given configuration. Some
        connectors may be capable of providing exactly-once semantics but not signal to Connect that they
        support this; in that case, documentation for the connector should be consulted carefully before
        creating it, and the value for this property should be set to "requested". Additionally, if the
        value is set to "required" but the worker that performs preflight validation does not have
        exactly-once support enabled for source connectors, requests to create or validate the connector
        will fail."""), group=EXACTLY_ONCE_SUPPORT_GROUP, order_in_group=2, width=Width.SHORT,
        display_name="Exactly once support")  # fmt: skip
    definition.define(TRANSACTION_BOUNDARY_CONFIG, ConfigType.STRING, default="poll",
        validator=CaseInsensitiveValidString.in_("poll", "interval", "connector"),
        importance=Importance.MEDIUM,
        documentation=_doc("""
        Permitted values are: poll, interval, connector. If set to 'poll', a new producer transaction will
        be started and committed for every batch of records that each task from this connector provides to
        Connect. If set to 'connector', relies on connector-defined transaction boundaries; note that not
        all connectors are capable of defining their own transaction boundaries, and in that case,
        attempts to instantiate a connector with this value will fail. Finally, if set to 'interval',
        commits transactions only after a user-defined time interval has passed."""),
        group=EXACTLY_ONCE_SUPPORT_GROUP, order_in_group=3, width=Width.SHORT,
        display_name="Transaction Boundary")  # fmt: skip
    definition.define(TRANSACTION_BOUNDARY_INTERVAL_CONFIG, ConfigType.LONG, default=None,
        validator=_null_or_at_least_zero(), importance=Importance.LOW,
        documentation=_doc("""
        If 'transaction.boundary' is set to 'interval', determines the interval for producer transaction
        commits by connector tasks. If unset, defaults to the value of the worker-level
        'offset.flush.interval.ms' property. It has no effect if a different transaction.boundary is
        specified."""), group=EXACTLY_ONCE_SUPPORT_GROUP, order_in_group=4, width=Width.SHORT,
        display_name="Transaction boundary interval")  # fmt: skip
    definition.define(OFFSETS_TOPIC_CONFIG, ConfigType.STRING, default=None, validator=NonEmptyString(),
        importance=Importance.LOW,
        documentation=_doc("""
        The name of a separate offsets topic to use for this connector. If empty or not specified, the
        worker's global offsets topic name will be used. If specified, the offsets topic will be created
        if it does not already exist. Only applicable in distributed mode; in standalone mode, setting
        this property will have no effect."""), group=OFFSETS_TOPIC_GROUP, order_in_group=1, width=Width.LONG,
        display_name="Offsets topic")  # fmt: skip
    return definition


def sink_connector_config_def() -> ConfigDef:
    """The common keys plus the sink-only ones (Kafka's ``SinkConnectorConfig``)."""
    definition = connector_config_def()
    definition.define(TOPICS_CONFIG, ConfigType.LIST, default="", importance=Importance.HIGH,
        documentation="List of topics to consume, separated by commas", group=COMMON_GROUP, order_in_group=4,
        width=Width.LONG, display_name="Topics")  # fmt: skip
    definition.define(TOPICS_REGEX_CONFIG, ConfigType.STRING, default="", validator=_RegexValidator(),
        importance=Importance.HIGH,
        documentation=_doc("""
        Regular expression giving topics to consume. Under the hood, the regex is compiled with Python's
        re module. Only one of topics or topics.regex should be specified."""), group=COMMON_GROUP,
        order_in_group=4, width=Width.LONG, display_name="Topics regex")  # fmt: skip
    definition.define(DLQ_TOPIC_NAME_CONFIG, ConfigType.STRING, default="", importance=Importance.MEDIUM,
        documentation=_doc("""
        The name of the topic to be used as the dead letter queue (DLQ) for messages that result in an
        error when processed by this sink connector, or its transformations or converters. The topic name
        is blank by default, which means that no messages are to be recorded in the DLQ."""),
        group=ERROR_GROUP, order_in_group=6, width=Width.MEDIUM,
        display_name="Dead Letter Queue Topic Name")  # fmt: skip
    definition.define(DLQ_TOPIC_REPLICATION_FACTOR_CONFIG, ConfigType.SHORT, default=3,
        importance=Importance.MEDIUM,
        documentation=_doc("""
        Replication factor used to create the dead letter queue topic when it doesn't already exist."""),
        group=ERROR_GROUP, order_in_group=7, width=Width.MEDIUM,
        display_name="Dead Letter Queue Topic Replication Factor")  # fmt: skip
    definition.define(DLQ_CONTEXT_HEADERS_ENABLE_CONFIG, ConfigType.BOOLEAN, default=False,
        importance=Importance.MEDIUM,
        documentation=_doc("""
        If true, add headers containing error context to the messages written to the dead letter queue. To
        avoid clashing with headers from the original record, all error context header keys will start
        with __connect.errors."""), group=ERROR_GROUP, order_in_group=8, width=Width.MEDIUM,
        display_name="Enable Error Context Headers")  # fmt: skip
    return definition


class _GroupOrder:
    """Numbers keys within a group the way Kafka's ``++orderInGroup`` does."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.order = 0

    def next(self) -> dict[str, Any]:
        """The ``group`` and ``order_in_group`` keywords of the group's next key."""
        return {"group": self.group, "order_in_group": self.skip()}

    def skip(self) -> int:
        """The next number, for a key defined in another group that shares this counter."""
        self.order += 1
        return self.order


def _unique_entries(description: str) -> Validator:
    def ensure_unique(name: str, value: Any) -> None:
        if len(value) > len(set(value)):
            raise ConfigError(name, ",".join(value), "Duplicate alias provided.")

    return CompositeValidator.of(NonNullValidator(), LambdaValidator(ensure_unique, description))


def _null_or_at_least_zero() -> Validator:
    at_least_zero = Range.at_least(0)

    def ensure_valid(name: str, value: Any) -> None:
        if value is not None:
            at_least_zero.ensure_valid(name, value)

    return LambdaValidator(ensure_valid, str(at_least_zero))


class _RegexValidator(Validator):
    """A string that compiles as a regular expression."""

    def ensure_valid(self, name: str, value: Any) -> None:
        try:
            re.compile(value)
        except (re.error, TypeError) as error:
            raise ConfigError(name, value, f"Invalid regular expression: {error}") from error

    def __str__(self) -> str:
        return "valid regex"
