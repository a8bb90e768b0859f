"""Bases of the plugins that shape records: transformations, predicates and (header) converters.

Where they run: each task builds its own instances on its thread (on a Spark executor) and uses
them there only, one call at a time: ``configure`` once before the first record, ``close`` once
when the task ends (after its ``stop``). The Spark sink builds its own for each partition of each
micro-batch, in Spark's Python workers. ``config()`` is also called, on the worker, on instances
that are never configured (to validate a connector's config): it must not depend on ``configure``.
Calls are per record or per batch on the hot path and should not block.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from conveyor.api.config import ConfigDef

if TYPE_CHECKING:
    from conveyor.data import ConnectRecord, Headers, Schema, SchemaAndValue

R = TypeVar("R", bound="ConnectRecord")


class Transformation(abc.ABC, Generic[R]):
    """A single message transform: changes, replaces or drops one record at a time.

    Example::

        class UpperCaseTopic(Transformation[ConnectRecord]):
            def configure(self, configs): pass
            def apply(self, record): return record.new_record(topic=record.topic.upper())
    """

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Take this transform's settings (the ``transforms.<alias>.`` keys, prefix removed)."""

    @abc.abstractmethod
    def apply(self, record: R) -> R | None:
        """The transformed record, or ``None`` to drop it."""

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        """Apply to each record in order, leaving out dropped ones; override to do it faster."""
        transformed = (self.apply(record) for record in records)
        return [record for record in transformed if record is not None]

    def config(self) -> ConfigDef:
        """The settings this transform accepts."""
        return ConfigDef()

    def close(self) -> None:
        """Release what ``configure`` acquired."""
        return None


class Predicate(abc.ABC, Generic[R]):
    """A condition on a record that decides whether a transformation applies to it."""

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Take this predicate's settings (the ``predicates.<alias>.`` keys, prefix removed)."""

    @abc.abstractmethod
    def test(self, record: R) -> bool:
        """Whether ``record`` matches."""

    def config(self) -> ConfigDef:
        """The settings this predicate accepts."""
        return ConfigDef()

    def close(self) -> None:
        """Release what ``configure`` acquired."""
        return None


class Converter(abc.ABC):
    """Turns Connect data into the bytes stored in the log for keys or values, and back.

    The batch forms exist because the runtime converts whole batches; the defaults loop over the
    single-value forms, and fast converters override them.
    """

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Take the settings; ``is_key`` tells whether this instance converts keys or values."""

    @abc.abstractmethod
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize one value for ``topic``."""

    @abc.abstractmethod
    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize one value read from ``topic``."""

    def from_connect_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any]
    ) -> list[bytes | None]:
        """Serialize many values that share one schema."""
        return [self.from_connect_data(topic, schema, value) for value in values]

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        """Deserialize many values read from ``topic``."""
        return [self.to_connect_data(topic, value) for value in values]

    def to_connect_columns(
        self, topic: str, values: Sequence[bytes | None]
    ) -> tuple[Sequence[Schema | None], Sequence[Any]]:
        """Deserialize many values read from ``topic`` into a column of schemas and one of values, as
        ``to_connect_batch`` does: sink records are built from columns, with no ``SchemaAndValue`` each."""
        converted = self.to_connect_batch(topic, values)
        return [item.schema for item in converted], [item.value for item in converted]

    def config(self) -> ConfigDef:
        """The settings this converter accepts."""
        return ConfigDef()

    def close(self) -> None:
        """Release what ``configure`` acquired."""
        return None


class HeaderConverter(abc.ABC):
    """Turns one header's Connect value into bytes and back."""

    @abc.abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Take the settings."""

    @abc.abstractmethod
    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize the value of header ``header_key``."""

    @abc.abstractmethod
    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize the value of header ``header_key``."""

    def config(self) -> ConfigDef:
        """The settings this header converter accepts."""
        return ConfigDef()

    def close(self) -> None:
        """Release what ``configure`` acquired."""
        return None
