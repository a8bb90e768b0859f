"""Helpers for building configured transformations and records in the transforms tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from conveyor.data import Schema, SinkRecord, SourceRecord

PluginT = TypeVar("PluginT")


def configured(plugin_class: type[PluginT], props: Mapping[str, Any] | None = None) -> PluginT:
    """A new instance of ``plugin_class`` configured with ``props``."""
    plugin = plugin_class()
    plugin.configure(dict(props or {}))  # type: ignore[attr-defined]
    return plugin


def value_record(
    value_schema: Schema | None,
    value: Any,
    *,
    topic: str = "test",
    key_schema: Schema | None = None,
    key: Any = None,
    timestamp: int | None = None,
) -> SourceRecord:
    """A source record carrying ``value`` (and optionally a key)."""
    return SourceRecord(
        topic,
        kafka_partition=0,
        key_schema=key_schema,
        key=key,
        value_schema=value_schema,
        value=value,
        timestamp=timestamp,
    )


def key_record(key_schema: Schema | None, key: Any, *, topic: str = "test") -> SourceRecord:
    """A source record carrying ``key`` and no value."""
    return value_record(None, None, topic=topic, key_schema=key_schema, key=key)


def sink_record(
    value_schema: Schema | None, value: Any, *, offset: int = 42, timestamp: int | None = None
) -> SinkRecord:
    """A sink record read from ``test`` partition 0 at ``offset``."""
    return SinkRecord(
        topic="test",
        kafka_partition=0,
        key_schema=None,
        key=None,
        value_schema=value_schema,
        value=value,
        kafka_offset=offset,
        timestamp=timestamp,
    )
