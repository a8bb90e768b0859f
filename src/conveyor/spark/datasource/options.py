"""The options of the ``conveyor`` data source, parsed once on the driver into plain data.

Names follow Spark's Kafka source (``subscribe``, ``startingOffsets``, ...) so its users feel at home;
``log.url`` replaces ``kafka.bootstrap.servers``. Option names are case-insensitive, as Spark's are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from conveyor.errors import ConfigError, ConnectError
from conveyor.log import IsolationLevel

LOG_URL: Final = "log.url"
SUBSCRIBE: Final = "subscribe"
SUBSCRIBE_PATTERN: Final = "subscribePattern"
ASSIGN: Final = "assign"
STARTING_OFFSETS: Final = "startingOffsets"
ENDING_OFFSETS: Final = "endingOffsets"
MAX_RECORDS_PER_TRIGGER: Final = "maxRecordsPerTrigger"
MIN_PARTITIONS: Final = "minPartitions"
MAX_OFFSETS_PER_TRIGGER: Final = "maxOffsetsPerTrigger"
ISOLATION_LEVEL: Final = "isolation.level"
INCLUDE_HEADERS: Final = "includeHeaders"
KEY_CONVERTER: Final = "key.converter"
VALUE_CONVERTER: Final = "value.converter"
TOPIC: Final = "topic"
TRANSACTION_TIMEOUT_MS: Final = "transaction.timeout.ms"
POLL_TIMEOUT_MS: Final = "pollTimeoutMs"
NAME: Final = "name"
ERRORS_PREFIX: Final = "errors."

_SUBSCRIPTIONS: Final = (SUBSCRIBE, SUBSCRIBE_PATTERN, ASSIGN)
_CONVERTER_SETTINGS: Final = (
    "schemas.enable",
    "schemas.cache.size",
    "decimal.format",
    "replace.null.with.default",
)


class ConveyorOptionError(ConfigError):
    """An option of the ``conveyor`` data source is missing, unknown in combination, or malformed."""


@dataclass(frozen=True)
class Subscription:
    """Which topic-partitions a read covers: listed topics, a topic name pattern, or explicit partitions."""

    topics: tuple[str, ...] = ()
    pattern: str | None = None
    assigned: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def matches(self, topic: str) -> bool:
        """True if ``topic`` is one this subscription reads (for ``assign``, one it names)."""
        if self.pattern is not None:
            return re.fullmatch(self.pattern, topic) is not None
        if self.topics:
            return topic in self.topics
        return topic in self.assigned


@dataclass(frozen=True)
class ConverterSpec:
    """A converter to decode keys or values with: its plugin name and its settings."""

    class_name: str
    settings: Mapping[str, str]


@dataclass(frozen=True)
class ReadOptions:
    """Everything a read needs, parsed from the options."""

    log_url: str
    subscription: Subscription
    starting_offsets: str
    ending_offsets: str
    isolation_level: IsolationLevel
    max_records_per_trigger: int | None
    min_partitions: int | None
    include_headers: bool
    key_converter: ConverterSpec | None
    value_converter: ConverterSpec | None
    poll_timeout_ms: int
    errors: Mapping[str, str] = field(default_factory=dict)
    """Kafka Connect's ``errors.*`` settings for records the converters cannot decode."""
    name: str = "spark"
    """Who reads, as the dead letter queue's context headers name it (a connector's ``name``)."""


@dataclass(frozen=True)
class WriteOptions:
    """Everything a write needs, parsed from the options."""

    log_url: str
    topic: str | None
    transaction_timeout_ms: int


def _lowered(options: Mapping[str, str]) -> dict[str, str]:
    return {key.lower(): value for key, value in options.items()}


def _require_log_url(options: Mapping[str, str]) -> str:
    url = options.get(LOG_URL.lower())
    if not url:
        raise ConveyorOptionError(f"Option {LOG_URL!r} is required, e.g. embedded:/var/lib/conveyor")
    return url


def _positive_int(options: Mapping[str, str], name: str, default: int | None) -> int | None:
    raw = options.get(name.lower())
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConveyorOptionError(f"Option {name!r} must be an integer, not {raw!r}") from None
    if value <= 0:
        raise ConveyorOptionError(f"Option {name!r} must be positive, not {value}")
    return value


def _bool(options: Mapping[str, str], name: str, default: bool) -> bool:
    raw = options.get(name.lower())
    if raw is None:
        return default
    if raw.strip().lower() not in ("true", "false"):
        raise ConveyorOptionError(f"Option {name!r} must be true or false, not {raw!r}")
    return raw.strip().lower() == "true"


