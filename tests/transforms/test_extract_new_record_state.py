"""Debezium's ExtractNewRecordState: change events unwrapped to their row; deletes and tombstones as set."""

from __future__ import annotations

from typing import Any

import pytest

from conveyor.data import (
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    Struct,
)
from conveyor.plugins import load_chain_plugin
from conveyor.transforms import ExtractNewRecordState

from .support import configured, value_record

ROW = SchemaBuilder.struct().name("db.public.items.Value").field("id", INT64_SCHEMA).optional().build()
SOURCE = SchemaBuilder.struct().field("table", STRING_SCHEMA).field("lsn", INT64_SCHEMA).build()
ENVELOPE = (
    SchemaBuilder.struct()
    .name("db.public.items.Envelope")
    .field("before", ROW)
    .field("after", ROW)
    .field("source", SOURCE)
    .field("op", STRING_SCHEMA)
    .field("ts_ms", SchemaBuilder.int64().optional().build())
    .build()
)


def event(op: str, before: int | None, after: int | None) -> Struct:
    envelope = Struct(ENVELOPE).put("op", op).put("ts_ms", 1000)
    envelope.put("source", Struct(SOURCE).put("table", "items").put("lsn", 42))
    if before is not None:
        envelope.put("before", Struct(ROW).put("id", before))
    if after is not None:
        envelope.put("after", Struct(ROW).put("id", after))
    return envelope


def unwrap(props: dict[str, Any], value: Struct | None) -> Any:
    transform = configured(ExtractNewRecordState, props)
    result = transform.apply(value_record(None if value is None else ENVELOPE, value))
    return "dropped" if result is None else result


def as_dict(result: Any) -> Any:
    return result if isinstance(result, str) else (None if result.value is None else result.value.to_dict())


@pytest.mark.parametrize("op", ["c", "r", "u"])
def test_a_change_event_becomes_its_after_row_with_its_schema(op: str) -> None:
    result = unwrap({}, event(op, 1, 2))
    assert (result.value_schema, result.value.to_dict()) == (ROW, {"id": 2})


@pytest.mark.parametrize(
    ("mode", "delete", "tombstone"),
    [
        ("drop", "dropped", "dropped"),
        ("tombstone", "dropped", None),
        ("rewrite", {"id": 1, "__deleted": "true"}, "dropped"),
        ("rewrite-with-tombstone", {"id": 1, "__deleted": "true"}, None),
        ("delete-to-tombstone", None, "dropped"),
    ],
)
def test_delete_tombstone_handling_mode_decides_what_deletes_and_tombstones_become(
    mode: str, delete: Any, tombstone: Any
) -> None:
    props = {"delete.tombstone.handling.mode": mode}
    assert (as_dict(unwrap(props, event("d", 1, None))), as_dict(unwrap(props, None))) == (delete, tombstone)


def test_by_default_a_delete_is_dropped_and_its_tombstone_kept_for_a_sink_to_delete_with() -> None:
    assert (as_dict(unwrap({}, event("d", 1, None))), as_dict(unwrap({}, None))) == ("dropped", None)


@pytest.mark.parametrize(
    ("legacy", "delete", "tombstone"),
    [
        ({"delete.handling.mode": "drop"}, "dropped", "dropped"),
        ({"delete.handling.mode": "none", "drop.tombstones": "false"}, "dropped", None),
        (
            {"delete.handling.mode": "rewrite", "drop.tombstones": "true"},
            {"id": 1, "__deleted": "true"},
            "dropped",
        ),
    ],
)
def test_the_older_delete_handling_mode_and_drop_tombstones_keys_still_apply(
    legacy: dict[str, str], delete: Any, tombstone: Any
) -> None:
    assert (as_dict(unwrap(legacy, event("d", 1, None))), as_dict(unwrap(legacy, None))) == (
        delete,
        tombstone,
    )


def test_rewrite_marks_kept_rows_as_not_deleted() -> None:
    result = unwrap({"delete.tombstone.handling.mode": "rewrite"}, event("u", 1, 2))
    assert result.value.to_dict() == {"id": 2, "__deleted": "false"}


def test_add_fields_copies_envelope_and_source_fields_into_the_row() -> None:
    result = unwrap({"add.fields": "op,table,source.lsn,ts_ms"}, event("c", None, 7))
    assert result.value.to_dict() == {
        "id": 7,
        "__op": "c",
        "__table": "items",
        "__source_lsn": 42,
        "__ts_ms": 1000,
    }
    assert all(f.schema.optional for f in result.value_schema.fields[1:])


def test_a_record_that_is_not_a_change_event_passes_through() -> None:
    schema: Schema = SchemaBuilder.struct().field("note", OPTIONAL_STRING_SCHEMA).build()
    record = value_record(schema, Struct(schema).put("note", "heartbeat"))
    assert configured(ExtractNewRecordState, {}).apply(record) is record


def test_it_is_found_by_debezium_s_class_name() -> None:
    assert (
        load_chain_plugin("transformation", "io.debezium.transforms.ExtractNewRecordState")
        is ExtractNewRecordState
    )
