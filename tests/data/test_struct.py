import datetime as dt
import decimal

import pytest

from conveyor.data import (
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataError,
    Date,
    Decimal,
    SchemaBuilder,
    Struct,
    StructColumn,
    Timestamp,
    validate_value,
)

PERSON = (
    SchemaBuilder.struct()
    .name("person")
    .field("name", STRING_SCHEMA)
    .field("nickname", OPTIONAL_STRING_SCHEMA)
    .field("age", SchemaBuilder.int32().default_value(18).build())
    .build()
)


def test_put_then_get_returns_the_value() -> None:
    assert Struct(PERSON).put("name", "Ada").get("name") == "Ada"


def test_get_of_an_unset_field_returns_the_field_default() -> None:
    assert Struct(PERSON).get("age") == 18


def test_get_without_default_returns_what_was_set() -> None:
    assert Struct(PERSON).get_without_default("age") is None


def test_put_refuses_a_value_of_the_wrong_type_and_names_the_field() -> None:
    with pytest.raises(DataError, match='"name"'):
        Struct(PERSON).put("name", 42)


def test_put_refuses_an_unknown_field() -> None:
    with pytest.raises(DataError, match="not a valid field name"):
        Struct(PERSON).put("height", 1)


def test_validate_names_a_missing_required_field() -> None:
    with pytest.raises(DataError, match='required field: "name"'):
        Struct(PERSON).validate()


def test_validate_accepts_unset_optional_and_defaulted_fields() -> None:
    Struct(PERSON).put("name", "Ada").validate()


def test_structs_with_equal_schema_and_values_are_equal() -> None:
    assert Struct(PERSON).put("name", "Ada") == Struct(PERSON).put("name", "Ada")
    assert Struct(PERSON).put("name", "Ada") != Struct(PERSON).put("name", "Bob")


def test_to_dict_applies_defaults_and_flattens_nested_structs() -> None:
    outer = SchemaBuilder.struct().field("who", PERSON).build()
    value = Struct(outer).put("who", Struct(PERSON).put("name", "Ada"))
    assert value.to_dict() == {"who": {"name": "Ada", "nickname": None, "age": 18}}


def test_integers_must_fit_their_width() -> None:
    validate_value(INT8_SCHEMA, 127)
    with pytest.raises(DataError, match="out of range"):
        validate_value(INT8_SCHEMA, 128)


def test_a_bool_is_not_an_integer() -> None:
    with pytest.raises(DataError):
        validate_value(INT32_SCHEMA, True)


def test_array_elements_are_validated() -> None:
    with pytest.raises(DataError):
        validate_value(SchemaBuilder.array(INT32_SCHEMA).build(), [1, "two"])


def test_map_keys_and_values_are_validated() -> None:
    schema = SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build()
    validate_value(schema, {"a": 1})
    with pytest.raises(DataError):
        validate_value(schema, {1: 1})


def test_logical_types_need_their_python_class() -> None:
    validate_value(Decimal.schema(2), decimal.Decimal("1.00"))
    validate_value(Date.SCHEMA, dt.date(2024, 1, 2))
    with pytest.raises(DataError):
        validate_value(Timestamp.SCHEMA, 1700000000000)


def test_any_value_fits_no_schema() -> None:
    validate_value(None, object())


def test_a_nested_struct_must_have_the_field_schema() -> None:
    outer = SchemaBuilder.struct().field("who", PERSON).build()
    stranger = SchemaBuilder.struct().field("name", STRING_SCHEMA).build()
    with pytest.raises(DataError, match="do not match"):
        Struct(outer).put("who", Struct(stranger).put("name", "x"))


def test_unchecked_many_builds_one_struct_per_list_of_values() -> None:
    schema = SchemaBuilder.struct().field("id", INT32_SCHEMA).field("name", STRING_SCHEMA).build()

    structs = Struct.unchecked_many(schema, [[1, "a"], [2, "b"]])

    assert structs == [
        Struct(schema).put("id", 1).put("name", "a"),
        Struct(schema).put("id", 2).put("name", "b"),
    ]


def test_unchecked_many_refuses_a_list_of_another_width() -> None:
    schema = SchemaBuilder.struct().field("id", INT32_SCHEMA).build()
    with pytest.raises(DataError, match="Expected 1 values"):
        Struct.unchecked_many(schema, [[1, "extra"]])


ID_NAME = SchemaBuilder.struct().field("id", INT64_SCHEMA).field("name", STRING_SCHEMA).build()


def test_a_struct_column_reads_as_the_structs_of_its_rows() -> None:
    column = StructColumn(ID_NAME, [[1, 2], ["a", "b"]])
    assert [(s.get("id"), s.get("name")) for s in column] == [(1, "a"), (2, "b")]
    rows = [Struct(ID_NAME).put("id", 1).put("name", "a"), Struct(ID_NAME).put("id", 2).put("name", "b")]
    assert column == rows


def test_a_slice_of_a_struct_column_is_a_column_of_those_rows() -> None:
    column = StructColumn(ID_NAME, [[1, 2, 3], ["a", "b", "c"]])
    tail = column[1:]
    assert isinstance(tail, StructColumn)
    assert tail.field_columns() == [[2, 3], ["b", "c"]]


def test_a_struct_columns_fields_follow_a_struct_changed_after_it_was_read() -> None:
    column = StructColumn(ID_NAME, [[1, 2], ["a", "b"]])
    column[0].put("name", "changed")
    assert [list(field) for field in column.field_columns()] == [[1, 2], ["changed", "b"]]


def test_a_struct_column_refuses_columns_that_do_not_fit_its_schema() -> None:
    with pytest.raises(DataError, match="Expected 2 columns"):
        StructColumn(ID_NAME, [[1, 2]])
