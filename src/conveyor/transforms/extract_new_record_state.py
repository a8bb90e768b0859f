"""Debezium's ``ExtractNewRecordState``: a change event's envelope replaced by the row state it carries.

``c``, ``r`` and ``u`` events become their ``after`` struct; deletes and tombstones are handled as
``delete.tombstone.handling.mode`` says (or, when it is not set, Debezium's older ``delete.handling.mode``
and ``drop.tombstones``); ``add.fields`` copies envelope or ``source`` fields into the row as ``__<name>``.
Records that are not change events (no struct value with ``op`` and ``after``) pass through unchanged, as
Debezium's heartbeats and schema changes do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, ValidString
from conveyor.data import OPTIONAL_STRING_SCHEMA, ConnectRecord, Schema, Struct, Type
from conveyor.transforms.schema_util import struct_schema_like
from conveyor.transforms.transformation_base import ConfiguredTransformation

DELETE_TOMBSTONE_HANDLING_MODE = "delete.tombstone.handling.mode"
DELETE_HANDLING_MODE = "delete.handling.mode"
DROP_TOMBSTONES = "drop.tombstones"
ADD_FIELDS = "add.fields"
ADD_FIELDS_PREFIX = "add.fields.prefix"

DROP, TOMBSTONE, REWRITE, REWRITE_WITH_TOMBSTONE, DELETE_TO_TOMBSTONE = (
    "drop",
    "tombstone",
    "rewrite",
    "rewrite-with-tombstone",
    "delete-to-tombstone",
)
DELETED_FIELD = "__deleted"
_ENVELOPE_FIELDS = frozenset({"op", "ts_ms", "ts_us", "ts_ns", "before", "after", "source", "transaction"})

CONFIG_DEF = (
    ConfigDef()
    .define(
        DELETE_TOMBSTONE_HANDLING_MODE,
        ConfigType.STRING,
        default="",
        validator=ValidString.in_(DROP, TOMBSTONE, REWRITE, REWRITE_WITH_TOMBSTONE, DELETE_TO_TOMBSTONE, ""),
        importance=Importance.MEDIUM,
        documentation="drop: remove delete events and tombstones; tombstone (the default): remove "
        "delete events, keep tombstones; rewrite: delete events become the old row with __deleted=true, "
        "tombstones are removed; rewrite-with-tombstone: the same, keeping tombstones; "
        "delete-to-tombstone: delete events become tombstones, tombstones are removed.",
    )
    .define(
        DELETE_HANDLING_MODE,
        ConfigType.STRING,
        default="",
        validator=ValidString.in_("drop", "rewrite", "none", ""),
        importance=Importance.LOW,
        documentation="Deprecated by delete.tombstone.handling.mode, used when that is not set: drop, "
        "rewrite or none (a delete event becomes a record with a null value).",
    )
    .define(
        DROP_TOMBSTONES,
        ConfigType.BOOLEAN,
        default=None,
        importance=Importance.LOW,
        documentation="Deprecated by delete.tombstone.handling.mode, used when that is not set: whether "
        "tombstones are removed (true by default).",
    )
    .define(
        ADD_FIELDS,
        ConfigType.LIST,
        default="",
        importance=Importance.LOW,
        documentation="Envelope fields (op, ts_ms) or source fields (table, lsn, or source.<name>) to add to "
        "the row, each as <prefix><name> with dots turned into underscores.",
    )
    .define(
        ADD_FIELDS_PREFIX,
        ConfigType.STRING,
        default="__",
        importance=Importance.LOW,
        documentation="The prefix of the fields add.fields adds.",
    )
)


class ExtractNewRecordState(ConfiguredTransformation):
    """``io.debezium.transforms.ExtractNewRecordState``: see the module's docstring."""

    CONFIG_DEF = CONFIG_DEF

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        mode = settings[DELETE_TOMBSTONE_HANDLING_MODE] or self._legacy_mode(settings)
        self._mode: str = mode
        self._prefix: str = settings[ADD_FIELDS_PREFIX]
        self._additions: list[tuple[str, str]] = [
            (name, self._prefix + name.replace(".", "_")) for name in settings[ADD_FIELDS]
        ]

    @staticmethod
    def _legacy_mode(settings: Mapping[str, Any]) -> str:
        """Debezium's mapping of the older keys; neither set gives the newer key's default, tombstone."""
        handling, drop_tombstones = settings[DELETE_HANDLING_MODE], settings[DROP_TOMBSTONES]
        if not handling and drop_tombstones is None:
            return TOMBSTONE
        keep_tombstones = drop_tombstones is False
        if handling == "rewrite":
            return REWRITE_WITH_TOMBSTONE if keep_tombstones else REWRITE
        if handling == "none":
            return TOMBSTONE if keep_tombstones else DELETE_TO_TOMBSTONE
        return TOMBSTONE if keep_tombstones else DROP

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        value, schema = record.value, record.value_schema
        if value is None:
            return record if self._mode in (TOMBSTONE, REWRITE_WITH_TOMBSTONE) else None
        if not _is_envelope(schema, value):
            return record
        assert schema is not None
        op = value.get("op")
        if op == "d":
            return self._deleted(record, schema, value)
        if op not in ("c", "r", "u"):
            return None
        return self._row(record, schema, value, "after", "false")

    def _deleted(self, record: ConnectRecord, schema: Schema, envelope: Struct) -> ConnectRecord | None:
        if self._mode in (DROP, TOMBSTONE):
            return None
        if self._mode == DELETE_TO_TOMBSTONE:
            return record.new_record(value_schema=None, value=None)
        return self._row(record, schema, envelope, "before", "true")

    def _row(
        self, record: ConnectRecord, schema: Schema, envelope: Struct, side: str, deleted: str
    ) -> ConnectRecord:
        field = schema.field(side)
        assert field is not None
        row = envelope.get(side)
        rewrite = self._mode in (REWRITE, REWRITE_WITH_TOMBSTONE)
        if not self._additions and not rewrite:
            return record.new_record(value_schema=field.schema, value=row)
        extras = [(name, *self._addition(schema, envelope, path)) for path, name in self._additions]
        if rewrite:
            extras.append((DELETED_FIELD, OPTIONAL_STRING_SCHEMA, deleted))
        row_schema = field.schema
        widened = self.cached_schema(
            row_schema,
            lambda original: struct_schema_like(
                original,
                [(f.name, f.schema) for f in original.fields] + [(name, s) for name, s, _ in extras],
                optional=original.optional,
            ),
        )
        new_row = Struct(widened)
        if isinstance(row, Struct):
            for f in row_schema.fields:
                new_row.put(f.name, row.get_without_default(f))
        for name, _, extra in extras:
            new_row.put(name, extra)
        return record.new_record(value_schema=widened, value=new_row)

    @staticmethod
    def _addition(schema: Schema, envelope: Struct, path: str) -> tuple[Schema, Any]:
        """The schema (made optional) and value of an ``add.fields`` entry."""
        holder_schema, name = schema, path
        holder: Any = envelope
        if path.startswith("source.") or path not in _ENVELOPE_FIELDS:
            name = path.removeprefix("source.")
            source_field = schema.field("source")
            holder_schema = source_field.schema if source_field is not None else schema
            holder = envelope.get("source") if source_field is not None else None
        found = holder_schema.field(name) if holder_schema.type is Type.STRUCT else None
        if found is None:
            return OPTIONAL_STRING_SCHEMA, None
        optional = Schema(
            found.schema.type,
            optional=True,
            name=found.schema.name,
            version=found.schema.version,
            parameters=found.schema.parameters,
            key_schema=found.schema.key_schema,
            value_schema=found.schema.value_schema,
            fields=found.schema.fields,
        )
        return optional, holder.get(name) if isinstance(holder, Struct) else None


def _is_envelope(schema: Schema | None, value: Any) -> bool:
    return (
        schema is not None
        and schema.type is Type.STRUCT
        and isinstance(value, Struct)
        and schema.field("op") is not None
        and schema.field("after") is not None
    )
