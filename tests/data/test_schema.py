from types import MappingProxyType

import pytest

from conveyor.data import (
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataError,
    Field,
    Schema,
    SchemaBuilder,
    Type,
)


def test_type_values_are_kafkas_lower_case_names() -> None:
    assert [t.value for t in Type] == [
        "int8",
        "int16",
        "int32",
        "int64",
        "float32",
        "float64",
        "boolean",
        "string",
        "bytes",
        "array",
        "map",
        "struct",
    ]


def test_only_array_map_and_struct_are_not_primitive() -> None:
    assert {t for t in Type if not t.is_primitive} == {Type.ARRAY, Type.MAP, Type.STRUCT}


def test_schemas_with_the_same_properties_are_equal_and_hash_alike() -> None:
    first = SchemaBuilder.int64().name("n").version(2).doc("d").parameter("k", "v").build()
    second = SchemaBuilder.int64().name("n").version(2).doc("d").parameter("k", "v").build()
    assert first == second
    assert hash(first) == hash(second)


@pytest.mark.parametrize(
    "other",
    [
        SchemaBuilder.int64().name("other").build(),
        SchemaBuilder.int64().name("n").optional().build(),
        SchemaBuilder.int64().name("n").parameter("k", "v").build(),
        SchemaBuilder.int64().name("n").default_value(3).build(),
        SchemaBuilder.int32().name("n").build(),
    ],
)
def test_schemas_differing_in_any_property_are_unequal(other: Schema) -> None:
    assert SchemaBuilder.int64().name("n").build() != other


def test_parameters_cannot_be_changed_after_building() -> None:
    schema = SchemaBuilder.string().parameter("k", "v").build()
    assert isinstance(schema.parameters, MappingProxyType)
    with pytest.raises(TypeError):
        schema.parameters["k"] = "changed"  # type: ignore[index]


def test_field_looks_up_struct_fields_by_name() -> None:
    schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).field("b", STRING_SCHEMA).build()
    assert schema.field("b") == Field("b", 1, STRING_SCHEMA)
    assert schema.field("missing") is None


def test_looking_up_a_field_of_a_non_struct_schema_raises() -> None:
    with pytest.raises(DataError, match="non-struct"):
        STRING_SCHEMA.field("a")


def test_a_map_schema_needs_key_and_value_schemas() -> None:
    with pytest.raises(DataError, match="MAP"):
        Schema(Type.MAP, value_schema=STRING_SCHEMA)


def test_an_array_schema_needs_an_element_schema() -> None:
    with pytest.raises(DataError, match="ARRAY"):
        Schema(Type.ARRAY)


def test_a_primitive_schema_cannot_have_fields() -> None:
    with pytest.raises(DataError, match="fields"):
        Schema(Type.STRING, fields=(Field("a", 0, STRING_SCHEMA),))


def test_optional_constants_are_optional_and_others_required() -> None:
    assert OPTIONAL_STRING_SCHEMA.optional
    assert not STRING_SCHEMA.optional
