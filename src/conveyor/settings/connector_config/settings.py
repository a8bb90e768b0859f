"""Typed settings the runtime reads from a connector config, parsed by the keys' own definitions.

Each reader takes only the keys it needs from the source or sink definition, so a type or a default
is written once (in ``definitions``), never again at the place that reads it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.api import ConfigDef, ConfigError, TransactionBoundary
from conveyor.settings.connector_config.definitions import (
    DLQ_CONTEXT_HEADERS_ENABLE_CONFIG,
    DLQ_TOPIC_NAME_CONFIG,
    ERRORS_LOG_ENABLE_CONFIG,
    ERRORS_LOG_INCLUDE_MESSAGES_CONFIG,
    ERRORS_RETRY_MAX_DELAY_CONFIG,
    ERRORS_RETRY_TIMEOUT_CONFIG,
    ERRORS_TOLERANCE_CONFIG,
    EXACTLY_ONCE_SUPPORT_CONFIG,
    OFFSETS_TOPIC_CONFIG,
    TASKS_MAX_CONFIG,
    TASKS_MAX_ENFORCE_CONFIG,
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    TRANSACTION_BOUNDARY_CONFIG,
    TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
    sink_connector_config_def,
    source_connector_config_def,
)

_SOURCE = source_connector_config_def()
_SINK = sink_connector_config_def()


def _subset(definition: ConfigDef, names: Iterable[str]) -> ConfigDef:
    keys = definition.config_keys()
    subset = ConfigDef()
    for name in names:
        subset.define_key(keys[name])
    return subset


_TASKS = _subset(_SOURCE, (TASKS_MAX_CONFIG, TASKS_MAX_ENFORCE_CONFIG))
# The dead letter queue keys are the sink's in Kafka; Conveyor's sources have a DLQ too.
_ERRORS = _subset(
    _SINK,
    (
        ERRORS_TOLERANCE_CONFIG,
        ERRORS_RETRY_TIMEOUT_CONFIG,
        ERRORS_RETRY_MAX_DELAY_CONFIG,
        ERRORS_LOG_ENABLE_CONFIG,
        ERRORS_LOG_INCLUDE_MESSAGES_CONFIG,
        DLQ_TOPIC_NAME_CONFIG,
        DLQ_CONTEXT_HEADERS_ENABLE_CONFIG,
    ),
)
_SOURCE_TRANSACTIONS = _subset(
    _SOURCE,
    (
        EXACTLY_ONCE_SUPPORT_CONFIG,
        TRANSACTION_BOUNDARY_CONFIG,
        TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
        OFFSETS_TOPIC_CONFIG,
    ),
)
_SINK_TOPICS = _subset(_SINK, (TOPICS_CONFIG, TOPICS_REGEX_CONFIG))


class ToleranceType(enum.StrEnum):
    """``errors.tolerance``: fail on the first error, or skip every record that fails."""

    NONE = "none"
    ALL = "all"


@dataclass(frozen=True)
class TaskCount:
    """``tasks.max`` and whether a connector may plan more tasks than that."""

    tasks_max: int
    enforce: bool

    @classmethod
    def parse(cls, config: Mapping[str, Any]) -> TaskCount:
        values = _TASKS.parse(config)
        return cls(values[TASKS_MAX_CONFIG], values[TASKS_MAX_ENFORCE_CONFIG])


_ERROR_DEFAULTS = _ERRORS.parse({})


@dataclass(frozen=True)
class ErrorPolicy:
    """The ``errors.*`` keys (KIP-298), the dead letter queue's included; a field the constructor is not
    given takes its key's default."""

    tolerance_all: bool = _ERROR_DEFAULTS[ERRORS_TOLERANCE_CONFIG].lower() == ToleranceType.ALL
    retry_timeout_ms: int = _ERROR_DEFAULTS[ERRORS_RETRY_TIMEOUT_CONFIG]
    retry_delay_max_ms: int = _ERROR_DEFAULTS[ERRORS_RETRY_MAX_DELAY_CONFIG]
    log_enable: bool = _ERROR_DEFAULTS[ERRORS_LOG_ENABLE_CONFIG]
    log_include_messages: bool = _ERROR_DEFAULTS[ERRORS_LOG_INCLUDE_MESSAGES_CONFIG]
    dlq_topic: str = _ERROR_DEFAULTS[DLQ_TOPIC_NAME_CONFIG]
    dlq_context_headers: bool = _ERROR_DEFAULTS[DLQ_CONTEXT_HEADERS_ENABLE_CONFIG]

    @classmethod
    def from_connector_config(cls, config: Mapping[str, Any]) -> ErrorPolicy:
        """The policy of a connector config; raises `ConfigError` naming a bad `errors.*` key."""
        values = _ERRORS.parse(config)
        return cls(
            tolerance_all=ToleranceType(values[ERRORS_TOLERANCE_CONFIG].lower()) is ToleranceType.ALL,
            retry_timeout_ms=values[ERRORS_RETRY_TIMEOUT_CONFIG],
            retry_delay_max_ms=values[ERRORS_RETRY_MAX_DELAY_CONFIG],
            log_enable=values[ERRORS_LOG_ENABLE_CONFIG],
            log_include_messages=values[ERRORS_LOG_INCLUDE_MESSAGES_CONFIG],
            dlq_topic=values[DLQ_TOPIC_NAME_CONFIG],
            dlq_context_headers=values[DLQ_CONTEXT_HEADERS_ENABLE_CONFIG],
        )


