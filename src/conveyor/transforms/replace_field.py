"""ReplaceField: keep, drop or rename the fields of a struct or map."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance, LambdaValidator
from conveyor.data import ConnectRecord, Schema, Struct
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.schema_util import struct_schema_like
from conveyor.transforms.transform_config import define_replace_null_with_default, split_like_java
from conveyor.transforms.transformation_base import StructOrMapTransformation

EXCLUDE_CONFIG = "exclude"
INCLUDE_CONFIG = "include"
RENAMES_CONFIG = "renames"
BLACKLIST_CONFIG = "blacklist"
WHITELIST_CONFIG = "whitelist"
_DEPRECATED_ALIASES = {INCLUDE_CONFIG: WHITELIST_CONFIG, EXCLUDE_CONFIG: BLACKLIST_CONFIG}
_PURPOSE = "field replacement"
_MAX_PLANNED_NAMES = 4096


def parse_rename_mappings(mappings: list[str]) -> dict[str, str]:
    """``["old:new", ...]`` as a dict; a mapping that is not one colon-separated pair is an error."""
    renames: dict[str, str] = {}
    for mapping in mappings:
        parts = split_like_java(mapping, ":")
        if len(parts) != 2:
            raise ConfigError(RENAMES_CONFIG, mappings, f"Invalid rename mapping: {mapping}")
        renames[parts[0]] = parts[1]
    return renames


def _validate_renames(_name: str, value: Any) -> None:
    if value is not None:
        parse_rename_mappings(value)


def _define_field_list(config_def: ConfigDef, name: str, documentation: str) -> ConfigDef:
    """Add list setting ``name`` (default empty) and its deprecated alias (default none)."""
    deprecated = _DEPRECATED_ALIASES[name]
    return config_def.define(
        name, ConfigType.LIST, default=[], importance=Importance.MEDIUM, documentation=documentation
    ).define(
        deprecated,
        ConfigType.LIST,
        default=None,
        importance=Importance.LOW,
        documentation=f"Deprecated. Use {name} instead.",
    )


def _config_def() -> ConfigDef:
    config_def = ConfigDef()
    _define_field_list(
        config_def, EXCLUDE_CONFIG, "Fields to exclude. This takes precedence over the fields to include."
    )
    _define_field_list(
        config_def, INCLUDE_CONFIG, "Fields to include. If specified, only these fields will be used."
    )
    config_def.define(
        RENAMES_CONFIG,
        ConfigType.LIST,
        default=[],
        validator=LambdaValidator(
            _validate_renames, "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
        ),
        importance=Importance.MEDIUM,
        documentation="Field rename mappings.",
    )
    return define_replace_null_with_default(config_def)


def _translate_deprecated(configs: Mapping[str, Any]) -> dict[str, Any]:
    translated = dict(configs)
    for current, deprecated in _DEPRECATED_ALIASES.items():
        if translated.get(current) is None and translated.get(deprecated) is not None:
            translated[current] = translated[deprecated]
    return translated


class ReplaceField(StructOrMapTransformation):
    """Filter fields with ``include``/``exclude`` (``exclude`` wins) and rename them with ``renames``."""

    CONFIG_DEF = _config_def()

    def __init__(self) -> None:
        super().__init__()
        self._target_names: dict[str, str | None] = {}

    def configure(self, configs: Mapping[str, Any]) -> None:
        super().configure(_translate_deprecated(configs))

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._exclude = frozenset(settings[EXCLUDE_CONFIG])
        self._include = frozenset(settings[INCLUDE_CONFIG])
        self._renames = parse_rename_mappings(settings[RENAMES_CONFIG])
        self._reverse_renames = {new: old for old, new in self._renames.items()}
        self._target_names.clear()

    def close(self) -> None:
        super().close()
        self._target_names.clear()

    def keeps(self, field_name: str) -> bool:
        """Whether a field survives the include and exclude lists."""
        return field_name not in self._exclude and (not self._include or field_name in self._include)

    def renamed(self, field_name: str) -> str:
        return self._renames.get(field_name, field_name)

    def _plan_target_name(self, name: str) -> str | None:
        """The output name of field ``name`` (None when dropped), remembered for the next map."""
        if len(self._target_names) >= _MAX_PLANNED_NAMES:
            self._target_names.clear()
        target = self.renamed(name) if self.keeps(name) else None
        self._target_names[name] = target
        return target

    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        updated: dict[str, Any] = {}
        planned = self._target_names
        for name, item in require_map(value, _PURPOSE).items():
            target = planned[name] if name in planned else self._plan_target_name(name)
            if target is not None:
                updated[target] = item
        return self.new_record(record, None, updated)

    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        struct = require_struct(value, _PURPOSE)
        updated_schema = self.cached_schema(struct.schema, self._updated_schema)
        updated_struct = Struct(updated_schema)
        for field in updated_schema.fields:
            original_name = self._reverse_renames.get(field.name, field.name)
            updated_struct.put(field.name, self.field_value(struct, original_name))
        return self.new_record(record, updated_schema, updated_struct)

    def _updated_schema(self, schema: Schema) -> Schema:
        kept = [(self.renamed(field.name), field.schema) for field in schema.fields if self.keeps(field.name)]
        return struct_schema_like(schema, kept)


class ReplaceFieldKey(KeySide, ReplaceField):
    """ReplaceField$Key: replace fields of the record key."""


class ReplaceFieldValue(ValueSide, ReplaceField):
    """ReplaceField$Value: replace fields of the record value."""
