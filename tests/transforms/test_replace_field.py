"""ReplaceField, as Kafka's ReplaceFieldTest specifies it, plus generated structs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.api import ConfigError
from conveyor.data import BOOLEAN_SCHEMA, INT32_SCHEMA, STRING_SCHEMA, SchemaBuilder, Struct
from conveyor.transforms import ReplaceFieldKey, ReplaceFieldValue

from .support import configured, value_record


def test_tombstone_passes_through() -> None:
    transform = configured(ReplaceFieldValue, {"exclude": "dont"})
    record = value_record(None, None)
    assert transform.apply(record) is record


def test_schemaless_exclude_include_and_rename() -> None:
    transform = configured(ReplaceFieldValue, {"exclude": "dont", "renames": "abc:xyz,foo:bar"})
    value = {"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}
    result = transform.apply(value_record(None, value))
    assert result is not None
    assert result.value == {"xyz": 42, "bar": True, "etc": "etc"}


def test_include_keeps_only_listed_fields() -> None:
    transform = configured(ReplaceFieldValue, {"include": "abc,foo", "renames": "abc:xyz"})
    result = transform.apply(value_record(None, {"dont": 1, "abc": 42, "foo": True}))
    assert result is not None
    assert result.value == {"xyz": 42, "foo": True}


def test_exclude_wins_over_include() -> None:
    transform = configured(ReplaceFieldValue, {"include": "abc,foo", "exclude": "foo"})
    result = transform.apply(value_record(None, {"abc": 1, "foo": 2}))
    assert result is not None
    assert result.value == {"abc": 1}


def test_with_schema_the_updated_schema_keeps_order_and_renames() -> None:
    transform = configured(ReplaceFieldValue, {"include": "abc,foo,etc", "renames": "abc:xyz,foo:bar"})
    schema = (
        SchemaBuilder.struct()
        .name("s")
        .field("dont", STRING_SCHEMA)
        .field("abc", INT32_SCHEMA)
        .field("foo", BOOLEAN_SCHEMA)
        .field("etc", STRING_SCHEMA)
        .build()
    )
    value = Struct(schema).put("dont", "whatever").put("abc", 42).put("foo", True).put("etc", "etc")

    result = transform.apply(value_record(schema, value))

    assert result is not None
    assert result.value_schema.name == "s"
    assert [field.name for field in result.value_schema.fields] == ["xyz", "bar", "etc"]
    assert result.value.to_dict() == {"xyz": 42, "bar": True, "etc": "etc"}


def test_deprecated_blacklist_and_whitelist_are_still_accepted() -> None:
    transform = configured(ReplaceFieldKey, {"blacklist": "b", "whitelist": "a,b"})
    result = transform.apply(value_record(None, None, key={"a": 1, "b": 2, "c": 3}))
    assert result is not None
    assert result.key == {"a": 1}


def test_a_rename_that_is_not_a_pair_is_rejected() -> None:
    with pytest.raises(ConfigError, match="Invalid rename mapping: a:b:c"):
        configured(ReplaceFieldValue, {"renames": "a:b:c"})


def test_a_rename_without_a_new_name_is_rejected() -> None:
    with pytest.raises(ConfigError, match="Invalid rename mapping: a:"):
        configured(ReplaceFieldValue, {"renames": "a:"})


field_names = st.lists(
    st.text(alphabet="abcdefgh", min_size=1, max_size=4), min_size=1, max_size=8, unique=True
)


@given(names=field_names, data=st.data())
def test_generated_structs_keep_exactly_the_included_fields_that_are_not_excluded(
    names: list[str], data: st.DataObject
) -> None:
    include = data.draw(st.lists(st.sampled_from(names), unique=True))
    exclude = data.draw(st.lists(st.sampled_from(names), unique=True))
    builder = SchemaBuilder.struct()
    for name in names:
        builder.field(name, INT32_SCHEMA)
    schema = builder.build()
    value = Struct(schema)
    for index, name in enumerate(names):
        value.put(name, index)
    transform = configured(ReplaceFieldValue, {"include": ",".join(include), "exclude": ",".join(exclude)})

    result = transform.apply(value_record(schema, value))

    expected = [name for name in names if name not in exclude and (not include or name in include)]
    assert result is not None
    assert [field.name for field in result.value_schema.fields] == expected
    assert result.value.to_dict() == {name: names.index(name) for name in expected}


@given(names=field_names)
def test_generated_renames_round_trip(names: list[str]) -> None:
    forward = ",".join(f"{name}:{name.upper()}" for name in names)
    backward = ",".join(f"{name.upper()}:{name}" for name in names)
    original = {name: index for index, name in enumerate(names)}
    renamed = configured(ReplaceFieldValue, {"renames": forward}).apply(value_record(None, original))
    assert renamed is not None
    restored = configured(ReplaceFieldValue, {"renames": backward}).apply(renamed)
    assert restored is not None
    assert restored.value == original