def parse_subscription(options: Mapping[str, str]) -> Subscription:
    """Exactly one of ``subscribe``, ``subscribePattern`` and ``assign``, as Spark's Kafka source asks."""
    given = [name for name in _SUBSCRIPTIONS if options.get(name.lower())]
    if len(given) != 1:
        raise ConveyorOptionError(
            f"Give exactly one of {', '.join(_SUBSCRIPTIONS)} to choose what to read; got {given or 'none'}"
        )
    (name,) = given
    raw = options[name.lower()]
    if name == SUBSCRIBE:
        topics = tuple(topic.strip() for topic in raw.split(",") if topic.strip())
        if not topics:
            raise ConveyorOptionError(f"Option {SUBSCRIBE!r} names no topic: {raw!r}")
        return Subscription(topics=topics)
    if name == SUBSCRIBE_PATTERN:
        try:
            re.compile(raw)
        except re.error as error:
            raise ConveyorOptionError(
                f"Option {SUBSCRIBE_PATTERN!r} is not a regular expression: {error}"
            ) from None
        return Subscription(pattern=raw)
    return Subscription(assigned=_parse_assign(raw))


_ASSIGN_EXAMPLE: Final = '{"topic":[0,1]}'


def _is_partition_list(parts: object) -> bool:
    return isinstance(parts, list) and all(isinstance(p, int) and p >= 0 for p in parts)


def _parse_assign(raw: str) -> dict[str, tuple[int, ...]]:
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ConveyorOptionError(f"Option {ASSIGN!r} is not JSON like {_ASSIGN_EXAMPLE}: {error}") from None
    if not isinstance(parsed, dict) or not all(_is_partition_list(parts) for parts in parsed.values()):
        raise ConveyorOptionError(
            f"Option {ASSIGN!r} must map topics to partition lists, like {_ASSIGN_EXAMPLE}"
        )
    return {str(topic): tuple(sorted(set(parts))) for topic, parts in parsed.items()}


def _converter(options: Mapping[str, str], name: str) -> ConverterSpec | None:
    class_name = options.get(name.lower())
    if not class_name:
        return None
    settings = {key: options[key] for key in _CONVERTER_SETTINGS if key in options}
    prefix = name.lower() + "."
    settings.update({key[len(prefix) :]: value for key, value in options.items() if key.startswith(prefix)})
    return ConverterSpec(class_name, settings)


def _check_errors(errors: Mapping[str, str]) -> None:
    """Fails on ``errors.*`` settings Kafka Connect would reject (imported here: without them, as when
    planning most streams, error handling is not loaded)."""
    from conveyor.pipeline.error_handling import ErrorPolicy

    try:
        ErrorPolicy.from_connector_config(errors)
    except (ConnectError, ValueError) as error:
        raise ConveyorOptionError(f"Bad errors.* option: {error}") from None


def parse_read_options(options: Mapping[str, str], streaming: bool) -> ReadOptions:
    """The read options; ``startingOffsets`` defaults to earliest for batch reads, latest for streams."""
    lowered = _lowered(options)
    isolation = lowered.get(ISOLATION_LEVEL.lower(), "read_committed").strip().lower()
    if isolation not in ("read_committed", "read_uncommitted"):
        raise ConveyorOptionError(
            f"Option {ISOLATION_LEVEL!r} must be read_committed or read_uncommitted, not {isolation!r}"
        )
    ending = lowered.get(ENDING_OFFSETS.lower(), "latest")
    if streaming and ENDING_OFFSETS.lower() in lowered:
        raise ConveyorOptionError(f"Option {ENDING_OFFSETS!r} is for batch reads only, not streaming queries")
    max_records = _positive_int(lowered, MAX_RECORDS_PER_TRIGGER, None)
    if max_records is None:
        max_records = _positive_int(lowered, MAX_OFFSETS_PER_TRIGGER, None)
    poll_timeout_ms = _positive_int(lowered, POLL_TIMEOUT_MS, 120_000)
    assert poll_timeout_ms is not None
    errors = {key: value for key, value in lowered.items() if key.startswith(ERRORS_PREFIX)}
    if errors:
        _check_errors(errors)
    return ReadOptions(
        log_url=_require_log_url(lowered),
        subscription=parse_subscription(lowered),
        starting_offsets=lowered.get(STARTING_OFFSETS.lower(), "latest" if streaming else "earliest"),
        ending_offsets=ending,
        isolation_level="read_committed" if isolation == "read_committed" else "read_uncommitted",
        max_records_per_trigger=max_records,
        min_partitions=_positive_int(lowered, MIN_PARTITIONS, None),
        include_headers=_bool(lowered, INCLUDE_HEADERS, False),
        key_converter=_converter(lowered, KEY_CONVERTER),
        value_converter=_converter(lowered, VALUE_CONVERTER),
        poll_timeout_ms=poll_timeout_ms,
        errors=errors,
        name=lowered.get(NAME, "spark"),
    )


def parse_write_options(options: Mapping[str, str]) -> WriteOptions:
    """The write options: the log, the default topic, and how long one partition's transaction may last."""
    lowered = _lowered(options)
    timeout = _positive_int(lowered, TRANSACTION_TIMEOUT_MS, 60_000)
    assert timeout is not None
    return WriteOptions(
        log_url=_require_log_url(lowered),
        topic=lowered.get(TOPIC.lower()) or None,
        transaction_timeout_ms=timeout,
    )
