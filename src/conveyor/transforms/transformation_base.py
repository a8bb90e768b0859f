"""The set-up the built-in transformations share: parsed settings, the schema cache and null defaults.

A transformation keeps only its own logic: its ``CONFIG_DEF``, what it takes from the parsed settings
(:meth:`~conveyor.transforms.transform_config.ConfiguredPlugin.configure_settings`) and how it rewrites
a record. The ``$Key`` and ``$Value`` variants add :class:`~conveyor.transforms.record_side.KeySide` or
:class:`~conveyor.transforms.record_side.ValueSide` in front of a :class:`SidedTransformation`.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from conveyor.api import Transformation
from conveyor.data import ConnectRecord, Field, Schema, Struct
from conveyor.transforms.record_side import RecordSide
from conveyor.transforms.schema_cache import SchemaUpdateCache
from conveyor.transforms.struct_values import field_value
from conveyor.transforms.transform_config import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    ConfiguredPlugin,
    parse_settings,
)


class ConfiguredTransformation(ConfiguredPlugin, Transformation[ConnectRecord]):
    """A transformation configured by ``CONFIG_DEF`` that remembers the schemas it rewrote.

    ``replace.null.with.default`` is taken from the settings when ``CONFIG_DEF`` defines it (true when not).
    """

    def __init__(self) -> None:
        self._schema_cache = SchemaUpdateCache()
        self._replace_null_with_default = True

    def configure(self, configs: Mapping[str, Any]) -> None:
        settings = parse_settings(self.owner, self.CONFIG_DEF, configs)
        self._replace_null_with_default = bool(settings.get(REPLACE_NULL_WITH_DEFAULT_CONFIG, True))
        self._schema_cache.clear()
        self.configure_settings(settings)

    def close(self) -> None:
        self._schema_cache.clear()

    def cached_schema(self, schema: Schema, build: Callable[[Schema], Schema]) -> Schema:
        """The rewrite of ``schema`` by ``build``, built once per input schema."""
        return self._schema_cache.get_or_build(schema, build)

    def field_value(self, struct: Struct, field: str | Field) -> Any:
        """The field's value; a null reads as the field's default when ``replace.null.with.default`` is on."""
        return field_value(struct, field, self._replace_null_with_default)


class SidedTransformation(RecordSide, ConfiguredTransformation):
    """A transformation of the record key or value, which its ``$Key``/``$Value`` variant chooses."""


class StructOrMapTransformation(SidedTransformation):
    """Kafka's common shape: a struct when the key or value has a schema, a map when it has none.

    A null key or value passes through unchanged unless ``NULL_PASSES_THROUGH`` is false, in which case
    it reaches the two methods (and their shape checks) like any other.
    """

    NULL_PASSES_THROUGH: ClassVar[bool] = True

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        value = self.operating_value(record)
        if value is None and self.NULL_PASSES_THROUGH:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            return self.apply_schemaless(record, value)
        return self.apply_with_schema(record, schema, value)

    @abc.abstractmethod
    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        """The record rewritten when its key or value has no schema (normally a map)."""

    @abc.abstractmethod
    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        """The record rewritten when its key or value has ``schema`` (normally a struct)."""