@dataclass(frozen=True)
class SourceTransactionSettings:
    """How a source task's offsets are committed: whether exactly once is required, its transaction
    boundary and its offsets topic."""

    exactly_once_required: bool
    boundary: TransactionBoundary
    boundary_interval_ms: int | None
    offsets_topic: str | None

    @classmethod
    def parse(cls, config: Mapping[str, Any]) -> SourceTransactionSettings:
        values = _SOURCE_TRANSACTIONS.parse(config)
        return cls(
            exactly_once_required=values[EXACTLY_ONCE_SUPPORT_CONFIG].lower() == "required",
            boundary=TransactionBoundary.from_property(values[TRANSACTION_BOUNDARY_CONFIG]),
            boundary_interval_ms=values[TRANSACTION_BOUNDARY_INTERVAL_CONFIG],
            offsets_topic=values[OFFSETS_TOPIC_CONFIG] or None,
        )


@dataclass(frozen=True)
class SinkTopics:
    """What a sink connector consumes: a list of ``topics``, or the ``topics.regex`` pattern."""

    topics: tuple[str, ...]
    regex: str | None

    @classmethod
    def parse(cls, config: Mapping[str, Any]) -> SinkTopics:
        values = _SINK_TOPICS.parse(config)
        topics = tuple(topic for topic in values[TOPICS_CONFIG] if topic)
        return cls(topics, values[TOPICS_REGEX_CONFIG] or None)

    @property
    def problem(self) -> str | None:
        """Kafka's message when both or neither of ``topics`` and ``topics.regex`` are set, else None."""
        if self.topics and self.regex:
            return "topics and topics.regex are mutually exclusive options, but both are set."
        if not self.topics and not self.regex:
            return "Must configure one of topics or topics.regex"
        return None

    def require_exactly_one(self) -> SinkTopics:
        """These topics, or a `ConfigError` when both or neither of the keys are set."""
        if self.problem is not None:
            raise ConfigError(TOPICS_CONFIG, ",".join(self.topics), self.problem)
        return self

    def includes(self, topic: str) -> bool:
        """Whether `topic` is listed or matched whole by the regex (checked to compile when parsed)."""
        if topic in self.topics:
            return True
        return self.regex is not None and re.fullmatch(self.regex, topic) is not None
